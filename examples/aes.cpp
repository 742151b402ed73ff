// AES-128 as a secure function: Alice holds the key, Bob the plaintext; the
// circuit is the Bristol Fashion AES-128 of tests/data (--circuit: another file). By default the
// inputs are the FIPS-197 Appendix C.1 vector and the result is checked.
//
//   aes --local [--key <32 hex>] [--plaintext <32 hex>] [--repeat <n>] [--expect <32 hex>]
//   aes --party alice [--port 7766] --key <32 hex>
//   aes --party bob --host <alice> --plaintext <32 hex>
//
// --repeat runs the encryption n times in one session (one OT set-up);
// --expect makes the exit status 1 if the ciphertext differs.
#include "two_party.hpp"

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// 32 hex digits as Bristol input bits: one big-endian 128-bit number
/// (tandem/bits.hpp), so the bytes in FIPS-197 order.
std::vector<bool> bits_of_hex(const std::string& hex) {
    if (hex.size() != 32) throw std::invalid_argument("'" + hex + "' is not 32 hex digits");
    return tandem::bits_from_hex(hex, 128);
}

}  // namespace

int main(int argc, char** argv) {
    std::string key = "000102030405060708090a0b0c0d0e0f";  // FIPS-197 C.1
    std::string plaintext = "00112233445566778899aabbccddeeff";
    const std::string fips_ciphertext = "69c4e0d86a7b0430d8cdb78070b4c55a";
    std::string circuit_path = TANDEM_DATA_DIR "/aes_128.txt";
    std::string expect;
    long repeat = 1;
    example::cli cli;
    try {
        cli = example::parse(argc, argv);
        for (std::size_t i = 0; i < cli.rest.size(); ++i) {
            const std::string& arg = cli.rest[i];
            if (i + 1 == cli.rest.size()) throw std::invalid_argument("unknown argument '" + arg + "'");
            if (arg == "--key") key = cli.rest[++i];
            else if (arg == "--plaintext") plaintext = cli.rest[++i];
            else if (arg == "--circuit") circuit_path = cli.rest[++i];
            else if (arg == "--repeat") repeat = std::stol(cli.rest[++i]);
            else if (arg == "--expect") expect = cli.rest[++i];
            else throw std::invalid_argument("unknown argument '" + arg + "'");
        }
        if (repeat < 1) throw std::invalid_argument("--repeat must be at least 1");
        bits_of_hex(key), bits_of_hex(plaintext);  // validate before connecting
        if (!expect.empty()) bits_of_hex(expect);
    } catch (const std::exception& e) {
        std::cerr << "aes: " << e.what() << "\nusage: aes (--local | --party alice|bob) [--key <32 hex>] "
                  << "[--plaintext <32 hex>] [--repeat <n>] [--expect <32 hex>] [--circuit <file>]\n"
                  << example::common_usage;
        return 2;
    }

    tandem::circuit<> aes;
    try {
        aes = tandem::bristol::read_file(circuit_path);  // input 0 (key) is Alice's, input 1 (plaintext) Bob's
    } catch (const tandem::error& e) {
        std::cerr << "aes: " << e.what() << " (give the Bristol AES-128 file with --circuit)\n";
        return 2;
    }

    return example::run(cli, argc, argv, [&](tandem::session& s) {
        const std::vector<bool> mine = bits_of_hex(s.me() == tandem::party::alice ? key : plaintext);
        std::optional<std::vector<std::vector<bool>>> out;
        for (long r = 0; r < repeat; ++r) out = s.run_bits(cli.who, aes, {mine});
        if (!out) {
            example::report(s, "result: not revealed to this party");
            return 0;
        }
        const std::string ciphertext = tandem::hex_from_bits(out->front());
        std::string note = ciphertext == fips_ciphertext ? " (the FIPS-197 C.1 ciphertext)" : "";
        const bool wrong = !expect.empty() && ciphertext != expect;
        if (wrong) note = " (WRONG: expected " + expect + ")";
        example::report(s, "ciphertext: " + ciphertext + note);
        return wrong ? 1 : 0;
    });
}

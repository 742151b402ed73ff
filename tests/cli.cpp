// tandem-run driven as a user drives it: real processes, real TCP between
// them, Bristol files in both formats, built-ins, and bad input of every kind
// (one line on stderr, exit status 2; a failed run exit status 1).
#include <doctest/doctest.h>

#include <tandem/bits.hpp>
#include <tandem/int128.hpp>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;  // POSIX: declared by no header; global, so outside cli_tests

namespace cli_tests {

namespace {

const std::string runner = TANDEM_RUN;
const std::string aes_file = std::string(TANDEM_DATA_DIR) + "/aes_128.txt";

/// A started tandem-run process with its stdout and stderr on pipes.
struct process {
    pid_t pid = 0;
    int out = -1, err = -1;
};

process start(const std::vector<std::string>& args) {
    int out[2], err[2];
    REQUIRE(pipe(out) == 0);
    REQUIRE(pipe(err) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, err[0]);
    std::vector<std::string> all{runner};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    process p;
    REQUIRE(posix_spawn(&p.pid, runner.c_str(), &actions, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    close(err[1]);
    p.out = out[0];
    p.err = err[0];
    return p;
}

struct result {
    int status = -1;
    std::string out, err;
};

/// Reads both pipes to the end (polling, so neither can fill up) and waits.
result finish(process p) {
    result r;
    pollfd fds[2] = {{p.out, POLLIN, 0}, {p.err, POLLIN, 0}};
    std::string* sink[2] = {&r.out, &r.err};
    int open_fds = 2;
    while (open_fds > 0) {
        REQUIRE(poll(fds, 2, 120'000) > 0);
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || fds[k].revents == 0) continue;
            char buf[4096];
            const ssize_t n = read(fds[k].fd, buf, sizeof buf);
            if (n > 0) {
                sink[k]->append(buf, static_cast<std::size_t>(n));
            } else {
                close(fds[k].fd);
                fds[k].fd = -1;
                --open_fds;
            }
        }
    }
    int status = 0;
    REQUIRE(waitpid(p.pid, &status, 0) == p.pid);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

result run(const std::vector<std::string>& args) {
    result r = finish(start(args));
    std::string line;
    for (const auto& a : args) line += " " + a;
    INFO("tandem-run" << line << "\nstdout: " << r.out << "\nstderr: " << r.err);
    return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// The value printed on the line "output K (...): VALUE" of a party (or of plain mode).
std::string output_value(const std::string& out, std::size_t k, const std::string& party = "") {
    const std::string key = (party.empty() ? "" : "[" + party + "] ") + "output " + std::to_string(k) + " (";
    const std::size_t at = out.find(key);
    if (at == std::string::npos) return "<none>";
    const std::size_t colon = out.find("): ", at);
    const std::size_t end = out.find('\n', colon);
    return out.substr(colon + 3, end - colon - 3);
}

std::filesystem::path temp_dir() {
    auto dir = std::filesystem::temp_directory_path() / ("tandem_cli_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream f(path);
    f << text;
}

// FIPS-197 appendix C.1 and appendix B.
const std::string key_c1 = "0x000102030405060708090a0b0c0d0e0f", block_c1 = "0x00112233445566778899aabbccddeeff",
                  cipher_c1 = "0x69c4e0d86a7b0430d8cdb78070b4c55a";
const std::string key_b = "0x2b7e151628aed2a6abf7158809cf4f3c", block_b = "0x3243f6a8885a308d313198a2e0370734",
                  cipher_b = "0x3925841d02dc09fbdc118597196a0b32";

// A 3-bit adder a + b (mod 8) in the old Bristol format: line 2 is "n1 n2 n3".
const std::string adder3_old =
    "8 14\n"
    "3 3 3\n"
    "2 1 0 3 11 XOR\n"   // s0 = a0 ^ b0
    "2 1 0 3 6 AND\n"    // c1 = a0 & b0
    "2 1 1 4 7 XOR\n"    // a1 ^ b1
    "2 1 7 6 12 XOR\n"   // s1
    "2 1 1 4 8 AND\n"    // a1 & b1
    "2 1 7 6 9 AND\n"    // (a1 ^ b1) & c1
    "2 1 8 9 10 XOR\n"   // c2 (the two terms never both 1)
    "2 1 2 5 13 XOR\n"   // a2 ^ b2 (then ^ c2 below would need one more gate)
    ;

}  // namespace

TEST_CASE("cli: help, list and every command's --help") {
    const result top = run({"--help"});
    CHECK(top.status == 0);
    CHECK(contains(top.out, "usage: tandem-run <command> CIRCUIT"));
    for (const char* c : {"run", "plain", "stats", "convert", "list"}) {
        const result r = run({c, "--help"});
        INFO(c);
        CHECK(r.status == 0);
        CHECK(contains(r.out, std::string("usage: tandem-run ") + c));
    }
    const result list = run({"list"});
    CHECK(list.status == 0);
    for (const char* name : {"aes128", "sha256", "sha3-256", "fadd32", "fmul32", "add64", "mul128", "less32"})
        CHECK(contains(list.out, std::string("  ") + name + " "));
}

TEST_CASE("cli: plain mode, the Bristol AES file and the built-in agree with FIPS-197") {
    for (const std::string& circuit : {aes_file, std::string("aes128")}) {
        INFO(circuit);
        const result c1 = run({"plain", circuit, "--input", key_c1, block_c1});
        CHECK(c1.status == 0);
        CHECK(output_value(c1.out, 0) == cipher_c1);
        const result b = run({"plain", circuit, "--input", key_b, block_b});
        CHECK(output_value(b.out, 0) == cipher_b);
    }
    const result streamed = run({"plain", aes_file, "--stream", "--input", key_c1, block_c1});
    CHECK(streamed.status == 0);
    CHECK(output_value(streamed.out, 0) == cipher_c1);
}

TEST_CASE("cli: built-ins give what plain C++ computes (fixed seed)") {
    const std::uint64_t seed = 20261124;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int rep = 0; rep < 4; ++rep) {
        const std::uint64_t a = rng(), b = rng();
        INFO("a = " << a << ", b = " << b);
        const auto value = [&](const std::string& fn) {
            const result r = run({"plain", fn, "--output", "dec", "--input", std::to_string(a), std::to_string(b)});
            CHECK(r.status == 0);
            return output_value(r.out, 0);
        };
        CHECK(value("add64") == std::to_string(a + b));
        CHECK(value("mul64") == std::to_string(a * b));
        CHECK(value("less64") == std::to_string(a < b ? 1 : 0));
        CHECK(value("equal64") == "0");
        CHECK(value("max64") == std::to_string(std::max(a, b)));
        const tandem::uint128 wide = static_cast<tandem::uint128>(a) * b;
        const result m = run({"plain", "mul128", "--input", std::to_string(a), std::to_string(b)});
        CHECK(output_value(m.out, 0) ==
              "0x" + tandem::hex_from_bits(tandem::bits_from_decimal(
                         std::to_string(static_cast<std::uint64_t>(wide >> 64)), 64)) +
                  tandem::hex_from_bits(tandem::bits_from_decimal(std::to_string(static_cast<std::uint64_t>(wide)), 64)));
    }
    // 1.0 + 2.0 = 3.0, 3.0 * 2.0 = 6.0 (binary32 bit patterns)
    CHECK(output_value(run({"plain", "fadd32", "--input", "0x3f800000", "0x40000000"}).out, 0) == "0x40400000");
    CHECK(output_value(run({"plain", "fmul32", "--input", "0x40400000", "0x40000000"}).out, 0) == "0x40c00000");
    // SHA-256 of 64 zero bytes; SHA3-256 of the bytes 0, 1, ..., 63.
    CHECK(output_value(run({"plain", "sha256", "--input", "0", "0"}).out, 0) ==
          "0xf5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b");
    CHECK(output_value(run({"plain", "sha3-256", "--input", "0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
                            "0x202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"})
                           .out,
                       0) == "0xc8ad478f4e1dd9d47dfc3b985708d92db1f8db48fe9cddd459e63c321f490402");
    // Signed output of a negative input: -3 + 1 in 8 bits.
    CHECK(output_value(run({"plain", "add8", "--output", "signed", "--input", "-3", "1"}).out, 0) == "-2");
}

/// Starts alice with `args` and waits for the port she prints ("[alice]
/// listening on port N,"); 0 if she did not say within 20 s.
std::uint16_t start_alice(const std::vector<std::string>& args, process& alice) {
    alice = start(args);
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
        pollfd fd{alice.err, POLLIN, 0};
        if (poll(&fd, 1, 1000) <= 0) continue;
        char c;
        if (read(alice.err, &c, 1) != 1) break;
        err += c;
        const std::size_t at = err.find("listening on port ");
        if (c == ',' && at != std::string::npos) return static_cast<std::uint16_t>(std::stoul(err.substr(at + 18)));
    }
    return 0;
}

TEST_CASE("cli: two processes over TCP, as on two hosts (alice on port 0 says which port)") {
    process alice;
    const std::uint16_t port =
        start_alice({"run", aes_file, "--party", "alice", "--port", "0", "--timeout", "20000", "--input", key_c1}, alice);
    REQUIRE(port != 0);
    const result bob = run({"run", aes_file, "--party", "bob", "--port", std::to_string(port), "--input", block_c1});
    const result a = finish(alice);
    CHECK(bob.status == 0);
    CHECK(a.status == 0);
    CHECK(output_value(bob.out, 0, "bob") == cipher_c1);
    CHECK(output_value(a.out, 0, "alice") == cipher_c1);
    CHECK(contains(a.out, "[alice] AND gates: 6400"));
}

/// mul32 between two processes, alice (input 6) listening and bob (input 7)
/// connecting, each with its own extra options (link protection); returns
/// (alice's result, bob's).
std::pair<result, result> pair_run(const std::vector<std::string>& alice_opts, const std::vector<std::string>& bob_opts) {
    std::vector<std::string> aa{"run", "mul32", "--party", "alice", "--port", "0", "--timeout", "10000",
                                "--output", "dec", "--input", "6"};
    aa.insert(aa.end(), alice_opts.begin(), alice_opts.end());
    process alice;
    const std::uint16_t port = start_alice(aa, alice);
    REQUIRE(port != 0);
    std::vector<std::string> bb{"run", "mul32", "--party", "bob", "--port", std::to_string(port), "--timeout",
                                "10000", "--output", "dec", "--input", "7"};
    bb.insert(bb.end(), bob_opts.begin(), bob_opts.end());
    const result bob = run(bb);
    return {finish(alice), bob};
}

TEST_CASE("cli: keygen, and sealed links with pinned keys or a pre-shared key") {
    const auto dir = temp_dir();
    const std::string a = (dir / "alice").string(), b = (dir / "bob").string(), m = (dir / "mallory").string(),
                      s = (dir / "shared").string();
    for (const std::string& name : {a, b, m}) {
        const result r = run({"keygen", name});
        CHECK(r.status == 0);
        CHECK(contains(r.out, "wrote " + name + ".key"));
    }
    CHECK(run({"keygen", s, "--pre-shared"}).status == 0);
    {
        const auto [ra, rb] = pair_run({"--key", a + ".key", "--peer-key", b + ".pub"},
                                       {"--key", b + ".key", "--peer-key", a + ".pub"});
        CHECK(ra.status == 0);
        CHECK(rb.status == 0);
        CHECK(output_value(ra.out, 0, "alice") == "42");
        CHECK(output_value(rb.out, 0, "bob") == "42");
    }
    {  // malicious security over sealed links, two processes
        const auto [ra, rb] = pair_run({"--malicious", "--key", a + ".key", "--peer-key", b + ".pub"},
                                       {"--malicious", "--key", b + ".key", "--peer-key", a + ".pub"});
        CHECK(ra.status == 0);
        CHECK(rb.status == 0);
        CHECK(output_value(ra.out, 0, "alice") == "42");
        CHECK(output_value(rb.out, 0, "bob") == "42");
    }
    {  // mallory answers with her own key where bob pinned alice's
        const auto [ra, rb] = pair_run({"--key", m + ".key", "--peer-key", b + ".pub"},
                                       {"--key", b + ".key", "--peer-key", a + ".pub"});
        CHECK(ra.status == 1);
        CHECK(rb.status == 1);
        CHECK(contains(rb.err, "does not hold the secret key"));
        CHECK(output_value(rb.out, 0, "bob") == "<none>");
    }
    {  // one side plain
        const auto [ra, rb] = pair_run({"--psk", s + ".psk"}, {});
        CHECK(ra.status == 1);
        CHECK(contains(ra.err, "does not encrypt its links"));
        CHECK(contains(rb.err, "the peer encrypts its links and this party does not"));
    }
    {
        const result r = run({"run", "mul32", "--local", "--psk", s + ".psk", "--output", "dec", "--input", "6", "7"});
        CHECK(r.status == 0);
        CHECK(output_value(r.out, 0, "alice") == "42");
        CHECK(output_value(r.out, 0, "bob") == "42");
    }
    // bad key files and combinations: exit status 2 before anything runs
    CHECK(run({"run", "mul32", "--local", "--psk", a + ".pub", "--input", "6", "7"}).status == 2);
    CHECK(run({"run", "mul32", "--party", "bob", "--key", a + ".key", "--input", "7"}).status == 2);
    CHECK(run({"run", "mul32", "--local", "--key", a + ".key", "--peer-key", b + ".pub", "--input", "6", "7"}).status == 2);
    std::filesystem::permissions(a + ".key", std::filesystem::perms::group_read, std::filesystem::perm_options::add);
    const result loose = run({"run", "mul32", "--party", "alice", "--key", a + ".key", "--peer-key", b + ".pub",
                              "--input", "6"});
    CHECK(loose.status == 2);
    CHECK(contains(loose.err, "chmod 600"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("cli: TLS links with certificates (--cert/--key with --ca or --peer-cert)") {
    const std::string tls = std::string(TANDEM_DATA_DIR) + "/tls/";
    const auto creds = [&](const std::string& me) {
        return std::vector<std::string>{"--cert", tls + me + ".pem", "--key", tls + me + ".key"};
    };
    const auto with = [](std::vector<std::string> v, std::initializer_list<std::string> more) {
        v.insert(v.end(), more);
        return v;
    };
    {  // under a CA, malicious, bob checking alice's name
        const auto [ra, rb] =
            pair_run(with(creds("alice"), {"--ca", tls + "tandem-test-ca.pem", "--malicious"}),
                     with(creds("bob"), {"--ca", tls + "tandem-test-ca.pem", "--malicious", "--peer-name",
                                         "alice.tandem.test"}));
        CHECK(ra.status == 0);
        CHECK(rb.status == 0);
        CHECK(output_value(ra.out, 0, "alice") == "42");
        CHECK(output_value(rb.out, 0, "bob") == "42");
    }
    {  // pinned
        const auto [ra, rb] = pair_run(with(creds("alice"), {"--peer-cert", tls + "bob.pem"}),
                                       with(creds("bob"), {"--peer-cert", tls + "alice.pem"}));
        CHECK(ra.status == 0);
        CHECK(rb.status == 0);
        CHECK(output_value(rb.out, 0, "bob") == "42");
    }
    {  // mallory answers for alice under a rogue CA: refused before any input is used
        const auto [ra, rb] = pair_run(with(creds("mallory"), {"--ca", tls + "tandem-test-ca.pem"}),
                                       with(creds("bob"), {"--ca", tls + "tandem-test-ca.pem"}));
        CHECK(ra.status == 1);
        CHECK(rb.status == 1);
        CHECK(contains(rb.err, "did not verify"));
        CHECK(contains(ra.err, "refused this party's certificate"));
        CHECK(output_value(rb.out, 0, "bob") == "<none>");
    }
    // combinations refused before anything runs (exit status 2)
    const result no_check = run(with({"run", "mul32", "--party", "alice", "--input", "6"}, {"--cert", tls + "alice.pem",
                                                                                             "--key", tls + "alice.key"}));
    CHECK(no_check.status == 2);
    CHECK(contains(no_check.err, "--ca FILE or --peer-cert FILE"));
    CHECK(run({"run", "mul32", "--party", "alice", "--input", "6", "--ca", tls + "tandem-test-ca.pem"}).status == 2);
    CHECK(run(with({"run", "mul32", "--party", "alice", "--input", "6", "--psk", tls + "x.psk"},
                   {"--cert", tls + "alice.pem", "--key", tls + "alice.key", "--ca", tls + "tandem-test-ca.pem"}))
              .status == 2);
    const result missing = run(with({"run", "mul32", "--party", "alice", "--port", "0", "--input", "6"},
                                    {"--cert", tls + "nowhere.pem", "--key", tls + "alice.key", "--ca",
                                     tls + "tandem-test-ca.pem"}));
    CHECK(missing.status == 2);
    CHECK(contains(missing.err, "nowhere.pem"));
}

TEST_CASE("cli: --local with options: reveal, threads, IPP, stream, hash, JSON") {
    {
        const result r = run({"run", "aes128", "--local", "--input", key_b, block_b});
        CHECK(r.status == 0);
        CHECK(output_value(r.out, 0, "alice") == cipher_b);
        CHECK(output_value(r.out, 0, "bob") == cipher_b);
    }
    {
        const result r = run({"run", aes_file, "--local", "--reveal", "bob", "--input", key_c1, block_c1});
        CHECK(r.status == 0);
        CHECK(contains(r.out, "[alice] outputs: revealed to the other party only"));
        CHECK(output_value(r.out, 0, "bob") == cipher_c1);
    }
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--threads", "2"}, {"--ipp", "--threads", "2"}, {"--stream"},
          {"--stream", "--segment-ands", "64"}, {"--hash", "fixed-key"}, {"--malicious"},
          {"--malicious", "--stream", "--segment-ands", "2000"}, {"--malicious", "--threads", "2"},
          {"--malicious", "--silent-ot"}, {"--scheme", "three-halves"},
          {"--scheme", "three-halves", "--ipp", "--threads", "2"}, {"--scheme", "three-halves", "--stream"}}) {
        std::vector<std::string> args{"run", aes_file, "--local", "--input", key_c1, block_c1};
        args.insert(args.end(), extra.begin(), extra.end());
        const result r = run(args);
        std::string line;
        for (const auto& a : extra) line += " " + a;
        INFO(line);
        CHECK(r.status == 0);
        CHECK(output_value(r.out, 0, "alice") == cipher_c1);
        CHECK(output_value(r.out, 0, "bob") == cipher_c1);
    }
    {
        const result r = run({"run", "mul32", "--local", "--json", "--output", "dec", "--input", "6", "7"});
        CHECK(r.status == 0);
        CHECK(r.out.rfind("{\"alice\":{\"mode\":\"garbled\",\"party\":\"alice\"", 0) == 0);
        CHECK(contains(r.out, "\"bob\":{\"mode\":\"garbled\",\"party\":\"bob\""));
        CHECK(contains(r.out, "\"outputs\":[\"42\"]"));
        CHECK(contains(r.out, "\"and_gates\":"));
        CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);  // one JSON object, one line
    }
    {
        const result r = run({"run", "mul32", "--local", "--malicious", "--output", "dec", "--input", "6", "7"});
        CHECK(r.status == 0);
        CHECK(output_value(r.out, 0, "bob") == "42");
        CHECK(contains(r.out, "[alice] malicious security: preprocessing "));
        const result j = run({"run", "mul32", "--local", "--malicious", "--json", "--input", "6", "7"});
        CHECK(contains(j.out, "\"security\":\"malicious\",\"independent\":{\"seconds\":"));
    }
}

TEST_CASE("cli: the old Bristol format, and convert writes Bristol Fashion that runs the same") {
    const auto dir = temp_dir();
    // The adder's outputs are wires 11..13: s0, s1 and a2 ^ b2 (no carry into bit 2).
    write_file(dir / "adder3.txt", adder3_old);
    for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 8; ++b) {
            const int want = ((a ^ b) & 1) | ((((a >> 1) ^ (b >> 1) ^ (a & b)) & 1) << 1) | ((((a >> 2) ^ (b >> 2)) & 1) << 2);
            const result r = run({"plain", (dir / "adder3.txt").string(), "--output", "dec", "--input",
                                  std::to_string(a), std::to_string(b)});
            INFO("a = " << a << ", b = " << b);
            CHECK(r.status == 0);
            CHECK(output_value(r.out, 0) == std::to_string(want));
        }
    const result refused = run({"plain", (dir / "adder3.txt").string(), "--format", "fashion", "--input", "1", "2"});
    CHECK(refused.status == 2);
    CHECK(contains(refused.err, "old Bristol format"));

    const result conv = run({"convert", (dir / "adder3.txt").string(), "-o", (dir / "adder3_fashion.txt").string()});
    CHECK(conv.status == 0);
    const result fashion = run({"run", (dir / "adder3_fashion.txt").string(), "--local", "--format", "fashion",
                                "--output", "dec", "--input", "3", "6"});
    CHECK(fashion.status == 0);
    CHECK(output_value(fashion.out, 0, "bob") == "5");  // a = 011, b = 110: s0 = 1, s1 = 1^1^0 = 0, a2^b2 = 1
    // The built-in AES, converted, is a Bristol file that gives FIPS-197's ciphertext.
    const result aes_conv = run({"convert", "aes128", "--out", (dir / "aes.txt").string()});
    CHECK(aes_conv.status == 0);
    CHECK(output_value(run({"plain", (dir / "aes.txt").string(), "--input", key_b, block_b}).out, 0) == cipher_b);
    std::filesystem::remove_all(dir);
}

TEST_CASE("cli: stats of the Bristol AES file, as text and JSON") {
    const result text = run({"stats", aes_file});
    CHECK(text.status == 0);
    CHECK(contains(text.out, "6400 AND"));
    CHECK(contains(text.out, "60 AND levels"));
    CHECK(contains(text.out, "128-255 ANDs:       30 levels"));
    const result json = run({"stats", aes_file, "--json"});
    CHECK(json.status == 0);
    CHECK(contains(json.out, "\"and_gates\":6400"));
    CHECK(contains(json.out, "\"and_depth\":60"));
    // What stats says a run sends is what a run sends (both learn the output).
    CHECK(contains(json.out, "\"bytes_garbler_to_evaluator\":208974"));
    CHECK(contains(json.out, "\"bytes_evaluator_to_garbler\":4166"));
    const result ran = run({"run", aes_file, "--local", "--json", "--input", key_c1, block_c1});
    CHECK(ran.status == 0);
    CHECK(contains(ran.out, "\"party\":\"alice\",\"circuit\":\"" + aes_file +
                                "\",\"outputs\":[\"" + cipher_c1 + "\"],\"and_gates\":6400,\"bytes_sent\":208974,"
                                "\"bytes_received\":4166"));
    // With three-halves: its tables' bytes, a run's exactly (one worker, no regions), 24.6 per AND.
    const result three = run({"stats", aes_file, "--json", "--scheme", "three-halves"});
    CHECK(three.status == 0);
    CHECK(contains(three.out, "\"scheme\":\"three-halves\""));
    const std::string key = "\"bytes_garbler_to_evaluator\":";
    const std::size_t at = three.out.find(key);
    REQUIRE(at != std::string::npos);
    const std::uint64_t bytes = std::stoull(three.out.substr(at + key.size()));
    CHECK(bytes - (208974 - 32 * 6400) <= 6400 * 247 / 10);
    const result ran_three =
        run({"run", aes_file, "--local", "--json", "--scheme", "three-halves", "--input", key_c1, block_c1});
    CHECK(ran_three.status == 0);
    CHECK(contains(ran_three.out, "\"and_gates\":6400,\"bytes_sent\":" + std::to_string(bytes) + ","));
}

TEST_CASE("cli: bad arguments, files and values: one line, exit status 2, nothing run") {
    const auto dir = temp_dir();
    write_file(dir / "broken.txt", "2 5\n2 1 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 2 4 XOR\n");
    struct bad {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<bad> cases = {
        {{}, "no command given"},
        {{"frobnicate", "x"}, "unknown command 'frobnicate'"},
        {{"run", "aes128", "--input", "1", "2"}, "either --party alice|bob"},
        {{"run", "aes128", "--local", "--input", "1"}, "takes 2 input value(s)"},
        {{"run", "aes128", "--party", "bob", "--input", "1", "2"}, "takes 1 input value(s) as bob's"},
        {{"run", "aes128", "--local", "--input", "0x1" + std::string(32, '0'), "1"}, "does not fit in 128 bits"},
        {{"plain", "add8", "--input", "256", "1"}, "does not fit in 8 bits"},
        {{"plain", "add8", "--input", "-129", "1"}, "does not fit in a signed 8-bit value"},
        {{"plain", "add8", "--input", "12ab", "1"}, "hex needs 0x"},
        {{"run", "add8", "--party", "carol"}, "--party takes alice or bob"},
        {{"run", "add8", "--local", "--threads", "0", "--input", "1", "2"}, "--threads takes a whole number"},
        {{"run", "add8", "--local", "--stream", "--input", "1", "2"}, "--stream reads a Bristol file"},
        {{"run", aes_file, "--local", "--stream", "--ipp", "--input", "1", "2"}, "do not go together"},
        {{"run", "add8", "--local", "--port", "9", "--input", "1", "2"}, "drop --host and --port"},
        {{"run", "add8", "--local", "--malicious", "--ipp", "--input", "1", "2"}, "drop --ipp"},
        {{"run", "add8", "--party", "alice", "--malicious", "--input", "1"}, "--malicious encrypts its links"},
        {{"run", "add8", "--local", "--silent-ot", "--input", "1", "2"}, "add --malicious"},
        {{"run", "add8", "--local", "--malicious", "--scheme", "three-halves", "--input", "1", "2"},
         "no authenticated three-halves construction"},
        {{"run", "add8", "--local", "--scheme", "thirds", "--input", "1", "2"},
         "--scheme takes half-gates or three-halves"},
        {{"plain", "add8", "--scheme", "three-halves", "--input", "1", "2"}, "--scheme is an option of run and stats"},
        {{"stats", "aes128", "--input", "1"}, "--input is an option of run and plain"},
        {{"stats", "no-such-thing"}, "neither a readable file nor a built-in"},
        {{"plain", (dir / "broken.txt").string(), "--input", "1", "2"}, "broken.txt:6: wire 2 is used before it is set"},
        {{"plain", aes_file, "--owners", "alice", "--input", "1"}, "1 owners given for 2 input values"},
        {{"convert", "aes128", "--input", "1"}, "--input is an option of run and plain"},
        {{"run", "add8", "--local", "--bogus"}, "unknown option '--bogus'"},
    };
    for (const bad& b : cases) {
        const result r = run(b.args);
        std::string line;
        for (const auto& a : b.args) line += " " + a;
        INFO("tandem-run" << line << "\nstderr: " << r.err);
        CHECK(r.status == 2);
        CHECK(contains(r.err, b.says));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.out.empty());
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("cli: a failed run: exit status 1 with what happened (no peer, different circuits)") {
    {
        const auto t0 = std::chrono::steady_clock::now();
        const result r = run({"run", "aes128", "--party", "bob", "--port", "1", "--timeout", "500", "--input", "1"});
        CHECK(r.status == 1);
        CHECK(contains(r.err, "is the other party running"));
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));  // the deadline held
    }
    {
        const result r = run({"run", "add8", "--party", "alice", "--port", "0", "--timeout", "500", "--input", "1"});
        CHECK(r.status == 1);
        CHECK(contains(r.err, "no peer connected within 500 ms"));
    }
    {
        // Alice holds the Bristol AES, Bob the built-in: the handshake of the run refuses.
        process alice = start({"run", aes_file, "--party", "alice", "--port", "0", "--timeout", "20000", "--input", key_c1});
        std::string err;
        std::uint16_t port = 0;
        while (port == 0) {
            char c;
            if (read(alice.err, &c, 1) != 1) break;
            err += c;
            const std::size_t at = err.find("listening on port ");
            if (c == ',' && at != std::string::npos) port = static_cast<std::uint16_t>(std::stoul(err.substr(at + 18)));
        }
        REQUIRE(port != 0);
        const result bob = run({"run", "aes128", "--party", "bob", "--port", std::to_string(port), "--input", block_c1});
        const result a = finish(alice);
        CHECK(bob.status == 1);
        CHECK(a.status == 1);
        CHECK(contains(bob.err, "the parties hold different circuits"));
        CHECK(contains(a.err, "the parties hold different circuits"));
    }
}

}  // namespace cli_tests

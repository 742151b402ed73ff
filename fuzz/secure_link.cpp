// fuzz_secure_link: the sealed links (net/secure_channel.hpp, net/noise.hpp).
//
// Input: a configuration byte, then
//   bit 1 clear — records: a stream of records this harness seals itself
//   under a fixed key (bit 0: AES-256-GCM or ChaCha20-Poly1305), each
//   [u16 payload length][u8 action][payload], the action 0 to leave it,
//   1 to flip one bit of it (position: the next u16), 2 to cut the stream
//   inside it, 3 to send the previous record again (a replay). The reader
//   receives in chunks of varying size and must return exactly the payloads
//   up to the first record altered, then fail with security_error (or
//   network_error where the stream was cut or ended), never return a byte of
//   an altered record;
//   bit 1 set — a link from its start: this party (bit 2: initiator; bit 3:
//   a pre-shared key instead of pinned keys; fixed test keys, and a fixed
//   ephemeral key on each side so that a recorded honest peer replays) runs
//   secure_link against the rest of the input as the peer's bytes, then
//   reads the peer's messages until the bytes end: each [u16 length][length
//   bytes of message_byte(length, i)] (fuzz.hpp). It either reads them all or
//   throws a tandem::error; a message that opens but differs from what an
//   honest peer sends is a finding (a forged record).
#include "fuzz.hpp"

#include <tandem/net/noise.hpp>
#include <tandem/net/secure_channel.hpp>

using namespace tandem;

namespace {

void records(std::uint8_t config, fuzz::byte_reader& r) {
    const auto cipher = (config & 1) ? net::noise::cipher::aes_gcm : net::noise::cipher::chacha_poly;
    if (cipher == net::noise::cipher::aes_gcm && !net::noise::aes_gcm_available()) return;
    const net::noise::key32 key = fuzz::fixed_key(1);
    net::noise::cipher_state sealer;
    sealer.initialize_key(key.data(), cipher);
    std::vector<std::uint8_t> stream, expected, previous;
    enum class ending { clean, altered, cut } end = ending::clean;
    while (r.left() > 0 && end == ending::clean && expected.size() < (std::size_t{1} << 20)) {
        const std::size_t n = r.u16() % (net::secure_channel::max_payload + 1);
        const std::uint8_t action = r.u8() % 4;
        const std::uint16_t where = action == 1 || action == 2 ? r.u16() : 0;
        const auto payload = r.take(n);
        std::vector<std::uint8_t> record(2 + payload.size() + net::noise::tag_bytes);
        const std::size_t sealed = payload.size() + net::noise::tag_bytes;
        record[0] = static_cast<std::uint8_t>(sealed >> 8);
        record[1] = static_cast<std::uint8_t>(sealed);
        sealer.encrypt(nullptr, 0, payload.data(), payload.size(), record.data() + 2);
        if (action == 3 && !previous.empty()) {  // the previous record again, then this one
            stream.insert(stream.end(), previous.begin(), previous.end());
            end = ending::altered;
        } else if (action == 1) {
            record[2 + where % (record.size() - 2)] ^= static_cast<std::uint8_t>(1u << (where >> 13));
            end = ending::altered;
        } else if (action == 2) {
            record.resize(where % record.size());
            end = ending::cut;
        } else {
            expected.insert(expected.end(), payload.begin(), payload.end());
        }
        stream.insert(stream.end(), record.begin(), record.end());
        previous = std::move(record);
    }
    net::noise::cipher_state opener, unused;
    opener.initialize_key(key.data(), cipher);
    net::secure_channel ch(fuzz::channel_of(stream, "fuzz sealed link"), std::move(unused), std::move(opener),
                           "fuzz sealed link");
    static constexpr std::size_t chunks[] = {1, 7, 100, 4096, 65519, 70000, 200000};
    std::vector<std::uint8_t> got;
    std::size_t k = config >> 4;
    while (got.size() < expected.size()) {
        const std::size_t want = std::min(chunks[k++ % std::size(chunks)], expected.size() - got.size());
        std::vector<std::uint8_t> buf(want);
        try {
            ch.recv(buf.data(), buf.size());
        } catch (const tandem::error& e) {
            fuzz::finding(std::string("an intact record failed to open: ") + e.what());
        }
        if (!std::equal(buf.begin(), buf.end(), expected.begin() + static_cast<std::ptrdiff_t>(got.size())))
            fuzz::finding("a sealed link returned bytes that were not sent");
        got.insert(got.end(), buf.begin(), buf.end());
    }
    std::uint8_t one = 0;
    try {
        ch.recv(&one, 1);
        fuzz::finding("a byte came after the last intact record");
    } catch (const security_error&) {
        if (end != ending::altered) fuzz::finding("security_error without an altered record");
    } catch (const network_error&) {
        if (end == ending::altered) fuzz::finding("an altered record was not reported as a security_error");
    }
}

void link(std::uint8_t config, fuzz::byte_reader& r) {
    const bool initiator = (config & 4) != 0;
    fuzz::allow_tandem_errors([&] {
        auto sealed = net::secure_link(fuzz::channel_of(r.rest(), "fuzz link"), fuzz::link_credentials_of(config, initiator),
                                       initiator, 0, fuzz::link_ephemeral(initiator));
        std::size_t messages = 0;
        for (;;) {
            std::uint8_t head[2];
            try {
                sealed->recv(head, 2);
            } catch (const network_error&) {
                break;  // the peer's bytes ended between messages
            }
            const std::size_t n = head[0] | std::size_t{head[1]} << 8;
            std::vector<std::uint8_t> got(n);
            sealed->recv(got.data(), n);
            for (std::size_t i = 0; i < n; ++i)
                if (got[i] != fuzz::message_byte(n, i)) fuzz::finding("a sealed link returned a message the peer did not send");
            ++messages;
        }
        if (fuzz::honest_seed() && messages == 0) fuzz::finding("an honest seed's link carried no message");
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    const std::uint8_t config = r.u8();
    if (config & 2) link(config, r);
    else records(config, r);
    return 0;
}

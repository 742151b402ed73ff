// One two-party program, built twice: against tandem::tandem (the session
// compiled once into the library) and against tandem::headers (header-only,
// with this build's -march=native). It runs compiled, batched and streamed
// functions under both garbling hashes and under security::malicious
// (authenticated garbling), with fixed seeds, checks every result
// against plain C++, and prints a digest of each party's transcript: the
// CTest `transcript.modes_agree` (cmake/compare_transcripts.cmake) requires the
// two builds to print the same lines, i.e. to put the same bytes on the wire.
#include "../recording_channel.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tandem;

namespace {

constexpr std::size_t K = 4;
using vec = std::array<secure_int<64>, K>;

secure_int<64> dot(const vec& x, const vec& y) {
    secure_int<64> sum = 0;
    for (std::size_t i = 0; i < K; ++i) sum = sum + x[i] * y[i];
    return sum;
}

std::uint64_t fnv1a(const std::vector<std::byte>& bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const std::byte b : bytes) h = (h ^ static_cast<std::uint8_t>(b)) * 0x100000001b3ull;
    return h;
}

struct party_result {
    bool ok = false;
    std::string error;
};

// Everything one party does; the same calls on both sides.
bool runs(session& s, std::string& why) {
    const bool alice = s.me() == party::alice;
    const auto greater = compile([](secure_int<32> a, secure_int<32> b) { return a > b; },
                                 input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    const std::int32_t a = 1'000'003, b = -77;
    if (s.run(greater, alice ? a : b) != (a > b)) return why = "compiled comparison", false;

    const std::array<std::int64_t, K> x{3, -5, 7'000'000'000, 11}, y{-2, 13, 17, 1 << 30};
    std::int64_t expected = 0;
    for (std::size_t i = 0; i < K; ++i)
        expected = static_cast<std::int64_t>(static_cast<std::uint64_t>(expected) +
                                             static_cast<std::uint64_t>(x[i]) * static_cast<std::uint64_t>(y[i]));
    const auto dot_c = compile([](const vec& p, const vec& q) { return dot(p, q); }, input<party::alice, vec>,
                               input<party::bob, vec>);
    if (s.run(dot_c, alice ? x : y) != expected) return why = "compiled dot product", false;

    const std::vector<std::int32_t> mine = alice ? std::vector<std::int32_t>{1, 50, -3} : std::vector<std::int32_t>{2, 40, -3};
    const std::vector<bool> got = s.run_batch(greater, mine);
    if (got != std::vector<bool>{false, true, false}) return why = "batch", false;

    auto fn = stream([](vec p, vec q) { return dot(p, q); }, input<party::alice, vec>, input<party::bob, vec>);
    fn.segment_ands = 4096;  // several segments
    if (s.run(fn, alice ? x : y) != expected) return why = "streamed dot product", false;
    return true;
}

}  // namespace

int main() {
    struct mode {
        garbling_hash hash;
        tandem::security security;
    };
    for (const mode m : {mode{garbling_hash::rekeyed, security::semi_honest}, mode{garbling_hash::fixed_key, security::semi_honest},
                         mode{garbling_hash::rekeyed, security::malicious}}) {
        auto [ca, cb] = net::memory_pair();
        auto sent_a = std::make_shared<std::vector<std::byte>>();
        auto sent_b = std::make_shared<std::vector<std::byte>>();
        party_result ra, rb;
        const bool malicious = m.security == security::malicious;
        const std::string name = malicious ? "malicious" : std::string(to_string(m.hash));
        const auto side = [m](party p, std::unique_ptr<net::channel> ch, party_result& r) {
            try {
                session_options o;
                o.hash = m.hash;
                o.security = m.security;
                o.allow_plain_links = true;  // the transcript is of the protocol's own bytes
                o.insecure_seed = p == party::alice ? 11u : 12u;  // INSECURE: a fixed transcript to compare
                session s(p, std::move(ch), o);
                r.ok = runs(s, r.error);
            } catch (const std::exception& e) {
                r.error = e.what();
            }
        };
        std::thread tb(side, party::bob, std::make_unique<test::recording_channel>(std::move(cb), sent_b), std::ref(rb));
        side(party::alice, std::make_unique<test::recording_channel>(std::move(ca), sent_a), ra);
        tb.join();
        if (!ra.ok || !rb.ok) {
            std::fprintf(stderr, "transcript: %s: alice %s, bob %s\n", name.c_str(),
                         ra.ok ? "ok" : ra.error.c_str(), rb.ok ? "ok" : rb.error.c_str());
            return 1;
        }
        std::printf("%s: alice sent %zu bytes, digest %016llx; bob sent %zu bytes, digest %016llx\n",
                    name.c_str(), sent_a->size(),
                    static_cast<unsigned long long>(fnv1a(*sent_a)), sent_b->size(),
                    static_cast<unsigned long long>(fnv1a(*sent_b)));
    }
    return 0;
}

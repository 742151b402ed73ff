// fuzz_session: one party of a whole session — handshake, base OTs or the
// authenticated bits, worker links, one run of a compiled circuit (1 or 2
// threads, with or without IPP) or of a streamed function (1 or 2 threads,
// pipelined or not, or garbled as it is made), semi-honest or malicious
// (authenticated garbling over SoftSpoken or silent OT: the AND triples, masks
// and Beaver openings, the tables, masked input bits and the AND check all
// come from the peer) — whose peer's bytes on every link
// are the fuzz input (fuzz.hpp: two configuration bytes, then the links).
//
// Checks: the run returns or throws a tandem::error; nothing crashes, leaks or
// hangs (every link ends where its bytes end, and a party that runs out of
// them fails like one whose peer hung up). A result that cannot be forged
// must be the right one:
//   - semi-honest, Alice's result of a run without IPP: a wrong answer would
//     need Bob to return the output label he does not hold, i.e. to know
//     Alice's Δ. Bob's results are not checked: in the semi-honest model
//     Alice may garble any function, so a fuzzed Alice can choose what Bob
//     learns (and with IPP so can a fuzzed Bob for the wires of his world);
//   - malicious, either party's result: a peer that deviates is caught before
//     any output. (A malicious peer may choose its own inputs, but a fuzz
//     input cannot: it replays an honest peer's bytes, and every message that
//     depends on what this party sent was computed for the recorded inputs.)
// On an honest seed (fuzz.hpp, expected()) the run must complete and both
// parties' results are checked, whoever learns them.
#include "fuzz.hpp"

using namespace tandem;

namespace {

void run_session(const fuzz::session_config& cfg, std::vector<std::span<const std::uint8_t>> links) {
    auto opened = std::make_shared<std::size_t>(1);
    auto next_link = [links, opened](const session::link_id&) -> std::unique_ptr<net::channel> {
        if (*opened >= links.size()) throw network_error("fuzz: no more links");
        return fuzz::channel_of(links[(*opened)++], "fuzz link");
    };
    session s(cfg.me, fuzz::channel_of(links[0], "fuzz main link"), cfg.options(cfg.me), next_link);
    const bool alice = cfg.me == party::alice;
    const bool checked = fuzz::honest_seed() || cfg.security == security::malicious || (alice && !cfg.ipp);
    const auto check = [&](bool got_one, bool right, const char* what) {
        if (fuzz::honest_seed() && got_one != cfg.learns(cfg.me))
            fuzz::finding(std::string(what) + ": an honest seed's run gave " + (got_one ? "a" : "no") +
                          " result where reveal says otherwise");
        if (!got_one || !checked) return;
        if (!right) fuzz::finding(std::string(what) + ": " + std::string(to_string(cfg.me)) + " got a wrong result");
        fuzz::say(std::string(what) + ": " + std::string(to_string(cfg.me)) + "'s result checked against plaintext (" +
                  std::string(to_string(cfg.security)) + ")");
    };
    if (cfg.streamed) {
        auto fn = fuzz::streamed_program();
        fn.eager = cfg.eager;
        const auto got = s.run(cfg.who, fn, alice ? fuzz::alice_sequence : fuzz::bob_sequence);
        auto plain = fuzz::streamed_program();
        check(got.has_value(), got && *got == plain.eval_plain(fuzz::alice_sequence, fuzz::bob_sequence), "streamed run");
    } else {
        const fuzz::program& p = cfg.compiled();
        const auto got = s.run_bits(cfg.who, p.c, p.inputs_of(cfg.me));
        check(got.has_value(), got && *got == p.expected, "compiled run");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    const fuzz::session_config cfg = fuzz::session_config::decode(r);
    cfg.use_kernels();
    const auto links = fuzz::split_links(r, 1 + cfg.extra_links());
    fuzz::allow_tandem_errors([&] { run_session(cfg, links); });
    return 0;
}

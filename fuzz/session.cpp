// fuzz_session: one party of a whole session — handshake, base OTs, worker
// links, one run of a compiled circuit (1 or 2 threads, with or without IPP)
// or of a streamed function (1 or 2 threads, pipelined or not) — whose
// peer's bytes on every link are the fuzz input (fuzz.hpp: a configuration
// byte, then the links).
//
// Checks: the run returns or throws a tandem::error; nothing crashes, leaks or
// hangs (every link ends where its bytes end, and a party that runs out of
// them fails like one whose peer hung up). When Alice learns the result of a
// run without IPP it must be the right one: a wrong answer would need Bob to
// return the output label he does not hold, i.e. to know Alice's Δ. Bob's
// results are not checked: in the semi-honest model Alice may garble any
// function, so a fuzzed Alice can choose what Bob learns (and with IPP so can
// a fuzzed Bob for the wires of his world).
#include "fuzz.hpp"

using namespace tandem;

namespace {

void run_session(const fuzz::session_config& cfg, std::vector<std::span<const std::uint8_t>> links) {
    auto opened = std::make_shared<std::size_t>(1);
    auto next_link = [links, opened]() -> std::unique_ptr<net::channel> {
        if (*opened >= links.size()) throw network_error("fuzz: no more links");
        return fuzz::channel_of(links[(*opened)++], "fuzz link");
    };
    session s(cfg.me, fuzz::channel_of(links[0], "fuzz main link"), cfg.options(cfg.me), next_link);
    const bool alice = cfg.me == party::alice;
    if (cfg.streamed) {
        auto fn = fuzz::streamed_program();
        const auto got = s.run(cfg.who, fn, alice ? fuzz::alice_sequence : fuzz::bob_sequence);
        if (got && alice) {
            auto plain = fuzz::streamed_program();
            if (*got != plain.eval_plain(fuzz::alice_sequence, fuzz::bob_sequence))
                fuzz::finding("streamed run: alice got a wrong result");
        }
    } else {
        const fuzz::program& p = fuzz::compiled_program(cfg.threads);
        const auto got = s.run_bits(cfg.who, p.c, p.inputs_of(cfg.me));
        if (got && alice && !cfg.ipp && *got != p.expected) fuzz::finding("compiled run: alice got a wrong result");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    const fuzz::session_config cfg = fuzz::session_config::decode(r.u8());
    cfg.use_kernels();
    const auto links = fuzz::split_links(r, 1 + cfg.extra_links());
    fuzz::allow_tandem_errors([&] { run_session(cfg, links); });
    return 0;
}

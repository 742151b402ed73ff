// fuzz_handshake: the set-up of a session (session.hpp, the constructor):
// the handshake, the base OTs and IKNP set-up (one set, or two with IPP) or,
// in malicious mode, the authenticated bits (a malicious SoftSpoken extension
// each way, auth/bits.hpp, or a malicious silent-OT extension each way with
// session_options::malicious_ot), and the worker links, with the peer's bytes on
// every link from the fuzz input (the layout of fuzz.hpp: two configuration
// bytes — this party, threads, IPP, hash, security — then the links). No run
// follows; fuzz_session goes on to one.
//
// Checks: the session is set up or its constructor throws a tandem::error;
// nothing crashes, leaks, hangs or allocates what the peer's numbers ask for.
#include "fuzz.hpp"

using namespace tandem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    const fuzz::session_config cfg = fuzz::session_config::decode(r);
    cfg.use_kernels();
    const auto links = fuzz::split_links(r, 1 + cfg.extra_links());
    fuzz::allow_tandem_errors([&] {
        std::size_t next = 1;
        const session s(cfg.me, fuzz::channel_of(links[0], "fuzz main link"), cfg.options(cfg.me),
                        [&](const session::link_id&) -> std::unique_ptr<net::channel> {
                            if (next >= links.size()) throw network_error("fuzz: no more links");
                            return fuzz::channel_of(links[next++], "fuzz link");
                        });
    });
    return 0;
}

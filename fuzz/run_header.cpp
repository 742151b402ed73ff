// fuzz_run_header: the headers a party reads before a run and before each
// streamed segment, from a fuzzed peer (session/run_header.hpp,
// session/stream.hpp). The first byte chooses the parser and this party's
// side: bits 0-1: 0 (or 3) the compiled run header, checked by
// check_peer_header against this party's own for the fixed circuit of
// fuzz.hpp; 1 the streamed run header, received and checked against this
// party's for the fixed streamed function; 2 a segment header, received and
// described. Bit 2: this party is Bob (else Alice); bits 4-5: who learns
// the output (0 both, 1 alice, 2 bob, 3 both). The rest is the peer's bytes.
//
// Checks: each parser accepts the header or throws a tandem::error (a
// protocol_error naming what differs, a network_error when the bytes run
// out) — never a crash, a read past the bytes or another exception.
#include "fuzz.hpp"

using namespace tandem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const circuit<>& compiled = fuzz::compiled_program(1).c;
    fuzz::byte_reader r(data, size);
    const std::uint8_t config = r.u8();
    const party me = (config & 4) != 0 ? party::bob : party::alice;
    const unsigned w = (config >> 4) & 3;
    const reveal who = w == 1 ? reveal::alice : w == 2 ? reveal::bob : reveal::both;
    fuzz::fuzz_channel ch("fuzz peer", r.rest());
    fuzz::allow_tandem_errors([&] {
        switch (config & 3) {
            case 1: {
                auto fn = fuzz::streamed_program();
                detail::stream_run_header mine;
                mine.segment_ands = fn.segment_ands;
                mine.who = static_cast<std::uint8_t>(who);
                mine.inputs = fn.signature();
                mine.check(detail::stream_run_header::receive(ch));
                break;
            }
            case 2:
                (void)detail::segment_header::receive(ch).describe();
                break;
            default:
                detail::check_peer_header(ch, detail::run_header(who, compiled, 0, me));
        }
    });
    return 0;
}

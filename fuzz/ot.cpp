// fuzz_ot: one party of correlated OT extension — IKNP (ot/iknp.hpp, what
// semi-honest sessions run), SoftSpoken with K = 4 (ot/softspoken.hpp)
// without or with its malicious consistency check (what malicious sessions'
// authenticated bits run), each with its 128 base OTs (ot/base_ot.hpp:
// Chou–Orlandi, or endemic OT in malicious mode), or silent OT (ot/ferret.hpp,
// rounds of fuzz.hpp's ferret_small: its SoftSpoken bootstrap, set-up round,
// GGM trees' level messages and, in malicious mode, each batch's check), each
// with up to three extend calls — or the endemic base OTs alone, whose peer is
// the fuzz input.
// Input: a configuration byte (bit 0: this party is the COT receiver, else
// the sender; bit 1: the receiver extends with packed choice bits; bits 2-3:
// the number of extend calls; bits 4-6: 0 IKNP, 1 SoftSpoken, 2 SoftSpoken
// with the check, 3 endemic base OTs alone, 4 silent OT, 5 silent OT with the
// check, 6 and 7 silent OT with the check and random choices carried in bit 0
// or bit 1 of the COTs, as authenticated bits use it), three sizes (u16 each,
// up to 16383 OTs; with base OTs alone, the first % 257 is their number), then
// the peer's bytes (fuzz.hpp, run_ot_party).
//
// Checks: each side finishes or throws a tandem::error — an invalid point, a
// peer asking for another number of OTs or another configuration, columns or
// trees that fail their check (a security_error), bytes that run out — and
// never crashes, reads past what it was sent or allocates what the peer asks
// for.
#include "fuzz.hpp"

using namespace tandem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    const fuzz::ot_config cfg = fuzz::ot_config::read(r);
    fuzz::fuzz_channel ch("fuzz ot peer", r.rest());
    fuzz::allow_tandem_errors([&] { fuzz::run_ot_party(cfg, cfg.receiver, ch); });
    return 0;
}

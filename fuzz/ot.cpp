// fuzz_ot: one party of correlated OT extension (ot/iknp.hpp) — its 128
// base OTs (ot/base_ot.hpp) and up to three extend calls — whose peer is the
// fuzz input. Input: a configuration byte (bit 0: this party is the
// cot_receiver, else the cot_sender; bit 1: the receiver extends with packed
// choice bits; bits 2-3: the number of extend calls), three sizes (u16 each,
// up to 16383 OTs: two chunks of 8192), then the peer's bytes.
//
// Checks: each side finishes or throws a tandem::error — an invalid point, a
// peer asking for another number of OTs, bytes that run out — and never
// crashes, reads past what it was sent or allocates what the peer asks for.
#include "fuzz.hpp"

using namespace tandem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    const fuzz::ot_config cfg = fuzz::ot_config::read(r);
    fuzz::fuzz_channel ch("fuzz ot peer", r.rest());
    fuzz::allow_tandem_errors([&] {
        prg rng(fuzz::ot_seed(cfg.receiver));
        if (!cfg.receiver) {
            ot::cot_sender sender(ch, fuzz::ot_delta(), &rng);
            for (std::size_t k = 0; k < cfg.extends; ++k) {
                std::vector<block> q(cfg.sizes[k]);
                sender.extend(ch, q);
            }
        } else {
            ot::cot_receiver receiver(ch, &rng);
            for (std::size_t k = 0; k < cfg.extends; ++k) {
                const std::vector<std::uint8_t> choices = fuzz::ot_choices(cfg.sizes[k]);
                std::vector<block> t(cfg.sizes[k]);
                if (cfg.packed) {
                    std::vector<std::uint8_t> bits((t.size() + 7) / 8);
                    for (std::size_t i = 0; i < choices.size(); ++i) bits[i / 8] |= static_cast<std::uint8_t>(choices[i] << (i % 8));
                    receiver.extend_packed(ch, bits, t);
                } else {
                    receiver.extend(ch, choices, t);
                }
            }
        }
    });
    return 0;
}

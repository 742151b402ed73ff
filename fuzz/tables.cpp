// fuzz_tables: the evaluator (gc::evaluate, gc/half_gates.hpp; or
// gc::three_halves::evaluate, gc/three_halves.hpp) of a fixed small circuit —
// a 16-bit product and comparison (fuzz.hpp, tables_circuit) — reading
// arbitrary garbled tables with arbitrary input labels.
// Input: a configuration byte (bit 0: the fixed-key hash, else the default
// rekeyed one; bit 1: tables streamed through a gc::channel_source over a
// channel, as in a session, else a gc::table_reader over memory; bit 2:
// tweaks start near 2^64, so they wrap; bit 3: the AES-NI kernels, else
// VAES where the CPU has it; bit 4: three-halves tables, else half-gates),
// the hash start (16 bytes), one label per input bit (16 bytes each), then
// the tables (whole blocks for half-gates, bytes for three-halves).
//
// Checks: evaluation returns the output labels or throws a tandem::error
// (tables that end early) — never reads past the tables (they lie in a
// buffer of exactly their size, under ASan) and never crashes.
#include "fuzz.hpp"

using namespace tandem;

namespace {

template <class Hash>
void evaluate(const circuit<>& c, bool streamed, bool three_halves, std::uint64_t first_and, block hash_start,
              const std::vector<block>& labels, std::span<const std::uint8_t> tables) {
    if (streamed) {
        fuzz::fuzz_channel ch("fuzz tables", tables);
        gc::channel_source source(ch);
        const garbling_scheme scheme = three_halves ? garbling_scheme::three_halves : garbling_scheme::half_gates;
        source.allow(gc::tables_of(scheme, c.stats().and_gates));
        if (three_halves) (void)gc::three_halves::evaluate<Hash>(c, hash_start, source, labels, first_and);
        else (void)gc::evaluate<Hash>(c, hash_start, source, labels, first_and);
    } else if (three_halves) {
        const std::vector<std::uint8_t> bytes(tables.begin(), tables.end());  // exactly as many as there are
        gc::byte_reader source(bytes);
        (void)gc::three_halves::evaluate<Hash>(c, hash_start, source, labels, first_and);
    } else {
        std::vector<block> blocks(tables.size() / sizeof(block));  // exactly as many as there are
        if (!blocks.empty()) std::memcpy(static_cast<void*>(blocks.data()), tables.data(), blocks.size() * sizeof(block));
        gc::table_reader source(blocks);
        (void)gc::evaluate<Hash>(c, hash_start, source, labels, first_and);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const circuit<>& c = fuzz::tables_circuit();
    fuzz::byte_reader r(data, size);
    const std::uint8_t config = r.u8();
    const auto block_of = [&] {
        std::uint8_t b[16] = {};
        const auto s = r.take(16);
        std::copy(s.begin(), s.end(), b);
        return block::load(b);
    };
    const block hash_start = block_of();
    std::vector<block> labels(c.data().input_bits);
    for (block& l : labels) l = block_of();
    const bool streamed = (config & 2) != 0, three_halves = (config & 16) != 0;
    const std::uint64_t first_and = (config & 4) != 0 ? ~std::uint64_t{0} - 40 : 0;
    const auto tables = r.rest();
    use_aes_isa((config & 8) == 0 ? tandem::detail::widest_aes_isa() : tandem::narrowest_aes_isa);
    fuzz::allow_tandem_errors([&] {
        if ((config & 1) != 0)
            evaluate<fixed_key_hash>(c, streamed, three_halves, first_and, hash_start, labels, tables);
        else evaluate<rekeyed_hash>(c, streamed, three_halves, first_and, hash_start, labels, tables);
    });
    return 0;
}

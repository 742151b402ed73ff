// fuzz_circuit_data: hand-made circuit_data (circuit/circuit_data.hpp),
// decoded field by field from the fuzz input (circuit_codec.hpp), wrapped in
// a circuit<>, then — if that accepts it — its stats and fingerprint,
// plaintext evaluation, the flattened circuit's plaintext evaluation, and a
// garbling evaluated from its own tables, on input bits taken from the bytes
// after the circuit.
//
// Checks: circuit<>(circuit_data) accepts the data or throws a tandem::error;
// what it accepts runs without crashing, the flattened circuit computes the
// same outputs, and the garbled run decodes to the plaintext outputs,
// reading exactly the tables garbling wrote.
//
// Not yet in CI (fuzz/harnesses.txt): until circuit<> validates its data
// (branch validate), a slot out of range crashes at once.
#include "circuit_codec.hpp"

using namespace tandem;

namespace {

std::vector<bool> flat(const std::vector<std::vector<bool>>& values) {
    std::vector<bool> bits;
    for (const auto& v : values) bits.insert(bits.end(), v.begin(), v.end());
    return bits;
}

void check(circuit_data d, fuzz::byte_reader& r) {
    const circuit<> c(std::move(d));
    (void)c.stats();
    (void)c.fingerprint();
    std::vector<std::vector<bool>> in;
    std::uint8_t byte = 0;
    std::size_t used = 0;
    for (const value_layout& v : c.data().inputs) {
        std::vector<bool> bits(v.bits);
        for (std::size_t k = 0; k < bits.size(); ++k, ++used) {
            if (used % 8 == 0) byte = r.u8();
            bits[k] = (byte >> (used % 8) & 1) != 0;
        }
        in.push_back(std::move(bits));
    }
    const auto plain = eval_plain_bits(c, in);
    if (eval_plain_bits(flatten(c), in) != plain) fuzz::finding("flatten changed the circuit's outputs");

    prg rng(block(0xc1c, 0xda7a));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble(c, rng, tables);
    std::vector<block> labels(c.data().input_bits);
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k) {
            const std::uint32_t bit = c.data().inputs[v].first_bit + static_cast<std::uint32_t>(k);
            labels[bit] = g.input.label(bit, in[v][k]);
        }
    gc::table_reader reader(tables.tables());
    const std::vector<block> out = gc::evaluate(c, g.hash_start, reader, labels);
    if (reader.remaining() != 0) fuzz::finding("the evaluator left garbled tables unread");
    if (gc::decode(out, g.output) != flat(plain)) fuzz::finding("the garbled run decodes to other outputs than plaintext");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::byte_reader r(data, size);
    circuit_data d = fuzz::decode_circuit(r);
    fuzz::allow_tandem_errors([&] { check(std::move(d), r); });
    return 0;
}

// One garbled run, compiled into two translation units of one program: one
// with -march=native, one without (tests/CMakeLists.txt). Before the kernels
// had per-ISA names, the two copies of tandem's inline functions differed
// (VAES in one, AES-NI in the other) and the linker kept one of them.
#pragma once

#include <tandem/tandem.hpp>

#include <cstdint>
#include <vector>

namespace isa_mixed {

/// What a run gives: the tables, and the decoded outputs of the garbled run.
struct result {
    std::vector<tandem::block> tables;
    std::vector<bool> garbled;
    std::vector<bool> plain;
};

result run_native(std::uint64_t a, std::uint64_t b, std::uint64_t seed);    // in native.cpp
result run_portable(std::uint64_t a, std::uint64_t b, std::uint64_t seed);  // in portable.cpp

/// The body both files compile: a*b + (a^b) on 64 bits, garbled with a fixed
/// seed and evaluated, and the same in plaintext mode.
template <class Function>
result run(Function f, std::uint64_t a, std::uint64_t b, std::uint64_t seed) {
    using U = tandem::secure_uint<64>;
    const tandem::circuit<> c = tandem::compile(f, tandem::input<tandem::party::alice, U>,
                                                tandem::input<tandem::party::bob, U>);
    std::vector<bool> in;
    for (int k = 0; k < 64; ++k) in.push_back(((a >> k) & 1) != 0);
    for (int k = 0; k < 64; ++k) in.push_back(((b >> k) & 1) != 0);
    tandem::prg rng(tandem::block(seed, 17));
    tandem::gc::table_buffer tables;
    const tandem::gc::garbling g = tandem::gc::garble(c, rng, tables);
    std::vector<tandem::block> active;
    for (std::size_t k = 0; k < in.size(); ++k) active.push_back(g.input.label(k, in[k]));
    tandem::gc::table_reader reader(tables.tables());
    result r;
    r.garbled = tandem::gc::decode(tandem::gc::evaluate(c, g.hash_start, reader, active), g.output);
    r.plain = tandem::eval_plain_bits(c, {std::vector<bool>(in.begin(), in.begin() + 64),
                                          std::vector<bool>(in.begin() + 64, in.end())})
                  .front();
    r.tables = tables.tables();
    return r;
}

}  // namespace isa_mixed

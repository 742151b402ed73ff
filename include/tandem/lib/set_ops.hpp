// tandem/lib/set_ops.hpp — two-party set operations built on sorting.
//
//   auto n = tandem::lib::psi_cardinality(alice_set, bob_set);   // |A ∩ B|, nothing else
//
// psi_cardinality follows the sort-compare idea of Huang, Evans and Katz
// ("Private set intersection: are garbled circuits better than custom
// protocols?", NDSS 2012): sort the union obliviously (lib/sort.hpp), then
// an element of both sets is two equal neighbours. Each party's values must
// be distinct (a value repeated within one set is counted once per equal
// neighbour pair it makes). Only the count leaves the circuit: which values
// matched, and where, stays hidden.
//
// Cost for N + M values of W bits: the sort, (N + M − 1)·W ANDs for the
// equality tests (one region), and the sum of the N + M − 1 match bits
// (a reduce tree of C-bit additions, C = bit_width(min(N, M))).
#pragma once

#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/parallel.hpp>
#include <tandem/lib/sort.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <vector>

namespace tandem::lib {

/// The number of values that are in both a and b (each set's values distinct).
template <std::size_t W, std::size_t N, std::size_t M>
secure_uint<std::bit_width(std::min(N, M))> psi_cardinality(const std::array<secure_uint<W>, N>& a,
                                                            const std::array<secure_uint<W>, M>& b) {
    static_assert(N >= 1 && M >= 1, "tandem::lib::psi_cardinality: both sets need at least one value");
    constexpr std::size_t count_bits = std::bit_width(std::min(N, M));
    using count = secure_uint<count_bits>;
    std::vector<secure_uint<W>> all;
    all.reserve(N + M);
    all.insert(all.end(), a.begin(), a.end());
    all.insert(all.end(), b.begin(), b.end());
    tandem::sort(all);
    const auto matches = tandem::parallel_for(all.size() - 1, [&](std::size_t i) {
        return tandem::to_uint(all[i] == all[i + 1]).template resize<count_bits>();
    });
    return tandem::reduce(matches, [](const count& x, const count& y) { return x + y; });
}

}  // namespace tandem::lib

// tandem/dsl/popcount.hpp — Hamming weight.
//
// Column compression with one-AND full and half adders, oldest bits first
// (Wallace order, so depth stays logarithmic): every full adder removes one bit
// for one AND, and the count of ℓ bits needs ℓ - h(ℓ) ANDs in all, h(ℓ) the
// Hamming weight of ℓ — the optimum of Boyar–Peralta, as used by paper 003
// §4.2.1 (900 bits: 896 ANDs).
#pragma once

#include <tandem/dsl/arith.hpp>

#include <bit>
#include <cstddef>
#include <deque>
#include <vector>

namespace tandem::detail {

/// out[0..bit_width(a.size())) = number of set bits of a.
inline void popcount(builder& bld, bits_in a, bits_out out) {
    std::vector<std::deque<wire_ref>> column(out.size() + 1);
    column[0].assign(a.begin(), a.end());
    for (std::size_t w = 0; w < out.size(); ++w) {
        auto& col = column[w];
        while (col.size() >= 2) {
            const wire_ref x = col.front();
            col.pop_front();
            const wire_ref y = col.front();
            col.pop_front();
            if (!col.empty()) {  // full adder
                const wire_ref c = col.front();
                col.pop_front();
                const wire_ref t = bld.xor_(x, c);
                col.push_back(bld.xor_(t, y));
                column[w + 1].push_back(bld.xor_(c, bld.and_(t, bld.xor_(y, c))));
            } else {  // half adder
                col.push_back(bld.xor_(x, y));
                column[w + 1].push_back(bld.and_(x, y));
            }
        }
        out[w] = col.empty() ? false_ref : col.front();
    }
}

}  // namespace tandem::detail

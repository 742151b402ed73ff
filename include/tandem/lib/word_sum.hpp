// tandem/lib/word_sum.hpp — the sum of many N-bit words modulo 2^N, by column compression.
//
// Adding k words with k-1 ripple-carry adders costs (k-1)(N-1) ANDs. Compressing
// all k words column by column instead (Wallace, "A suggestion for a fast
// multiplier", IEEE Trans. Electron. Comput. 1964; Dadda, "Some schemes for
// parallel multipliers", 1965) with full adders of one AND each (carry =
// c ^ ((a ^ c) & (b ^ c)), Kolesnikov–Sadeghi–Schneider, CANS 2009) costs one
// AND per bit removed from columns 0..N-2, and the top column is a plain XOR
// (its carries would leave the word). For k secret words in steady state that
// is (k-1)(N-1) - (k-1) + h ANDs, where h counts the half adders that the
// parity of the low columns forces (e.g. N = 32: 2 words 31, 3 words 61,
// 4 words 92, 5 words 121 — asserted in tests/lib_sha.cpp).
//
// Public bits (constants, or words partly known while recording) cost nothing:
// they are counted per column, pairs of ones move up a column for free, and a
// lone public one meets a secret bit x in a half adder whose sum is ~x and
// whose carry is x — no AND. Bit 0 is the least significant, as everywhere in
// the DSL. Only DSL operators are used, so this works in compiled and in
// streamed functions alike.
#pragma once

#include <tandem/dsl/integer.hpp>

#include <cstddef>
#include <deque>
#include <initializer_list>
#include <span>
#include <vector>

namespace tandem::detail {

/// rows[0] + rows[1] + ... (mod 2^N).
template <std::size_t N, bool S>
secure_integer<N, S> sum_words(std::span<const secure_integer<N, S>> rows) {
    secure_integer<N, S> out;  // public zero; every bit is set below
    std::vector<secure_bit> carries_in, carries_out;
    std::size_t public_ones_in = 0;  // public ones carried into this column
    for (std::size_t i = 0; i < N; ++i) {
        std::deque<secure_bit> column;  // secret bits of weight 2^i, oldest first (keeps the depth low)
        std::size_t ones = public_ones_in;
        for (const secure_integer<N, S>& row : rows) {
            const secure_bit b = row[i];
            if (b.is_public())
                ones += b.ref().constant_value() ? 1 : 0;
            else
                column.push_back(b);
        }
        for (const secure_bit& c : carries_in) column.push_back(c);
        public_ones_in = ones / 2;  // two ones here are a one in the next column
        bool one = ones % 2 != 0;

        if (i + 1 == N) {  // top column: carries out of the word are dropped, so the sum is an XOR
            secure_bit s = one;
            for (const secure_bit& b : column) s = s ^ b;
            out.set_bit(i, s);
            break;
        }
        carries_out.clear();
        auto pop = [&column] {
            secure_bit b = column.front();
            column.pop_front();
            return b;
        };
        while (column.size() >= 3) {  // full adder: three bits in, sum back in the column, carry up
            const secure_bit a = pop(), b = pop(), c = pop();
            column.push_back(a ^ b ^ c);
            carries_out.push_back(c ^ ((a ^ c) & (b ^ c)));
        }
        secure_bit sum = one;
        if (column.size() == 2) {
            const secure_bit a = pop(), b = pop();
            if (one) {  // full adder with a public one: sum ~(a ^ b), carry a | b
                sum = ~(a ^ b);
                carries_out.push_back(a | b);
            } else {  // half adder
                sum = a ^ b;
                carries_out.push_back(a & b);
            }
        } else if (column.size() == 1) {
            const secure_bit x = pop();
            sum = one ? ~x : x;
            if (one) carries_out.push_back(x);  // x + 1 = ~x + 2x: the carry is x, free
        }
        out.set_bit(i, sum);
        std::swap(carries_in, carries_out);
    }
    return out;
}

template <std::size_t N, bool S>
secure_integer<N, S> sum_words(std::initializer_list<secure_integer<N, S>> rows) {
    return sum_words(std::span<const secure_integer<N, S>>(rows.begin(), rows.size()));
}

}  // namespace tandem::detail

// examples/stream_apps.hpp — two applications over long input sequences: the
// minimum of many values with its index (ME-SFE §4.2.4: 10^6 numbers of 20
// bits) and the edit distance of two strings over a 2- or 4-letter alphabet.
//
// Both secure functions take any indexable container `Seq` — seq.size() and
// seq[i] returning a secure value by value or by const reference — so they run
// on a std::array or std::vector of secure values, a std::span of one, and
// (later) on a streamed input sequence. They read seq[i] in increasing i, each
// element once.
//
// For each application:
//   <app>(inputs...)               the secure function
//   <app>_circuit<sizes>()         tandem::compile of it on std::array inputs
//   <app>_plain(inputs...)         a plain C++ reference
// The AND counts are derived next to each function and asserted in
// tests/stream_apps.cpp.
#pragma once

#include <tandem/tandem.hpp>

#include <boost/hana/define_struct.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace apps {

using tandem::party;
using tandem::secure_bit;
using tandem::secure_uint;

// ---- Minimum with index -----------------------------------------------------
// ME-SFE §4.2.4: the minimum of n W-bit values (Alice's), and the first index
// holding it. A binary-counter tree: a stack of (candidate, height) with
// strictly decreasing heights from the bottom; each value is pushed as a
// candidate of height 0 whose index is the public constant i, and equal
// heights on top merge (the lower indices on the left; on a tie the left
// wins). At the end the stack merges from the top down. O(log n) candidates
// are live at any time.
//
// AND gates: a merge compares (W) and selects the value (W). The index select
// folds where both indices are public: merging a left subtree of height h
// (indices base + [0, 2^h), base a multiple of 2^(h+1)) with anything to its
// right, bits below h are secret (h ANDs), bit h is 0 on the left and 1 on the
// right (the select is the comparison bit itself, free) and the bits above are
// equal constants (free). Summed over the tree:
//   (n - 1)·2W + n - popcount(n) - ctz(n)   ANDs
// (n = 1000, W = 20: 40,951; n = 10^6, W = 20: 40,999,947.)

template <std::size_t W>
struct minimum_result {
    BOOST_HANA_DEFINE_STRUCT(minimum_result, (secure_uint<W>, value), (secure_uint<32>, index));
};

/// The exact AND count of minimum_with_index<W> on n values (n >= 1).
constexpr std::uint64_t minimum_with_index_ands(std::uint64_t n, std::size_t w) {
    if (n == 0) return 0;
    std::uint64_t ones = 0, low = 0;
    for (std::uint64_t x = n; x != 0; x >>= 1) ones += x & 1u;
    while (((n >> low) & 1u) == 0) ++low;
    return (n - 1) * 2 * w + n - ones - low;
}

/// Left and right candidates cover adjacent index ranges, left below right.
template <std::size_t W>
minimum_result<W> merge_minimum(const minimum_result<W>& left, const minimum_result<W>& right) {
    const secure_bit right_smaller = right.value < left.value;  // strict: a tie keeps the first index
    return {tandem::select(right_smaller, right.value, left.value),
            tandem::select(right_smaller, right.index, left.index)};
}

template <std::size_t W, class Seq>
minimum_result<W> minimum_with_index(const Seq& values) {
    const std::size_t n = values.size();
    if (n == 0) throw tandem::usage_error("apps::minimum_with_index: the sequence is empty");
    if (n - 1 > std::numeric_limits<std::uint32_t>::max())
        throw tandem::usage_error("apps::minimum_with_index: more than 2^32 values (the index has 32 bits)");

    struct candidate {
        minimum_result<W> best;
        unsigned height;
    };
    std::vector<candidate> stack;
    for (std::size_t i = 0; i < n; ++i) {
        candidate c{{values[i], secure_uint<32>(static_cast<std::uint32_t>(i))}, 0};
        while (!stack.empty() && stack.back().height == c.height) {
            c = {merge_minimum(stack.back().best, c.best), c.height + 1};
            stack.pop_back();
        }
        stack.push_back(std::move(c));
    }
    minimum_result<W> best = stack.back().best;
    for (std::size_t k = stack.size() - 1; k-- > 0;) best = merge_minimum(stack[k].best, best);
    return best;
}

/// Two sequences read as one: a's values, then b's (e.g. each party's half).
template <class SeqA, class SeqB>
struct joined {
    const SeqA& a;
    const SeqB& b;
    std::size_t size() const { return a.size() + b.size(); }
    auto operator[](std::size_t i) const { return i < a.size() ? a[i] : b[i - a.size()]; }
};

/// ME-SFE §4.2.4 as two parties run it: Alice's values, then Bob's; the
/// index counts over both (Bob's first value has index a.size()).
template <std::size_t W, class SeqA, class SeqB>
minimum_result<W> minimum_of_both(const SeqA& a, const SeqB& b) {
    return minimum_with_index<W>(joined<SeqA, SeqB>{a, b});
}

/// The streamed minimum of n values from Alice and m from Bob.
template <std::size_t W = 20>
auto minimum_stream(std::uint64_t n, std::uint64_t m) {
    using value = secure_uint<W>;
    auto fn = tandem::stream(
        [](const tandem::sequence<value>& a, const tandem::sequence<value>& b) { return minimum_of_both<W>(a, b); },
        tandem::sequence_input<party::alice, value>(n), tandem::sequence_input<party::bob, value>(m));
    fn.expected_ands = minimum_with_index_ands(n + m, W);
    return fn;
}

template <std::size_t N, std::size_t W = 20>
auto minimum_circuit() {
    return tandem::compile(
        [](const std::array<secure_uint<W>, N>& values) { return minimum_with_index<W>(values); },
        tandem::input<party::alice, std::array<secure_uint<W>, N>>);
}

/// (minimum, first index holding it).
inline std::pair<std::uint32_t, std::uint32_t> minimum_plain(std::span<const std::uint32_t> values) {
    if (values.empty()) throw tandem::usage_error("apps::minimum_plain: the sequence is empty");
    std::pair<std::uint32_t, std::uint32_t> best{values[0], 0};
    for (std::size_t i = 1; i < values.size(); ++i)
        if (values[i] < best.first) best = {values[i], static_cast<std::uint32_t>(i)};
    return best;
}

// ---- Edit distance --------------------------------------------------------------
// The Levenshtein distance D[n][m] of Alice's string a (length n) and Bob's b
// (length m), symbols secure_uint<1> (2 letters) or secure_uint<2> (4 letters);
// any width works. The textbook recurrence, D[i][0] = i, D[0][j] = j,
//   D[i][j] = min(D[i-1][j-1] + (a_i != b_j), D[i-1][j] + 1, D[i][j-1] + 1),
// never stores a number: neighbouring cells differ by at most one, so each
// grid edge carries a delta in {-1, 0, +1} as two bits (neg, pos):
//   dv(i,j) = D[i][j] - D[i-1][j]   (flows right along row i)
//   dh(i,j) = D[i][j] - D[i][j-1]   (flows down column j)
// Cell (i,j) reads dh_in = dh(i-1,j) from above and dv_in = dv(i,j-1) from the
// left. With t = (a_i != b_j) and base = D[i-1][j-1], the three candidates
// are base + t, base + dh_in + 1 and base + dv_in + 1, so
//   m = D[i][j] - base = t & !neg(dh_in) & !neg(dv_in)           (2 ANDs)
//   dv_out = m - dh_in,   dh_out = m - dv_in.
// As bits, with m·pos(dh_in) shared by both bits of dv_out (and likewise for
// dh_out; m = 1 excludes neg(dh_in), so the cases are disjoint):
//   neg(dv_out) = !m & pos(dh_in)          = pos(dh_in) ^ m·pos(dh_in)
//   pos(dv_out) = m & !pos(dh_in) | neg(dh_in) = m ^ m·pos(dh_in) ^ neg(dh_in)
// — 4 ANDs a cell for 2 letters (t is a free XOR), 5 for 4 letters (t is the
// OR of two XORs); !m & pos and m & !pos as separate ANDs would cost 6 and 7. The deltas entering from row 0 and column 0 are the public
// constant +1, and the builder folds what follows from them, so the first
// two rows and columns cost less: see edit_distance_grid_ands below.
//
// The cells are recorded by anti-diagonals (i + j = d for d increasing): the
// cells of one anti-diagonal depend only on the previous one, so each circuit
// level holds up to min(n, m) independent cells. Live are the n + m deltas
// of the frontier (one per row, one per column) and the symbols.
//
// The answer sums the deltas along the shorter last edge: the right column
// (D[n][m] = m + Σ_i dv(i,m)) if n <= m, else the bottom row (n + Σ_j dh(n,j)).
// With k deltas δ summed, Σ δ = Σ (pos + !neg) - k, and max(n,m) - k >= 0, so
// the distance is one count of the 2k bits {pos, !neg} plus a public constant:
// column compression with one-AND full adders, about 2k ANDs (2k - 1 - h(2k-1)
// when n = m: the first delta of the edge has pos = 0, a constant).

/// A grid delta in {-1, 0, +1}: neg for -1, pos for +1, neither for 0.
struct edit_delta {
    secure_bit neg, pos;
};

/// The deltas of the last column (n <= m) or row (n > m) and the distance at their start.
struct edit_edge {
    std::vector<edit_delta> deltas;
    std::uint64_t start = 0;  ///< D[0][m] = m or D[n][0] = n
};

/// One DP cell: `down` holds dh(i-1,j) and becomes dh(i,j); `right` holds dv(i,j-1) and becomes dv(i,j).
inline void edit_cell(const secure_bit& differ, edit_delta& down, edit_delta& right) {
    const secure_bit m = differ & !down.neg & !right.neg;  // D[i][j] - D[i-1][j-1]
    const secure_bit m_down = m & down.pos, m_right = m & right.pos;
    const edit_delta dv{down.pos ^ m_down, m ^ m_down ^ down.neg};      // m - dh_in
    const edit_delta dh{right.pos ^ m_right, m ^ m_right ^ right.neg};  // m - dv_in
    down = dh;
    right = dv;
}

/// Reads seq[0], seq[1], ... once each, into a vector.
template <class Seq>
auto read_all(const Seq& seq) {
    std::vector<std::remove_cvref_t<decltype(seq[0])>> out;
    out.reserve(seq.size());
    for (std::size_t i = 0; i < seq.size(); ++i) out.push_back(seq[i]);
    return out;
}

/// The DP grid of a (n >= 1) and b (m >= 1); returns the deltas of the edge the distance is summed along.
template <class SeqA, class SeqB>
edit_edge edit_distance_edge(const SeqA& a_seq, const SeqB& b_seq) {
    const auto a = read_all(a_seq);
    const auto b = read_all(b_seq);
    const std::size_t n = a.size(), m = b.size();
    if (n == 0 || m == 0) throw tandem::usage_error("apps::edit_distance_edge: both strings must be non-empty");
    const edit_delta plus_one{false, true};
    std::vector<edit_delta> down(m + 1, plus_one);   // down[j]: dh of the lowest cell done in column j (row 0: +1)
    std::vector<edit_delta> right(n + 1, plus_one);  // right[i]: dv of the last cell done in row i (column 0: +1)
    for (std::size_t d = 2; d <= n + m; ++d) {
        const std::size_t first = d > m ? d - m : 1, last = std::min(n, d - 1);
        for (std::size_t i = first; i <= last; ++i) {
            const std::size_t j = d - i;
            edit_cell(a[i - 1] != b[j - 1], down[j], right[i]);
        }
    }
    if (n <= m) return {std::vector<edit_delta>(right.begin() + 1, right.end()), m};
    return {std::vector<edit_delta>(down.begin() + 1, down.end()), n};
}

/// The number of set bits among `bits`, plus a public constant, on W bits:
/// column compression with one-AND full adders (public bits are folded first).
template <std::size_t W>
secure_uint<W> count_ones(const std::vector<secure_bit>& bits, std::uint64_t constant) {
    std::array<std::deque<secure_bit>, W> column;
    for (const secure_bit& x : bits) {
        if (!x.is_public()) column[0].push_back(x);
        else if (x.ref().constant_value()) ++constant;
    }
    secure_uint<W> out = 0;
    for (std::size_t w = 0; w < W; ++w) {
        auto& col = column[w];
        if (w < 64 && ((constant >> w) & 1u) != 0) col.push_back(true);
        while (col.size() >= 2) {
            const secure_bit x = col.front();
            col.pop_front();
            const secure_bit y = col.front();
            col.pop_front();
            secure_bit sum, carry;
            if (!col.empty()) {  // full adder: carry = maj(x, y, c) with one AND
                const secure_bit c = col.front();
                col.pop_front();
                const secure_bit t = x ^ c;
                sum = t ^ y;
                carry = c ^ (t & (y ^ c));
            } else {  // half adder
                sum = x ^ y;
                carry = x & y;
            }
            col.push_back(sum);
            if (w + 1 < W) column[w + 1].push_back(carry);
        }
        if (!col.empty()) out.set_bit(w, col.front());
    }
    return out;
}

/// D[n][m] from the edge edit_distance_edge returns.
template <std::size_t W = 32>
secure_uint<W> distance_from_edge(const edit_edge& edge) {
    std::vector<secure_bit> bits;
    bits.reserve(2 * edge.deltas.size());
    for (const edit_delta& e : edge.deltas) {
        bits.push_back(e.pos);
        bits.push_back(!e.neg);
    }
    return count_ones<W>(bits, edge.start - edge.deltas.size());
}

template <std::size_t W = 32, class SeqA, class SeqB>
secure_uint<W> edit_distance(const SeqA& a, const SeqB& b) {
    const std::uint64_t n = a.size(), m = b.size();
    if constexpr (W < 64)
        if (std::max(n, m) >> W != 0)
            throw tandem::usage_error("apps::edit_distance: a string has " + std::to_string(std::max(n, m)) +
                                      " symbols, too many for a " + std::to_string(W) + "-bit distance");
    if (n == 0 || m == 0) {  // the other length, public; still read every symbol, in order
        (void)read_all(a);
        (void)read_all(b);
        return secure_uint<W>(n + m);
    }
    return distance_from_edge<W>(edit_distance_edge(a, b));
}

/// ANDs of edit_distance_edge for n, m >= 1 (the grid, without the final
/// count) when each t = (a_i != b_j) costs `t_ands` (0 for 1-bit symbols, 1 for
/// 2-bit ones). For n, m >= 2:
///   4(n-1)(m-1) - max(n,m) + t_ands·(nm - 1).
/// Interior cells cost 4; the +1 deltas of row and column 0 fold: cell (1,1)
/// costs 0 (m = t, and m·1 = m), the rest of row and column 1 cost 1 (one
/// delta entering is +1, the other <= 0 so its m·pos is m·0), cell (2,2)
/// costs 2 (both deltas entering are >= 0, so m = t) and the rest of row and
/// column 2 cost 3 (one delta entering is >= 0) — 4(n-1)(m-1) in all. On the
/// edge not summed (the bottom row if n <= m, else the right column) the
/// deltas leaving the grid are dead and the layout drops what only they read:
/// the m·pos AND of each cell outside row and column 1 (there it was free),
/// and the whole first cell of that edge (its m and t feed nothing else
/// alive): max(n,m) - 1 ANDs, 1 + t_ands more.
constexpr std::uint64_t edit_distance_grid_ands(std::uint64_t n, std::uint64_t m, std::uint64_t t_ands) {
    if (n == 1 || m == 1) return std::max(n, m) - 1 + t_ands * n * m;
    return 4 * (n - 1) * (m - 1) - std::max(n, m) + t_ands * (n * m - 1);
}

template <std::size_t N, std::size_t M, std::size_t Bits = 1, std::size_t W = 32>
auto edit_distance_circuit() {
    using sym = secure_uint<Bits>;
    return tandem::compile(
        [](const std::array<sym, N>& a, const std::array<sym, M>& b) { return edit_distance<W>(a, b); },
        tandem::input<party::alice, std::array<sym, N>>, tandem::input<party::bob, std::array<sym, M>>);
}

/// The streamed edit distance of Alice's n symbols and Bob's m, each of Bits bits.
template <std::size_t Bits = 1, std::size_t W = 32>
auto edit_distance_stream(std::uint64_t n, std::uint64_t m) {
    using sym = secure_uint<Bits>;
    auto fn = tandem::stream(
        [](const tandem::sequence<sym>& a, const tandem::sequence<sym>& b) { return edit_distance<W>(a, b); },
        tandem::sequence_input<party::alice, sym>(n), tandem::sequence_input<party::bob, sym>(m));
    if (n > 0 && m > 0) fn.expected_ands = edit_distance_grid_ands(n, m, Bits - 1) + 2 * std::min(n, m);
    return fn;
}

/// The textbook O(nm) dynamic programme.
inline std::uint32_t edit_distance_plain(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    std::vector<std::uint32_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<std::uint32_t>(j);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::uint32_t diag = row[0];  // D[i-1][j-1]
        row[0] = static_cast<std::uint32_t>(i);
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::uint32_t up = row[j];  // D[i-1][j]
            row[j] = std::min({diag + (a[i - 1] != b[j - 1] ? 1u : 0u), up + 1, row[j - 1] + 1});
            diag = up;
        }
    }
    return row[b.size()];
}

}  // namespace apps

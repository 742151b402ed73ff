// tandem/lib/sort.hpp — data-oblivious sorting of secure values.
//
//   tandem::sort(std::span<T>(values), [](const T& a, const T& b) { return a.key < b.key; });
//
// sort() runs Batcher's odd–even merge sort (K. E. Batcher, "Sorting networks
// and their applications", AFIPS 1968; the iterative form in Knuth, TAOCP
// vol. 3, §5.3.4): a fixed network of compare-exchanges that does not depend
// on the values, so it is a circuit. On n = 2^k values it has
// (k² − k + 4)·2^(k−2) − 1 comparators in k(k+1)/2 layers — fewer than the
// bitonic sorter's k(k+1)·2^(k−2) (2^16 values: 3,997,695 against
// 4,456,448). Other n run the network of the next power of two with every
// comparator that touches a position ≥ n left out (those positions would
// hold +∞ padding, which no comparator moves).
//
// Each layer's compare-exchanges are disjoint, and each layer is one
// parallel_for region of identical instances: the instance is stored once,
// threads and IPP spread a layer over workers and parties (exec/).
//
// Cost: a compare-exchange is one call of `less` plus one AND per bit of T
// (the swap: d = (a ⊕ b) ∧ c, a ⊕= d, b ⊕= d). For secure_uint<32> keys and
// operator<: 32 + 32 = 64 ANDs per comparator.
//
// sort() is not stable: equal elements may leave in any order. stable_sort()
// is: it sorts (value, original index) pairs, comparing indices on ties, at
// the cost of a second call of `less` and a comparison and swap of the
// indices per comparator. The indices are 32-bit public constants at first;
// bits that are zero in every index stay constants through the network and
// cost nothing, so only about ⌈log2 n⌉ bits are paid for.
//
// T is any secure value type (value_traits: integers, bits, arrays, tuples,
// Hana structs); less(a, b) must return a secure_bit, true when a goes
// before b, and be a strict weak order on every pair of values.
#pragma once

#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/context.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/parallel.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tandem {

/// One compare-exchange of a sorting network: after it, position lo holds
/// the element that goes first.
struct comparator {
    std::uint32_t lo;
    std::uint32_t hi;
    friend bool operator==(const comparator&, const comparator&) = default;
};

/// A sorting network as layers of disjoint comparators, applied in order.
using sorting_network = std::vector<std::vector<comparator>>;

/// Batcher's odd–even merge sort on n positions (see the top of this header).
inline sorting_network odd_even_merge_sort_network(std::size_t n) {
    if (n > (std::size_t{1} << 31))
        throw usage_error("tandem::odd_even_merge_sort_network: " + std::to_string(n) +
                          " positions; at most 2^31 are supported");
    sorting_network layers;
    for (std::size_t p = 1; p < n; p *= 2) {
        for (std::size_t k = p; k >= 1; k /= 2) {
            std::vector<comparator> layer;
            // Blocks of 2k positions starting at k mod p; within a block the
            // first k positions compare with the next k, when both lie in the
            // same run of 2p being merged.
            for (std::size_t j = k % p; j + k < n; j += 2 * k)
                for (std::size_t i = 0; i < k && i + j + k < n; ++i)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
                        layer.push_back({static_cast<std::uint32_t>(i + j), static_cast<std::uint32_t>(i + j + k)});
            if (!layer.empty()) layers.push_back(std::move(layer));
        }
    }
    return layers;
}

/// The default order: a < b.
struct ascending {
    template <class T>
    secure_bit operator()(const T& a, const T& b) const {
        return a < b;
    }
};

/// The reverse order: b < a.
struct descending {
    template <class T>
    secure_bit operator()(const T& a, const T& b) const {
        return b < a;
    }
};

namespace detail {

/// Swaps a and b when c is true: one AND per bit, for any secure value type.
template <class T>
void swap_if(const secure_bit& c, T& a, T& b) {
    using traits = value_traits<T>;
    constexpr std::size_t n = traits::bits;
    // Small values keep their wire lists on the stack; a comparator of big
    // structs must not put megabytes there.
    using refs = std::conditional_t<(n <= 1024), std::array<wire_ref, n>, std::vector<wire_ref>>;
    refs ra{}, rb{};
    if constexpr (n > 1024) ra.resize(n), rb.resize(n);
    ref_cursor ca{ra.data(), 0}, cb{rb.data(), 0};
    traits::collect(a, ca);
    traits::collect(b, cb);
    const std::uint32_t owner = join_owner(c.owner(), join_owner(ca.owner, cb.owner));
    builder& bld = builder_for(owner);
    for (std::size_t k = 0; k < n; ++k) {
        const wire_ref d = bld.and_(c.ref(), bld.xor_(ra[k], rb[k]));
        ra[k] = bld.xor_(ra[k], d);
        rb[k] = bld.xor_(rb[k], d);
    }
    // A streamed run must not cut while the new wires are only in ra and rb.
    const builder::cut_hold hold(active_builder);
    ref_cursor ma{ra.data(), owner}, mb{rb.data(), owner};
    traits::assign(a, ma);
    traits::assign(b, mb);
}

}  // namespace detail

/// Puts a before b by `less`: swaps them when less(b, a).
template <class T, class Less = ascending>
void compare_exchange(T& a, T& b, Less&& less = {}) {
    const secure_bit swap = less(std::as_const(b), std::as_const(a));
    detail::swap_if(swap, a, b);
}

/// Applies a sorting network to values, one parallel_for region per layer.
template <class T, class Less>
void apply_network(std::span<T> values, const sorting_network& network, Less&& less,
                   detail::call_site loc = detail::call_site::current()) {
    for (const auto& layer : network)
        for (const comparator& cmp : layer)
            if (cmp.lo >= values.size() || cmp.hi >= values.size() || cmp.lo == cmp.hi)
                throw usage_error("tandem::apply_network: comparator (" + std::to_string(cmp.lo) + ", " +
                                  std::to_string(cmp.hi) + ") does not fit " + std::to_string(values.size()) +
                                  " values");
    const std::string name = detail::region_name("sort", loc);
    using pair = std::tuple<T, T>;
    for (std::size_t l = 0; l < network.size(); ++l) {
        const std::vector<comparator>& layer = network[l];
        auto body = [&](std::size_t i) -> pair {
            T a = values[layer[i].lo];
            T b = values[layer[i].hi];
            compare_exchange(a, b, less);
            return pair{std::move(a), std::move(b)};
        };
        detail::record_region<pair>(
            layer.size(), body,
            [&](std::size_t i, pair r) {
                values[layer[i].lo] = std::move(std::get<0>(r));
                values[layer[i].hi] = std::move(std::get<1>(r));
            },
            name + " (layer " + std::to_string(l) + ")");
    }
}

/// Sorts values in place by `less` (default: ascending by operator<), with
/// odd–even merge sort; not stable.
template <class T, class Less = ascending>
void sort(std::span<T> values, Less&& less = {}, detail::call_site loc = detail::call_site::current()) {
    apply_network(values, odd_even_merge_sort_network(values.size()), less, loc);
}

/// sort over the values of a std::array.
template <class T, std::size_t N, class Less = ascending>
void sort(std::array<T, N>& values, Less&& less = {}, detail::call_site loc = detail::call_site::current()) {
    sort(std::span<T>(values), std::forward<Less>(less), loc);
}

/// sort over the values of a std::vector.
template <class T, class Less = ascending>
void sort(std::vector<T>& values, Less&& less = {}, detail::call_site loc = detail::call_site::current()) {
    sort(std::span<T>(values), std::forward<Less>(less), loc);
}

/// Sorts values in place by `less`, keeping equal elements in their input order.
template <class T, class Less = ascending>
void stable_sort(std::span<T> values, Less&& less = {}, detail::call_site loc = detail::call_site::current()) {
    constexpr std::size_t index_bits = 32;
    using index_type = secure_uint<index_bits>;
    if (values.size() > (std::size_t{1} << 31))
        throw usage_error("tandem::stable_sort: at most 2^31 values are supported");
    std::vector<std::tuple<T, index_type>> tagged;
    tagged.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) tagged.emplace_back(values[i], index_type(i));
    sort(std::span<std::tuple<T, index_type>>(tagged),
         [&](const std::tuple<T, index_type>& a, const std::tuple<T, index_type>& b) {
             const secure_bit a_first = less(std::get<0>(a), std::get<0>(b));
             const secure_bit b_first = less(std::get<0>(b), std::get<0>(a));
             return a_first | (~b_first & (std::get<1>(a) < std::get<1>(b)));
         },
         loc);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::get<0>(tagged[i]);
}

}  // namespace tandem

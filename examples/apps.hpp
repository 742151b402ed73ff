// examples/apps.hpp — the three benchmark applications of paper 001 (Buescher,
// Katzenbeisser, USENIX Security 2015, §6.2), written with parallel regions.
//
// For each application:
//   <app>(inputs...)               the secure function, with parallel_for / reduce
//   <app>_sequential(inputs...)    the same computation with ordinary loops
//   <app>_circuit<sizes>()         tandem::compile of the first,
//   <app>_sequential_circuit<…>()  … and of the second
//   <app>_plain(inputs...)         a plain C++ reference on uint32_t / uint64_t
//   make_<app>_inputs<…>(seed)     deterministic plain inputs (std::mt19937_64)
// The size parameters default to the paper's; tests use smaller ones too.
#pragma once

#include <tandem/dsl/parallel.hpp>
#include <tandem/tandem.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>

namespace apps {

using u32 = tandem::secure_uint<32>;
using u64 = tandem::secure_uint<64>;
using tandem::party;

// ---- BioMatch ----------------------------------------------------------------
// Paper 001 §6.2, biometric matching: the minimum over a database of the squared
// Euclidean distance to a sample, min_i Σ_k (s_k − e_{i,k})². Alice holds the
// database (n = 512 entries of d = 4 values), Bob the sample; b = 64 bits, all
// arithmetic wraps modulo 2^64 like uint64_t.

template <std::size_t N, std::size_t D>
using biomatch_db = std::array<std::array<u64, D>, N>;

template <std::size_t N = 512, std::size_t D = 4>
struct biomatch_inputs {
    std::array<std::array<std::uint64_t, D>, N> db;
    std::array<std::uint64_t, D> sample;
};

template <std::size_t D>
u64 squared_distance(const std::array<u64, D>& entry, const std::array<u64, D>& sample) {
    u64 sum = 0;
    for (std::size_t k = 0; k < D; ++k) {
        const u64 diff = sample[k] - entry[k];
        sum += diff * diff;
    }
    return sum;
}

inline u64 min_u64(const u64& a, const u64& b) { return tandem::select(a < b, a, b); }

template <std::size_t N = 512, std::size_t D = 4>
u64 biomatch(const biomatch_db<N, D>& db, const std::array<u64, D>& sample) {
    const auto dist = tandem::parallel_for<N>([&](std::size_t i) { return squared_distance(db[i], sample); });
    return tandem::reduce(dist, [](const u64& a, const u64& b) { return min_u64(a, b); });
}

template <std::size_t N = 512, std::size_t D = 4>
u64 biomatch_sequential(const biomatch_db<N, D>& db, const std::array<u64, D>& sample) {
    u64 best = squared_distance(db[0], sample);
    for (std::size_t i = 1; i < N; ++i) best = min_u64(squared_distance(db[i], sample), best);
    return best;
}

template <std::size_t N = 512, std::size_t D = 4>
auto biomatch_circuit() {
    return tandem::compile([](const biomatch_db<N, D>& db, const std::array<u64, D>& s) { return biomatch<N, D>(db, s); },
                           tandem::input<party::alice, biomatch_db<N, D>>,
                           tandem::input<party::bob, std::array<u64, D>>);
}

/// BioMatch as a streamed function (tandem::stream): the database is a
/// sequence of n entries read in blocks of B, each block's distances one
/// parallel_for and its minimum a reduce, folded into the running minimum.
/// The same ANDs as biomatch<n, D> when n is a multiple of B (n distances,
/// n - 1 minima), in bounded memory whatever n is; with IPP each block's
/// region is split between the parties (docs/DESIGN.md §7.8).
template <std::size_t B = 128, std::size_t D = 4>
auto biomatch_stream(std::size_t n) {
    auto fn = tandem::stream(
        [](const tandem::sequence<std::array<u64, D>>& db, const std::array<u64, D>& sample) {
            u64 best = 0;
            for (std::size_t base = 0; base < db.size(); base += B) {
                std::array<std::array<u64, D>, B> block;
                for (std::size_t i = 0; i < B; ++i) block[i] = db[base + i];
                const auto dist = tandem::parallel_for<B>([&](std::size_t i) { return squared_distance(block[i], sample); });
                const u64 m = tandem::reduce(dist, [](const u64& a, const u64& b) { return min_u64(a, b); });
                best = base == 0 ? m : min_u64(m, best);
            }
            return best;
        },
        tandem::sequence_input<party::alice, std::array<u64, D>>(n), tandem::input<party::bob, std::array<u64, D>>);
    fn.segment_ands = std::uint64_t{1} << 21;  // a block's region (~1.9 M ANDs for B = 128) in one segment
    return fn;
}

template <std::size_t N = 512, std::size_t D = 4>
auto biomatch_sequential_circuit() {
    return tandem::compile(
        [](const biomatch_db<N, D>& db, const std::array<u64, D>& s) { return biomatch_sequential<N, D>(db, s); },
        tandem::input<party::alice, biomatch_db<N, D>>, tandem::input<party::bob, std::array<u64, D>>);
}

template <std::size_t N = 512, std::size_t D = 4>
std::uint64_t biomatch_plain(const std::array<std::array<std::uint64_t, D>, N>& db,
                             const std::array<std::uint64_t, D>& sample) {
    std::uint64_t best = UINT64_MAX;
    for (const auto& entry : db) {
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < D; ++k) sum += (sample[k] - entry[k]) * (sample[k] - entry[k]);
        if (sum < best) best = sum;
    }
    return best;
}

template <std::size_t N = 512, std::size_t D = 4>
biomatch_inputs<N, D> make_biomatch_inputs(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    biomatch_inputs<N, D> in;
    for (auto& entry : in.db)
        for (auto& v : entry) v = rng();
    for (auto& v : in.sample) v = rng();
    return in;
}

// ---- MExp --------------------------------------------------------------------
// Paper 001 §6.2, parallel modular exponentiation: k = 32 exponentiations
// base_i^exp_i mod m on b = 32 bits, combined by their product mod m. Alice
// holds the bases, Bob the exponents; the modulus m is public (default: the
// largest 32-bit prime). Square-and-multiply over the 32 exponent bits, each
// product taken on 64 bits and reduced with % m; the product of the k results
// is a sequential tail.
//
// m is public, so `% m` needs no divider: it takes the constant-divisor
// circuit of dsl/constant_divide.hpp (a multiply-high by a precomputed
// reciprocal of m, Granlund–Montgomery 1994, then r = x - q·m on 32 bits), for
// every m. With m = 2^32 - 5 the reciprocal is sparse: a modular product costs
// 1,753 ANDs in MExp's region bodies once lay-out has merged common
// subexpressions (1,744 compiled alone, where the builder merges as it records
// and folds against the gates kept; 1,894 as recorded: the 32 × 32-bit
// product 1,577, the reduction 317) instead of
// 4,679 (the generic 64-bit divider took 3,102), and MExp 3,468,632 ANDs and
// 13,326,936 gates executed instead of 9,431,255 and 33,544,461. There is no
// separate mul_mod for operands already below m: knowing x <= (m-1)² instead
// of 2^64 - 1 would only narrow the quotient by about one bit.

inline constexpr std::uint32_t mexp_default_modulus = 4294967291u;  // 2^32 - 5

inline u32 mul_mod(const u32& a, const u32& b, std::uint32_t m) {
    return ((a.resize<64>() * b.resize<64>()) % std::uint64_t{m}).resize<32>();
}

/// base^exp mod m, left to right over the bits of exp.
inline u32 pow_mod(const u32& base, const u32& exp, std::uint32_t m) {
    u32 r = 1 % m;
    for (std::size_t j = 32; j-- > 0;) {
        r = mul_mod(r, r, m);
        r = tandem::select(exp[j], mul_mod(r, base, m), r);
    }
    return r;
}

template <std::size_t K>
u32 product_mod(const std::array<u32, K>& values, std::uint32_t m) {
    u32 acc = 1 % m;
    for (const u32& v : values) acc = mul_mod(acc, v, m);
    return acc;
}

inline void check_modulus(std::uint32_t m) {
    if (m == 0) throw std::invalid_argument("apps::mexp: the modulus must not be 0");
}

template <std::size_t K = 32>
u32 mexp(const std::array<u32, K>& bases, const std::array<u32, K>& exps, std::uint32_t m = mexp_default_modulus) {
    check_modulus(m);
    const auto powers = tandem::parallel_for<K>([&](std::size_t i) { return pow_mod(bases[i], exps[i], m); });
    return product_mod(powers, m);
}

template <std::size_t K = 32>
u32 mexp_sequential(const std::array<u32, K>& bases, const std::array<u32, K>& exps,
                    std::uint32_t m = mexp_default_modulus) {
    check_modulus(m);
    std::array<u32, K> powers;
    for (std::size_t i = 0; i < K; ++i) powers[i] = pow_mod(bases[i], exps[i], m);
    return product_mod(powers, m);
}

template <std::size_t K = 32>
auto mexp_circuit(std::uint32_t m = mexp_default_modulus) {
    return tandem::compile(
        [m](const std::array<u32, K>& bases, const std::array<u32, K>& exps) { return mexp<K>(bases, exps, m); },
        tandem::input<party::alice, std::array<u32, K>>, tandem::input<party::bob, std::array<u32, K>>);
}

template <std::size_t K = 32>
auto mexp_sequential_circuit(std::uint32_t m = mexp_default_modulus) {
    return tandem::compile(
        [m](const std::array<u32, K>& bases, const std::array<u32, K>& exps) {
            return mexp_sequential<K>(bases, exps, m);
        },
        tandem::input<party::alice, std::array<u32, K>>, tandem::input<party::bob, std::array<u32, K>>);
}

template <std::size_t K = 32>
std::uint32_t mexp_plain(const std::array<std::uint32_t, K>& bases, const std::array<std::uint32_t, K>& exps,
                         std::uint32_t m = mexp_default_modulus) {
    check_modulus(m);
    std::uint64_t product = 1 % m;
    for (std::size_t i = 0; i < K; ++i) {
        std::uint64_t power = 1 % m, square = bases[i] % m;  // right to left
        for (std::uint32_t e = exps[i]; e != 0; e >>= 1) {
            if (e & 1u) power = power * square % m;
            square = square * square % m;
        }
        product = product * power % m;
    }
    return static_cast<std::uint32_t>(product);
}

template <std::size_t K = 32>
struct mexp_inputs {
    std::array<std::uint32_t, K> bases;
    std::array<std::uint32_t, K> exps;
};

template <std::size_t K = 32>
mexp_inputs<K> make_mexp_inputs(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    mexp_inputs<K> in;
    for (auto& v : in.bases) v = static_cast<std::uint32_t>(rng());
    for (auto& v : in.exps) v = static_cast<std::uint32_t>(rng());
    return in;
}

// ---- MVMul -------------------------------------------------------------------
// Paper 001 §6.2, matrix-vector multiplication as in LWE: A·v for a 16×16
// matrix A (Alice) and a 16-vector v (Bob), b = 64 bits, wrapping modulo 2^64.

template <std::size_t R, std::size_t C>
using mvmul_matrix = std::array<std::array<u64, C>, R>;

template <std::size_t C>
u64 dot(const std::array<u64, C>& row, const std::array<u64, C>& v) {
    u64 sum = 0;
    for (std::size_t k = 0; k < C; ++k) sum += row[k] * v[k];
    return sum;
}

template <std::size_t R = 16, std::size_t C = 16>
std::array<u64, R> mvmul(const mvmul_matrix<R, C>& a, const std::array<u64, C>& v) {
    return tandem::parallel_for<R>([&](std::size_t i) { return dot(a[i], v); });
}

template <std::size_t R = 16, std::size_t C = 16>
std::array<u64, R> mvmul_sequential(const mvmul_matrix<R, C>& a, const std::array<u64, C>& v) {
    std::array<u64, R> out;
    for (std::size_t i = 0; i < R; ++i) out[i] = dot(a[i], v);
    return out;
}

template <std::size_t R = 16, std::size_t C = 16>
auto mvmul_circuit() {
    return tandem::compile([](const mvmul_matrix<R, C>& a, const std::array<u64, C>& v) { return mvmul<R, C>(a, v); },
                           tandem::input<party::alice, mvmul_matrix<R, C>>,
                           tandem::input<party::bob, std::array<u64, C>>);
}

template <std::size_t R = 16, std::size_t C = 16>
auto mvmul_sequential_circuit() {
    return tandem::compile(
        [](const mvmul_matrix<R, C>& a, const std::array<u64, C>& v) { return mvmul_sequential<R, C>(a, v); },
        tandem::input<party::alice, mvmul_matrix<R, C>>, tandem::input<party::bob, std::array<u64, C>>);
}

template <std::size_t R = 16, std::size_t C = 16>
std::array<std::uint64_t, R> mvmul_plain(const std::array<std::array<std::uint64_t, C>, R>& a,
                                         const std::array<std::uint64_t, C>& v) {
    std::array<std::uint64_t, R> out{};
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t k = 0; k < C; ++k) out[i] += a[i][k] * v[k];
    return out;
}

template <std::size_t R = 16, std::size_t C = 16>
struct mvmul_inputs {
    std::array<std::array<std::uint64_t, C>, R> matrix;
    std::array<std::uint64_t, C> vector;
};

template <std::size_t R = 16, std::size_t C = 16>
mvmul_inputs<R, C> make_mvmul_inputs(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    mvmul_inputs<R, C> in;
    for (auto& row : in.matrix)
        for (auto& x : row) x = rng();
    for (auto& x : in.vector) x = rng();
    return in;
}

}  // namespace apps

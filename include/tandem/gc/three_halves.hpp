// tandem/gc/three_halves.hpp — garbling and evaluating ANDs with three-halves.
//
// Rosulek and Roy, "Three halves make a whole? Beating the half-gates lower
// bound for garbled circuits", CRYPTO 2021 (eprint 2021/749): 1.5κ + 5 bits
// per AND (24 bytes and 5 bits here) where half-gates [005] needs 2κ, at the
// price of 1.5× its hashing. Free-XOR and point-and-permute as in half-gates:
// lsb(Δ) = 1, the label with colour c is A^c = A^0 ⊕ c·Δ.
//
// Labels are cut in halves, X = (X_L, X_R) = (low 64 bits, high 64 bits). An
// AND g hashes three things with three tweaks: A (3g), B (3g + 1) and A ⊕ B
// (3g + 2). Of each hash H it uses the low half, h, and one more bit, bit 64
// (ĥ). The evaluator, holding A and B with colours i = lsb(A), j = lsb(B),
// and the gate's table (G0, G1, G2; z0..z4), computes
//   (ρ1, ρ2) = (z0, z1) ⊕ (i·z2, j·z3) ⊕ (i⊕j)·(z4, z4) ⊕ (ĥ_A ⊕ ĥ_AB, ĥ_B ⊕ ĥ_AB)
//   C_L = h_A ⊕ h_AB ⊕ i·G0 ⊕ (i⊕j)·G2 ⊕ ¬i·B_L ⊕ ρ1·(A_L⊕A_R⊕B_L) ⊕ ρ2·(A_L⊕B_R)
//   C_R = h_B ⊕ h_AB ⊕ j·G1 ⊕ (i⊕j)·G2 ⊕ ¬j·A_R ⊕ ρ1·(A_L⊕B_R) ⊕ ρ2·(A_R⊕B_L⊕B_R)
// — the paper's decoding: the hash combination M, V_ij = [i 0 i⊕j; 0 j i⊕j]
// on the table, and the linear map R_ij = R_p(i, j) ⊕ ρ1·S1 ⊕ ρ2·S2 on the
// input halves ("slicing"), ρ decrypted from the control bits ("dicing").
// The garbler draws r = (r1, r2) per AND (the paper's R_$; here a PRF of the
// AND's index, `dicing`) so that the evaluator's ρ = r ⊕ V_ij·(¬α, ¬β, α⊕β)
// is uniform whichever colours it holds (α = lsb(A0), β = lsb(B0): the
// permute bits). Solving the four decodings for the table gives, with
// a = A^0 and b = B^0 the colour-0 labels, D = Δ, and
//   X0 = (b_L, a_R), X1 = (a_L⊕a_R⊕b_L, a_L⊕b_R), X2 = (a_L⊕b_R, a_R⊕b_L⊕b_R):
//   C0 = (h_A^0 ⊕ h_AB^0, h_B^0 ⊕ h_AB^0) ⊕ X0 ⊕ r1·X1 ⊕ r2·X2 ⊕ αβ·D
//   G0 = h_A^0 ⊕ h_A^1 ⊕ a_R⊕b_R ⊕ α·(X1_L⊕D_L⊕D_R) ⊕ β·(X2_L⊕D_R) ⊕ r1·D_R ⊕ r2·(D_L⊕D_R)
//   G1 = h_B^0 ⊕ h_B^1 ⊕ a_L⊕b_L ⊕ α·(X1_R⊕D_L) ⊕ β·(X2_R⊕D_L⊕D_R) ⊕ r1·(D_L⊕D_R) ⊕ r2·D_L
//   G2 = h_AB^0 ⊕ h_AB^1 ⊕ X2_L⊕D_L⊕D_R ⊕ α·(X2_R⊕D_R) ⊕ β·(X1_L⊕D_L) ⊕ r1·D_L ⊕ r2·D_R
//   z = (r1 ⊕ ĥ_A^0 ⊕ ĥ_AB^0, r2 ⊕ ĥ_B^0 ⊕ ĥ_AB^0, ¬α ⊕ ĥ_A^0 ⊕ ĥ_A^1, ¬β ⊕ ĥ_B^0 ⊕ ĥ_B^1, α⊕β ⊕ ĥ_AB^0 ⊕ ĥ_AB^1)
// where h_A^c is the hash of A^c (h_AB^c of a ⊕ b ⊕ c·D). The solution is
// unique; scripts/three_halves_derive.py solves the system over GF(2) and
// checks every case (docs/DESIGN.md §5, "Three-halves").
//
// Tables travel in groups of up to 8 ANDs: each AND's row G0 G1 G2 (8 bytes
// each, little-endian), then the group's control bits packed 5 per AND (bit
// 5k + b of the group's bytes is z_b of its AND k): 197 bytes per 8 ANDs,
// 24.625 per AND. A group never spans two calls of the kernel, so garbler and
// evaluator must split a level alike — they do, both following the plan.
// Every selection is a mask, never a branch.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/scheme.hpp>
#include <tandem/gc/tables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc::three_halves {

/// The garbler's random bits r = (r1, r2) of each AND (the paper's R_$): bits
/// 2(g mod 64) and 2(g mod 64) + 1 of AES_K(⌊g / 64⌋) for AND g, under the
/// garbler's key K (dicing_key: derived from Δ, never sent). A function of
/// the AND's index, like its tweaks, so any worker garbles any part alone
/// and the tables do not depend on how a run is cut. Secret: with it the
/// evaluator would learn the permute bits. Not thread-safe (it keeps the
/// last block).
class dicing {
public:
    explicit dicing(block key) noexcept : key_(key) {}
    dicing(const dicing&) = delete;
    dicing& operator=(const dicing&) = delete;
    ~dicing() {
        tandem::detail::wipe(&key_, sizeof key_);
        tandem::detail::wipe(&stream_, sizeof stream_);
    }

    /// r1 in bit 0, r2 in bit 1, for AND g.
    std::uint64_t bits(std::uint64_t g) noexcept {
        if (g / 64 != counter_) {  // the index is public: a branch on it is not
            counter_ = g / 64;
            stream_ = key_.encrypt(block(0, counter_));
        }
        const unsigned at = 2 * static_cast<unsigned>(g % 64);
        const std::uint64_t word = at < 64 ? stream_.low() : stream_.high();
        return (word >> (at % 64)) & 3;
    }

private:
    aes_key key_;
    block stream_;
    std::uint64_t counter_ = ~std::uint64_t{0};
};

/// The dicing key of a run: K = H(Δ, 0) under the rekeyed hash started at
/// S ⊕ (2^62 in the high word) — a key of its own, neither an AND's (whose
/// high word is S's) nor an output hash's (bit 63, session/engine.hpp). K is
/// one more output of the circular correlation-robust hash the scheme already
/// assumes, on an input (Δ itself) and key nothing else queries, so it is
/// pseudorandom to the evaluator; and every worker, MPI rank and IPP world
/// that garbles under Δ derives the same K from what it already holds, with
/// no second secret to draw, send or keep. S is fresh per run, so is K.
inline block dicing_key(block hash_start, block delta) noexcept {
    const rekeyed_hash h(hash_start ^ block(std::uint64_t{1} << 62, 0));
    block k = delta;
    h.hash(0, 1, 1, &k);
    return k;
}

namespace detail {

// Half-label moves on one block, (lo, hi) = (bits 0..63, bits 64..127).
#if TANDEM_X86
inline block swap_halves(block x) noexcept { return block(_mm_shuffle_epi32(x.v, 0x4E)); }
/// (a.lo, b.lo) and (a.hi, b.hi).
inline block low_pair(block a, block b) noexcept { return block(_mm_unpacklo_epi64(a.v, b.v)); }
inline block high_pair(block a, block b) noexcept { return block(_mm_unpackhi_epi64(a.v, b.v)); }
/// (a.lo, 0), (0, a.hi) and (a.lo, b.hi).
inline block low_only(block a) noexcept { return block(_mm_move_epi64(a.v)); }
inline block high_only(block a) noexcept { return block(_mm_unpackhi_epi64(_mm_setzero_si128(), a.v)); }
inline block low_high(block a, block b) noexcept { return block(_mm_blend_epi16(a.v, b.v, 0xF0)); }
/// Each half all ones if its bit 0 is set.
inline block half_masks(block x) noexcept {
    return block(_mm_sub_epi64(_mm_setzero_si128(), _mm_and_si128(x.v, _mm_set1_epi64x(1))));
}
/// Bit 0 of each half: lo's in bit 0, hi's in bit 1.
inline unsigned half_bits(block x) noexcept {
    return static_cast<unsigned>(_mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64(x.v, 63))));
}
/// The 8 bytes at p in both halves.
inline block load_twice(const std::uint8_t* p) noexcept {
    return block(_mm_castpd_si128(_mm_loaddup_pd(reinterpret_cast<const double*>(p))));
}
/// x where m is zero.
inline block andnot(block m, block x) noexcept { return block(_mm_andnot_si128(m.v, x.v)); }
#else
inline uint64x2_t u64(block x) noexcept { return vreinterpretq_u64_u8(x.v); }
inline block of(uint64x2_t x) noexcept { return block(vreinterpretq_u8_u64(x)); }
inline block swap_halves(block x) noexcept { return block(vextq_u8(x.v, x.v, 8)); }
inline block low_pair(block a, block b) noexcept { return of(vcombine_u64(vget_low_u64(u64(a)), vget_low_u64(u64(b)))); }
inline block high_pair(block a, block b) noexcept {
    return of(vcombine_u64(vget_high_u64(u64(a)), vget_high_u64(u64(b))));
}
inline block low_only(block a) noexcept { return of(vcombine_u64(vget_low_u64(u64(a)), vcreate_u64(0))); }
inline block high_only(block a) noexcept { return of(vcombine_u64(vcreate_u64(0), vget_high_u64(u64(a)))); }
inline block low_high(block a, block b) noexcept {
    return of(vcombine_u64(vget_low_u64(u64(a)), vget_high_u64(u64(b))));
}
inline block half_masks(block x) noexcept {
    const int64x2_t bits = vreinterpretq_s64_u64(vandq_u64(u64(x), vdupq_n_u64(1)));
    return of(vreinterpretq_u64_s64(vnegq_s64(bits)));
}
inline unsigned half_bits(block x) noexcept {
    return static_cast<unsigned>((vgetq_lane_u64(u64(x), 0) & 1) | (vgetq_lane_u64(u64(x), 1) & 1) << 1);
}
inline block load_twice(const std::uint8_t* p) noexcept {
    return of(vld1q_dup_u64(reinterpret_cast<const std::uint64_t*>(p)));
}
inline block andnot(block m, block x) noexcept { return block(vbicq_u8(x.v, m.v)); }
#endif

/// All ones in both halves if bit 0 of x is set.
inline block spread(std::uint64_t x) noexcept { return mask_of((x & 1) != 0); }

/// The combinations of the input halves the equations use (top of the file):
/// X0 = (b_L, a_R), X1 = (a_L⊕a_R⊕b_L, a_L⊕b_R), X2 = (a_L⊕b_R, a_R⊕b_L⊕b_R).
struct combinations {
    block x0, x1, x2;
    combinations(block a, block b) noexcept {
        const block s = a ^ swap_halves(b);  // (a_L⊕b_R, a_R⊕b_L)
        x0 = low_high(b, a);
        x1 = swap_halves(s) ^ low_only(a);
        x2 = s ^ high_only(b);
    }
};

/// What a garbler keeps per Δ: Δ, its halves swapped, S1·(Δ, 0) = (Δ_L⊕Δ_R,
/// Δ_L) and S2·(0, Δ) = (Δ_R, Δ_L⊕Δ_R).
struct offsets {
    block d, swapped, e1, e2;
    explicit offsets(block delta) noexcept
        : d(delta), swapped(swap_halves(delta)), e1(low_high(delta ^ swapped, swapped)), e2(low_high(swapped, delta ^ swapped)) {}
};

/// One AND garbled from its colour-0 labels a, b, its permute bits (α, β:
/// masks and bits), the dicing bits r and the six hashes h[c][t] (c the
/// colour, t: 0 of A, 1 of B, 2 of A ⊕ B). Writes its row, returns its zero
/// label C0 and its control bits in `z` (bits 0..4).
inline block garble_gate(block a, block b, block ma, block mb, unsigned alpha, unsigned beta, const offsets& o,
                         std::uint64_t r, const block (&h)[2][3], std::uint8_t* row, unsigned& z) noexcept {
    const combinations x(a, b);
    const block m1 = spread(r), m2 = spread(r >> 1);
    const block t1 = h[0][0] ^ h[0][2], t2 = h[0][1] ^ h[0][2];
    const block da = h[0][0] ^ h[1][0], db = h[0][1] ^ h[1][1], dab = h[0][2] ^ h[1][2];
    const block c0 = low_pair(t1, t2) ^ x.x0 ^ (m1 & x.x1) ^ (m2 & x.x2) ^ (ma & mb & o.d);
    const block g01 = low_pair(da, db) ^ swap_halves(a ^ b) ^ (ma & (x.x1 ^ o.e1)) ^ (mb & (x.x2 ^ o.e2)) ^
                      (m1 & o.e2) ^ (m2 & o.e1);
    const block g2 = dab ^ x.x2 ^ o.e1 ^ (ma & (swap_halves(x.x2) ^ o.swapped)) ^ (mb & (x.x1 ^ o.d)) ^
                     (m1 & o.d) ^ (m2 & o.swapped);  // in the low half
    g01.store(row);
    const std::uint64_t g2_low = g2.low();
    std::memcpy(row + 16, &g2_low, 8);
    const unsigned ab = alpha | beta << 1;
    z = ((static_cast<unsigned>(r) ^ half_bits(high_pair(t1, t2))) & 3) | ((ab ^ 3 ^ half_bits(high_pair(da, db))) & 3) << 2 |
        ((alpha ^ beta ^ (half_bits(dab) >> 1)) & 1) << 4;
    return c0;
}

/// One AND evaluated from the active labels a, b, the hashes h[t] of A, B and
/// A ⊕ B, its row and its control bits z (bits 0..4).
inline block evaluate_gate(block a, block b, const block (&h)[3], const std::uint8_t* row, unsigned z) noexcept {
    const combinations x(a, b);
    const block colours = low_pair(a, b);
    const block mij = half_masks(colours), mx = mij ^ swap_halves(mij);  // (i, j) and i ⊕ j
    const unsigned i = a.low() & 1, j = b.low() & 1;
    const block t1 = h[0] ^ h[2], t2 = h[1] ^ h[2];
    const unsigned hb = half_bits(high_pair(t1, t2));
    const unsigned rho1 = z ^ (i & (z >> 2)) ^ ((i ^ j) & (z >> 4)) ^ hb;
    const unsigned rho2 = (z >> 1) ^ (j & (z >> 3)) ^ ((i ^ j) & (z >> 4)) ^ (hb >> 1);
    return low_pair(t1, t2) ^ (mij & block::load(row)) ^ (mx & load_twice(row + 16)) ^ andnot(mij, x.x0) ^
           (spread(rho1) & x.x1) ^ (spread(rho2) & x.x2);
}

/// The level loop of both parties: groups of up to 8 ANDs, each hashed in
/// batches of 8, 4, 2 and 1 gates so the hash's wide kernels take them.
template <class Group>
inline void run_groups(std::uint32_t begin, std::uint32_t end, Group& g) {
    for (std::uint32_t i = begin; i < end; i += group_ands) g.group(i, std::min<std::uint32_t>(group_ands, end - i));
}

template <class Batch>
inline void run_chunks(std::uint32_t m, Batch&& batch) {
    std::uint32_t k = 0;
    if (m == 8) batch(std::integral_constant<std::uint32_t, 8>{}, k), k = 8;
    if (m - k >= 4) batch(std::integral_constant<std::uint32_t, 4>{}, k), k += 4;
    if (m - k >= 2) batch(std::integral_constant<std::uint32_t, 2>{}, k), k += 2;
    if (m - k >= 1) batch(std::integral_constant<std::uint32_t, 1>{}, k);
}

template <class Hash, class Sink>
struct and_garbler {
    const gate* gates;
    const Hash& hash;
    dicing& dice;
    Sink& sink;
    gc::detail::label_array& label;
    const offsets& o;
    std::uint64_t and_index;

    /// Garbles the m ≤ 8 ANDs from gate i on as one group.
    void group(std::uint32_t i, std::uint32_t m) {
        std::uint8_t buf[group_bytes(group_ands)];
        std::uint64_t z = 0;
        run_chunks(m, [&](auto q, std::uint32_t k0) {
            constexpr std::uint32_t Q = decltype(q)::value;
            block x[2 * 3 * Q];  // x[c·3Q + 3k + t]: colour c of input t of gate k
            block a[Q], b[Q], ma[Q], mb[Q];
            unsigned alpha[Q], beta[Q];
            for (std::uint32_t k = 0; k < Q; ++k) {
                const gate& g = gates[i + k0 + k];
                const block a0 = label[g.in0], b0 = label[g.in1];
                alpha[k] = a0.low() & 1, beta[k] = b0.low() & 1;
                ma[k] = permute_mask(a0), mb[k] = permute_mask(b0);
                a[k] = a0 ^ (ma[k] & o.d);  // the colour-0 labels
                b[k] = b0 ^ (mb[k] & o.d);
                x[3 * k] = a[k], x[3 * k + 1] = b[k], x[3 * k + 2] = a[k] ^ b[k];
                for (int t = 0; t < 3; ++t) x[3 * Q + 3 * k + t] = x[3 * k + t] ^ o.d;
            }
            hash.template hash<3 * Q, 2>(3 * (and_index + k0), x);
            for (std::uint32_t k = 0; k < Q; ++k) {
                const block h[2][3] = {{x[3 * k], x[3 * k + 1], x[3 * k + 2]},
                                       {x[3 * Q + 3 * k], x[3 * Q + 3 * k + 1], x[3 * Q + 3 * k + 2]}};
                unsigned zk;
                label[gates[i + k0 + k].out] =
                    garble_gate(a[k], b[k], ma[k], mb[k], alpha[k], beta[k], o, dice.bits(and_index + k0 + k), h,
                                buf + row_bytes * (k0 + k), zk);
                z |= std::uint64_t{zk} << (control_bits * (k0 + k));
            }
        });
        std::memcpy(buf + row_bytes * m, &z, (m * control_bits + 7) / 8);  // little-endian on every target
        sink.write_bytes(buf, group_bytes(m));
        and_index += m;
    }
};

template <class Hash, class Source>
struct and_evaluator {
    const gate* gates;
    const Hash& hash;
    Source& source;
    gc::detail::label_array& label;
    std::uint64_t and_index;

    void group(std::uint32_t i, std::uint32_t m) {
        const std::uint8_t* t = source.read_bytes(group_bytes(m));
        std::uint64_t z = 0;
        std::memcpy(&z, t + row_bytes * m, (m * control_bits + 7) / 8);
        run_chunks(m, [&](auto q, std::uint32_t k0) {
            constexpr std::uint32_t Q = decltype(q)::value;
            block x[3 * Q], a[Q], b[Q];
            for (std::uint32_t k = 0; k < Q; ++k) {
                const gate& g = gates[i + k0 + k];
                a[k] = label[g.in0], b[k] = label[g.in1];
                x[3 * k] = a[k], x[3 * k + 1] = b[k], x[3 * k + 2] = a[k] ^ b[k];
            }
            hash.template hash<3 * Q, 1>(3 * (and_index + k0), x);
            for (std::uint32_t k = 0; k < Q; ++k) {
                const block h[3] = {x[3 * k], x[3 * k + 1], x[3 * k + 2]};
                label[gates[i + k0 + k].out] = evaluate_gate(
                    a[k], b[k], h, t + row_bytes * (k0 + k), static_cast<unsigned>(z >> (control_bits * (k0 + k))));
            }
        });
        and_index += m;
    }
};

}  // namespace detail

/// One worker's three-halves garbling engine: gc::garbler_core's twin (the
/// same walk of levels, regions and lockstep groups, gc::detail::step_runner),
/// with the dicing key (derived from Δ and S) besides Δ, writing bytes to its
/// sink. Made as gc::garbler_core is: (S, Δ, sink).
template <tweakable_hash Hash, byte_sink Sink>
class garbler_core final : public gc::detail::step_runner<garbler_core<Hash, Sink>> {
public:
    static constexpr bool quad_kernels = false;  // lockstep groups relocate their gates

    garbler_core(block hash_start, block delta, Sink& sink)
        : hash_(hash_start), offsets_(delta), dice_(dicing_key(hash_start, delta)), sink_(sink) {}

    void ands(const gate* gates, gc::detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) override {
        detail::and_garbler<Hash, Sink> a{gates, hash_, dice_, sink_, label, offsets_, first_and};
        detail::run_groups(begin, end, a);
    }
    block not_offset() const noexcept { return offsets_.d; }  // Δ: step_runner::linear
    void flush() override {
        if constexpr (requires { sink_.flush(); }) sink_.flush();
    }

private:
    Hash hash_;
    detail::offsets offsets_;  // Δ and the combinations of its halves
    dicing dice_;
    Sink& sink_;
};

/// The evaluator's counterpart, reading bytes from its source.
template <tweakable_hash Hash, byte_source Source>
class evaluator_core final : public gc::detail::step_runner<evaluator_core<Hash, Source>> {
public:
    static constexpr bool quad_kernels = false;

    evaluator_core(block hash_start, Source& source) : hash_(hash_start), source_(source) {}

    void ands(const gate* gates, gc::detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) override {
        detail::and_evaluator<Hash, Source> a{gates, hash_, source_, label, first_and};
        detail::run_groups(begin, end, a);
    }
    static block not_offset() noexcept { return block(); }
    void flush() override {}

private:
    Hash hash_;
    Source& source_;
};

/// Garbles c under a given encoding with three-halves (gc::garble's twin).
template <tweakable_hash Hash = rekeyed_hash, byte_sink Sink>
garbled_outputs garble(const circuit<>& circ, const encoding& input, block hash_start, Sink& sink,
                       std::uint64_t first_and = 0) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    gc::detail::check_labels(c, input.zero_labels.size(), "garble");
    if (!input.delta.lsb()) throw usage_error("garble: Δ must have lsb 1 (point-and-permute)");
    gc::detail::label_array label = gc::detail::input_slots(c, input.zero_labels);
    garbler_core<Hash, Sink> core(hash_start, input.delta, sink);
    const std::uint64_t end = gc::detail::run_all_steps(core, c, label, first_and);
    return gc::detail::finish_garbling(c, label, end - first_and);
}

/// Evaluates c from its three-halves tables (gc::evaluate's twin).
template <tweakable_hash Hash = rekeyed_hash, byte_source Source>
std::vector<block> evaluate(const circuit<>& circ, block hash_start, Source& source,
                            std::span<const block> input_labels, std::uint64_t first_and = 0) {
    tandem::detail::require_aes_instructions();
    const circuit_data& c = circ.data();
    gc::detail::check_labels(c, input_labels.size(), "evaluate");
    gc::detail::label_array label = gc::detail::input_slots(c, input_labels);
    evaluator_core<Hash, Source> core(hash_start, source);
    gc::detail::run_all_steps(core, c, label, first_and);
    return gc::detail::output_labels(c, label);
}

}  // namespace tandem::gc::three_halves

TANDEM_CRYPTO_END

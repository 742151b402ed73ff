// tandem/ot/spcot.hpp — single-point correlated OT from a GGM tree: the
// noise of a silent OT extension (ot/ferret.hpp).
//
// Ferret (Yang–Weng–Lan–Zhang–Wang, CCS 2020, ePrint 2020/924) Fig. 6,
// after Boyle–Couteau–Gilboa–Ishai–Kohl–Scholl (CCS 2019). The sender, who
// holds Δ, expands a random seed into a tree of 2^depth leaves v_j; the
// receiver, through one base COT per level, learns every leaf but the one
// at its secret point α, and gets w_α = v_α ⊕ Δ from the sender's
// c = Δ ⊕ ⊕_j v_j. Then w = v ⊕ e_α·Δ: 2^depth COTs whose choice vector is
// the unit vector at α.
//
// Level ℓ: the sender sums its even (left) and odd (right) nodes, S⁰ and S¹,
// and sends m_b = S^b ⊕ H(q ⊕ b·Δ) for level ℓ's base COT (q; the receiver
// holds t = q ⊕ b_ℓ·Δ and so opens S^{b_ℓ} alone). The receiver's point
// follows from its base choice bits: α's bit at level ℓ is ¬b_ℓ, so it
// learns the sum of the side off its path and rebuilds the one node there
// it lacks. H is the MITCCR hash (crypto/hash.hpp, circular correlation
// robust) with a tweak per base COT, never repeated in a session.
//
// The tree's PRG is G(x) = (π_L(x) ⊕ x, π_R(x) ⊕ x) with π_L, π_R AES under
// two keys drawn for each tree from a salt the sender chose: a fixed-key
// PRG in the ideal-permutation model whose bound holds per tree, not across
// every tree a deployment ever expands (as rekeyed_hash does for garbling).
//
// No branch and no memory address depends on α: the receiver expands its
// tree with a zero where it lacks a node (the garbage it spawns is summed
// and cancelled, see below) and writes each recovered node by a masked XOR
// over the level.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>

#include <cstddef>
#include <cstdint>

TANDEM_CRYPTO_BEGIN

namespace tandem::ot::detail {

/// The two permutations of one tree's PRG.
struct ggm_keys {
    aes_key left, right;

    /// Tree `tree`'s keys under the sender's salt key.
    ggm_keys(const aes_key& salt, std::uint64_t tree) noexcept
        : left(salt.encrypt(block(tree, 0))), right(salt.encrypt(block(tree, 1))) {}
};

/// The sums of a level's left and right nodes.
struct level_sums {
    block left, right;
};

/// Expands the `width` nodes nodes[0, width) into their children at
/// nodes[0, 2·width) in place (children of j at 2j, 2j + 1), first adding
/// `fix` to the node at `fix_at` (a masked XOR at every node: fix_at is
/// secret on the receiver's side; the sender passes a zero fix), and
/// keeping of each child the bits in `keep` (the leaves lose the bit that
/// carries the receiver's choice, ot/ferret.hpp). Returns the sums of the
/// new level's left and right nodes.
inline level_sums ggm_expand(const ggm_keys& keys, block* nodes, std::size_t width, std::size_t fix_at, block fix,
                             block keep) noexcept {
    constexpr std::size_t chunk = 64;
    block p[chunk], l[chunk], r[chunk];
    level_sums s{};
    // From the top down: parents [begin, end) write children [2·begin, 2·end),
    // never below any parent still to be read.
    for (std::size_t end = width; end > 0;) {
        const std::size_t begin = end > chunk ? end - chunk : 0;
        const std::size_t c = end - begin;
        for (std::size_t i = 0; i < c; ++i) p[i] = nodes[begin + i] ^ (fix & mask_of(begin + i == fix_at));
        keys.left.encrypt(p, l, c);
        keys.right.encrypt(p, r, c);
        for (std::size_t i = 0; i < c; ++i) {
            const block a = (l[i] ^ p[i]) & keep, b = (r[i] ^ p[i]) & keep;
            nodes[2 * (begin + i)] = a;
            nodes[2 * (begin + i) + 1] = b;
            s.left ^= a;
            s.right ^= b;
        }
        end = begin;
    }
    return s;
}

/// The sender's tree: 2^depth leaves from `seed` into leaves, each with
/// only the bits in `keep`, the sums of every level ℓ = 1..depth into
/// sums[ℓ − 1].
inline void ggm_sender_tree(const ggm_keys& keys, block seed, unsigned depth, block keep, block* leaves,
                            level_sums* sums) noexcept {
    leaves[0] = seed;
    for (unsigned level = 0; level < depth; ++level)
        sums[level] = ggm_expand(keys, leaves, std::size_t{1} << level, ~std::size_t{0}, block(),
                                 level + 1 == depth ? keep : mask_of(true));
}

/// The receiver's tree: every leaf but the one at α from the opened sums
/// opened[ℓ − 1] = S^{b_ℓ} of the sender's level ℓ (b_ℓ = choice[ℓ − 1],
/// 0 or 1), leaves[α] = the sender's leaf ⊕ Δ from c; the leaves keep the
/// bits in `keep`, as the sender's did. Returns α = the path of bits ¬b_ℓ,
/// most significant first.
///
/// Why the garbage cancels: the node the receiver lacks on its path holds
/// some value g; its children G_L, G_R land in the level's sums. The node
/// off the path on side b is S^b (opened) ⊕ every other side-b node, and
/// the side-b sum the receiver computed already contains G_b where that
/// node should be — so adding S^b ⊕ (its own side-b sum) to that slot
/// yields exactly the sender's node. The other child stays garbage: the
/// next path node. At the leaves the same holds for c: the leaf at α gets
/// c ⊕ (its sum of all leaves), replacing its garbage by v_α ⊕ Δ.
inline std::size_t ggm_receiver_tree(const ggm_keys& keys, const block* opened, const std::uint8_t* choice,
                                     unsigned depth, block keep, block c, block* leaves) noexcept {
    leaves[0] = block();  // the root is off limits: garbage like any path node
    std::size_t path = 0, fix_at = ~std::size_t{0};
    block fix{};
    level_sums s{};
    for (unsigned level = 0; level < depth; ++level) {
        s = ggm_expand(keys, leaves, std::size_t{1} << level, fix_at, fix, level + 1 == depth ? keep : mask_of(true));
        const std::size_t b = choice[level] & 1;
        const block side = (s.left & mask_of(b == 0)) ^ (s.right & mask_of(b != 0));
        fix = opened[level] ^ side;
        fix_at = 2 * path + b;
        path = 2 * path + (b ^ 1);
    }
    // The last level's fix (not yet applied), and α's: c ⊕ the sum of the
    // leaves as they will be (the fix changes one of them by `fix`).
    const block at_alpha = c ^ s.left ^ s.right ^ fix;
    const std::size_t n = std::size_t{1} << depth;
    for (std::size_t j = 0; j < n; ++j)
        leaves[j] = leaves[j] ^ (fix & mask_of(j == fix_at)) ^ (at_alpha & mask_of(j == path));
    return path;
}

}  // namespace tandem::ot::detail

TANDEM_CRYPTO_END

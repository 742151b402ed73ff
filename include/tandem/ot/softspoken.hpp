// tandem/ot/softspoken.hpp — correlated OT extension from small-field VOLE,
// semi-honest or with a consistency check that makes it secure against a
// malicious receiver.
//
// Roy, "SoftSpokenOT: Quieter OT Extension from Small-Field Silent VOLE in
// the Minicrypt Model", CRYPTO 2022 (IACR ePrint 2022/192), with the
// repetition code (the correlated-OT case). Same outputs as ot/iknp.hpp: the
// sender fixes Δ and gets q_i, the receiver with choice bit r_i gets
// t_i = q_i ⊕ r_i·Δ. IKNP is the case K = 1; K trades bandwidth for work:
// 128/K bits sent per OT, 2^K/K leaf streams per OT expanded.
//
// Δ is cut into 128/K pieces Δ_i of K bits; piece i is one small-field VOLE:
//   set-up: the receiver draws a GGM tree of depth K (AES as the PRF, node v
//     having children AES_v(0), AES_v(1)) whose 2^K leaves seed AES-CTR
//     streams r_x; through K base OTs (ot/base_ot.hpp) the sender learns
//     every leaf but r_{Δ_i} (a punctured key: at level ℓ the sender picks
//     the ⊕ of all level-ℓ children on the side off Δ_i's path, through base
//     OT ℓ of the piece, with the receiver's correction e_b = S_b ⊕ m_b).
//   per block of 128 OTs: receiver U_i = ⊕_x r_x and row b of the piece
//     V_{i,b} = ⊕_{x: bit b of x} r_x; it sends the column c_i = U_i ⊕ r.
//     Sender W_{i,b} = ⊕_{x ≠ Δ_i: bit b of x ⊕ Δ_i} r_x = V_{i,b} ⊕ Δ_{i,b}·U_i
//     (the missing leaf is exactly the one this sum skips), and
//     W_{i,b} ⊕ Δ_{i,b}·c_i = V_{i,b} ⊕ Δ_{i,b}·r.
// The 128 rows V (receiver) and W ⊕ Δ·c (sender) are IKNP's matrices; the
// transpose gives t_i and q_i = t_i ⊕ r_i·Δ. The sender keeps its leaves
// indexed by y = x ⊕ Δ_i (permuted once, without branches), so both parties
// run the same loop over public indices and no memory access depends on Δ.
//
// Malicious (security::malicious): a cheating receiver could send columns c_i
// that do not all hide one choice vector r and so learn bits of Δ. The check
// is SoftSpokenOT's malicious subspace-VOLE check (ePrint 2022/192; the fix KOS
// adopted, ePrint 2015/546 rev. 2022, Fig. 10): on the matrices before the
// transpose, a universal hash over GF(2^128) (crypto/gf128.hpp) of every row
// and of the choice bits: t̃_b = Σ_j χ_j·V_b[j] + V_b[mask], x̃ = Σ_j χ_j·r[j]
// + r[mask]; the sender accepts iff Σ_j χ_j·Q_b[j] + Q_b[mask] = t̃_b ⊕ Δ_b·x̃
// for all 128 rows. One extra block of 128 OTs with random choices per
// extend() (`mask`, never output) hides r. The χ_j of each chunk of 8192 OTs
// come from a seed the sender draws after that chunk's columns arrived, so
// the receiver has committed to them; the receiver hashes a chunk when its
// seed arrives, one chunk behind, so neither side waits on a round trip.
// Summing the chunks' hashes is as sound as one hash over everything: a
// deviation in a chunk meets a χ drawn after it was sent, so a later chunk,
// made knowing earlier seeds, cannot cancel it but with probability 2^-128.
// A failed check is a tandem::security_error. What a cheater can still do —
// guess a few bits of Δ at the price of being caught with the complementary
// probability — is the selective failure every such check permits (a guess
// of K bits of Δ succeeds with probability 2^-K); its outputs are then
// correct COTs with that leakage (ePrint 2022/192). The base OTs run in
// the same mode: endemic OT, secure against a malicious sender or receiver,
// in malicious mode (ot/base_ot.hpp).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/gf128.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/lanes.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/base_ot.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/security.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

namespace detail {

/// A GGM tree node's two children: AES keyed by the node, at 0 and 1.
inline void ggm_children(block node, block& left, block& right) noexcept {
    const aes_key key(node);
    block b[2] = {block(0, 0), block(0, 1)};
    key.encrypt(b, 2);
    left = b[0];
    right = b[1];
}

/// The buffers of one chunk (as iknp_buffers, one block longer: the mask).
struct softspoken_buffers {
    std::vector<block> matrix;  // 128 rows of row_stride blocks, then 128 blocks of scratch for a partial tile
    std::vector<block> column;  // a correction column
    std::vector<block> bits;    // the receiver's choice bits
    std::vector<block> chi;     // the challenge χ_j of the chunk
    std::vector<block> counters;  // the chunk's counter blocks, shared by every leaf stream

    block* row(std::size_t j) noexcept { return matrix.data() + j * row_stride; }
    void ensure() {
        if (!matrix.empty()) return;
        static_assert(row_stride >= chunk_blocks + 1, "the mask block fits in a row");
        matrix.resize(128 * row_stride + 128);
        column.resize(chunk_blocks + 1);
        bits.resize(chunk_blocks + 1);
        chi.resize(chunk_blocks);
        counters.resize(chunk_blocks + 1);
    }
    void wipe() noexcept {
        tandem::detail::wipe_all(matrix);
        tandem::detail::wipe_all(column);
        tandem::detail::wipe_all(bits);
    }
};

/// How many registers of blocks the leaf kernel keeps per leaf: K rows of
/// accumulators of that many registers must fit beside the AES state.
template <std::size_t K>
inline constexpr std::size_t leaf_registers = K <= 4 ? 2 : 1;

/// Rows b < K of one piece for blocks [i, nb) in steps of W registers of
/// lanes L: row b = ⊕ of the streams AES_{key_y}(counter) of leaves
/// y ∈ [first, 2^K) with bit b of y set (keys[y − first]); `sum`, unless
/// null, gets the ⊕ of all of them. Each leaf's output stays in registers
/// and goes straight into the accumulators. Leaf indices are public.
/// Returns where it stopped (the blocks left are fewer than one step).
template <class L, std::size_t K, std::size_t W>
[[gnu::always_inline]] inline std::size_t leaf_rows_lanes(const aes_key* keys, std::size_t first, const block* counters,
                                                          std::size_t i, std::size_t nb, block* const (&rows)[K],
                                                          block* sum) noexcept {
    using vec = typename L::vec;
    constexpr std::size_t step = W * L::width;
    for (; i + step <= nb; i += step) {
        vec ctr[W], acc[K][W], total[W];
        TANDEM_UNROLL
        for (std::size_t j = 0; j < W; ++j) {
            L::load(ctr[j], counters + i + j * L::width);
            L::broadcast(total[j], block());
            TANDEM_UNROLL
            for (std::size_t b = 0; b < K; ++b) L::broadcast(acc[b][j], block());
        }
        for (std::size_t y = first; y < (std::size_t{1} << K); ++y) {
            const block* round = keys[y - first].round.data();
            vec k, s[W];
            L::broadcast(k, round[0]);
            TANDEM_UNROLL
            for (std::size_t j = 0; j < W; ++j) {
                s[j] = ctr[j];
                L::xor_into(s[j], k);
            }
            TANDEM_UNROLL
            for (int r = 1; r < 10; ++r) {
                L::broadcast(k, round[r]);
                TANDEM_UNROLL
                for (std::size_t j = 0; j < W; ++j) L::aesenc(s[j], k);
            }
            L::broadcast(k, round[10]);
            TANDEM_UNROLL
            for (std::size_t j = 0; j < W; ++j) {
                L::aesenclast(s[j], k);
                L::xor_into(total[j], s[j]);
            }
            TANDEM_UNROLL
            for (std::size_t b = 0; b < K; ++b)
                if ((y >> b) & 1) {
                    TANDEM_UNROLL
                    for (std::size_t j = 0; j < W; ++j) L::xor_into(acc[b][j], s[j]);
                }
        }
        TANDEM_UNROLL
        for (std::size_t j = 0; j < W; ++j) {
            if (sum != nullptr) L::store(sum + i + j * L::width, total[j]);
            TANDEM_UNROLL
            for (std::size_t b = 0; b < K; ++b) L::store(rows[b] + i + j * L::width, acc[b][j]);
        }
    }
    return i;
}

}  // namespace detail

}  // namespace tandem::ot

TANDEM_CRYPTO_END

#if TANDEM_X86
TANDEM_VAES_BEGIN
namespace tandem::ot::detail::vaes {
/// Four blocks per instruction.
template <std::size_t K>
inline std::size_t leaf_rows(const aes_key* keys, std::size_t first, const block* counters, std::size_t nb,
                             block* const (&rows)[K], block* sum) noexcept {
    return leaf_rows_lanes<tandem::detail::lanes512, K, leaf_registers<K>>(keys, first, counters, 0, nb, rows, sum);
}
}  // namespace tandem::ot::detail::vaes
TANDEM_VAES_END

TANDEM_VAES256_BEGIN
namespace tandem::ot::detail::vaes256 {
/// Two blocks per instruction.
template <std::size_t K>
inline std::size_t leaf_rows(const aes_key* keys, std::size_t first, const block* counters, std::size_t nb,
                             block* const (&rows)[K], block* sum) noexcept {
    return leaf_rows_lanes<tandem::detail::lanes256, K, leaf_registers<K>>(keys, first, counters, 0, nb, rows, sum);
}
}  // namespace tandem::ot::detail::vaes256
TANDEM_VAES256_END
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

namespace detail {

/// The K rows of one piece over blocks [0, nb) of a chunk (leaf_rows_lanes),
/// in the widest instruction set this CPU runs.
template <std::size_t K>
inline void leaf_rows(const aes_key* keys, std::size_t first, const block* counters, std::size_t nb,
                      block* const (&rows)[K], block* sum) noexcept {
    std::size_t i = 0;
#if TANDEM_X86
    const aes_isa isa = tandem::detail::choose_aes_isa();
    if (isa == aes_isa::vaes) i = vaes::leaf_rows<K>(keys, first, counters, nb, rows, sum);
    if (isa == aes_isa::vaes256) i = vaes256::leaf_rows<K>(keys, first, counters, nb, rows, sum);
#endif
    using L = tandem::detail::lanes128;
    i = leaf_rows_lanes<L, K, leaf_registers<K>>(keys, first, counters, i, nb, rows, sum);
    leaf_rows_lanes<L, K, 1>(keys, first, counters, i, nb, rows, sum);
}

/// The parameters both sides must share, sent by the receiver first.
inline std::uint32_t softspoken_parameters(std::size_t k, bool checked) noexcept {
    return static_cast<std::uint32_t>(k) | (checked ? 0x100u : 0u) | 0x55000000u;
}

/// Per extend() of the malicious variant: 128 row hashes, then the choices'.
using check_sums = std::array<gf128::accumulator, 129>;

}  // namespace detail

/// The SoftSpoken COT sender (holds Δ, the garbler): models correlated_ot_sender.
template <std::size_t K = 4>
class softspoken_sender {
    static_assert(K >= 1 && K <= 8 && 128 % K == 0, "SoftSpokenOT's K divides 128 (1, 2, 4 or 8)");
    static constexpr std::size_t pieces = 128 / K;
    static constexpr std::size_t leaves = std::size_t{1} << K;

public:
    /// Runs the 128 base OTs (as their receiver) and receives the punctured
    /// GGM keys. The peer constructs a softspoken_receiver<K> with the same
    /// `mode` on the same channel at the same time. `rng`: as cot_sender's
    /// (nullptr: the operating system's randomness).
    softspoken_sender(net::channel& ch, block delta, security mode = security::semi_honest, prg* rng = nullptr)
        : delta_(delta), checked_(mode == security::malicious), challenge_key_(rng ? rng->next() : os_random_block()) {
        tandem::detail::require_aes_instructions();
        if (tandem::detail::declassified(delta == block()))
            throw usage_error("ot::softspoken_sender: delta must not be zero");
        const auto peer = ch.recv_value<std::uint32_t>();
        if (peer != detail::softspoken_parameters(K, checked_))
            throw protocol_error("SoftSpoken OT: the receiver runs " + describe(peer) + ", this party " +
                                 describe(detail::softspoken_parameters(K, checked_)) +
                                 " (mismatched configuration or not a tandem peer)");
        std::array<std::uint8_t, 128> choices;  // base OT ℓ of piece i picks the side off Δ_i's path
        for (std::size_t j = 0; j < 128; ++j) choices[j] = static_cast<std::uint8_t>(detail::bit_of(delta_, j) ^ 1);
        std::array<block, 128> got;
        base_ot_receive(ch, choices, got, rng, mode);
        std::vector<block> corrections(pieces * (K - 1) * 2);
        ch.recv(corrections.data(), corrections.size() * sizeof(block));

        keys_.reserve(pieces * (leaves - 1));
        for (std::size_t i = 0; i < pieces; ++i) puncture(i, got.data() + i * K, corrections.data() + i * (K - 1) * 2);
        tandem::detail::mark_secret(keys_.data(), keys_.size() * sizeof(aes_key));
        tandem::detail::wipe(choices.data(), sizeof choices);
        tandem::detail::wipe(got.data(), sizeof got);
    }
    softspoken_sender(const softspoken_sender&) = delete;
    softspoken_sender& operator=(const softspoken_sender&) = delete;
    softspoken_sender(softspoken_sender&&) noexcept = default;
    softspoken_sender& operator=(softspoken_sender&&) = delete;
    ~softspoken_sender() {
        tandem::detail::wipe(&delta_, sizeof delta_);
        tandem::detail::wipe_all(keys_);
        tandem::detail::wipe(&challenge_key_, sizeof challenge_key_);
        buf_.wipe();
    }

    block delta() const noexcept { return delta_; }

    /// q.size() new COTs: q[i] such that the receiver's t_i = q[i] ⊕ r_i·Δ.
    /// Malicious mode: throws security_error when the receiver's columns fail
    /// the check (q is then unusable).
    void extend(net::channel& ch, std::span<block> q) {
        const std::size_t m = q.size();
        const auto peer_m = ch.recv_value<std::uint64_t>();
        if (peer_m != m)
            throw protocol_error("COT extension: the receiver asks for " + std::to_string(peer_m) +
                                 " OTs, the sender for " + std::to_string(m) + " (the parties run different programs?)");
        if (m == 0) return;
        buf_.ensure();
        detail::check_sums sums{};
        for (std::size_t done = 0; done < m; done += detail::chunk_ots) {
            const std::size_t n = std::min(m - done, detail::chunk_ots);
            const std::size_t nb = (n + 127) / 128;
            const bool last = done + n == m;
            const std::size_t blocks = nb + (checked_ && last ? 1 : 0);  // the mask block ends the last chunk
            const std::size_t column_bytes = checked_ ? blocks * sizeof(block) : (n + 7) / 8;
            block* u = buf_.column.data();
            u[nb - 1] = block();  // the padding of a trimmed column
            detail::counter_blocks(counter_, buf_.counters.data(), blocks);
            for (std::size_t i = 0; i < pieces; ++i) {
                block* rows[K];
                for (std::size_t b = 0; b < K; ++b) rows[b] = buf_.row(i * K + b);
                detail::leaf_rows<K>(keys_.data() + i * (leaves - 1), 1, buf_.counters.data(), blocks, rows, nullptr);
                ch.recv(u, column_bytes);
                for (std::size_t b = 0; b < K; ++b) {
                    const block mask = mask_of(detail::bit_of(delta_, i * K + b) != 0);  // no branch on Δ
                    for (std::size_t k = 0; k < blocks; ++k) rows[b][k] = rows[b][k] ^ (u[k] & mask);
                }
            }
            counter_ += blocks;
            if (checked_) {
                // The challenge of this chunk, now that its columns are in.
                const block seed = challenge_key_.encrypt(block(0, challenges_++));
                ch.send_value(seed);
                ch.flush();
                detail::expand(aes_key(seed), 0, buf_.chi.data(), nb);
                gf128::multiply_add_rows(buf_.chi.data(), nb, buf_.matrix.data(), detail::row_stride, 128, sums.data());
                if (last)
                    for (std::size_t r = 0; r < 128; ++r) gf128::add(sums[r], buf_.row(r)[nb]);
            }
            detail::transpose_tiles(buf_.matrix.data(), buf_.matrix.data() + 128 * detail::row_stride, nb,
                                    q.data() + done, n);
        }
        if (checked_) verify(ch, sums);
    }

private:
    static std::string describe(std::uint32_t p) {
        if ((p & 0xFF000000u) != 0x55000000u) return "something else";
        return "SoftSpoken K=" + std::to_string(p & 0xFF) + ((p & 0x100) ? " malicious" : " semi-honest");
    }

    /// The sender's leaves of piece i from its K base-OT keys and the
    /// receiver's corrections, stored as keys of leaves y = x ⊕ Δ_i, y ≥ 1.
    /// Every step runs the same way for every Δ: the unknown node's place
    /// is selected with masks, not indices.
    void puncture(std::size_t i, const block* got, const block* corrections) {
        unsigned d = 0;  // Δ_i, secret
        for (std::size_t b = 0; b < K; ++b) d |= detail::bit_of(delta_, i * K + b) << b;
        std::array<block, leaves> nodes{}, next{};
        nodes[0] = got[0] & mask_of((d & 1) == 1);  // level 1: the node off the path, ¬d_0, is known
        nodes[1] = got[0] & mask_of((d & 1) == 0);
        for (std::size_t level = 1; level < K; ++level) {
            const std::size_t width = std::size_t{1} << level;
            const unsigned path = d & static_cast<unsigned>(width - 1);  // the unknown node of this level
            const bool side = ((d >> level) & 1) == 0;                  // the child side off the path
            const block* e = corrections + (level - 1) * 2;
            block missing = ((e[0] & mask_of(!side)) ^ (e[1] & mask_of(side))) ^ got[level];
            for (std::size_t p = 0; p < width; ++p) {
                block left, right;
                detail::ggm_children(nodes[p], left, right);
                const block known = mask_of(p != path);
                next[p] = left & known;
                next[p + width] = right & known;
                missing = missing ^ (((left & mask_of(!side)) ^ (right & mask_of(side))) & known);
            }
            const std::size_t target = path | (static_cast<std::size_t>(side) << level);
            for (std::size_t x = 0; x < 2 * width; ++x) next[x] = next[x] ^ ((next[x] ^ missing) & mask_of(x == target));
            nodes = next;
        }
        for (std::size_t y = 1; y < leaves; ++y) {
            block leaf;
            for (std::size_t x = 0; x < leaves; ++x) leaf = leaf ^ (nodes[x] & mask_of(x == (y ^ d)));
            keys_.emplace_back(leaf);
            tandem::detail::wipe(&leaf, sizeof leaf);
        }
        tandem::detail::wipe(nodes.data(), sizeof nodes);
        tandem::detail::wipe(next.data(), sizeof next);
        tandem::detail::wipe(&d, sizeof d);
    }

    void verify(net::channel& ch, const detail::check_sums& sums) {
        std::array<block, 129> claimed;  // x̃, then t̃ of each row
        ch.recv(claimed.data(), sizeof claimed);
        block bad;
        for (std::size_t r = 0; r < 128; ++r) {
            const block mask = mask_of(detail::bit_of(delta_, r) != 0);
            bad = bad | (gf128::reduce(sums[r]) ^ claimed[1 + r] ^ (claimed[0] & mask));
        }
        // Whether the check passed is public: the run goes on or ends.
        if (tandem::detail::declassified(!(bad == block())))
            throw security_error(
                "OT extension (SoftSpoken, malicious mode): the consistency check of the receiver's correction "
                "columns failed — the peer cheated or the stream was altered. The run is aborted; no output of it "
                "may be used");
    }

    block delta_;
    bool checked_;
    aes_key challenge_key_;                // the seeds of the χ of each chunk
    std::uint64_t challenges_ = 0;
    std::vector<aes_key> keys_;            // piece i's leaves y = 1 .. 2^K − 1 at i·(2^K − 1) + y − 1
    std::uint64_t counter_ = 0;            // next AES-CTR block of every leaf stream
    detail::softspoken_buffers buf_;
};

/// The SoftSpoken COT receiver (chooses r_i, the evaluator): models
/// correlated_ot_receiver.
template <std::size_t K = 4>
class softspoken_receiver {
    static_assert(K >= 1 && K <= 8 && 128 % K == 0, "SoftSpokenOT's K divides 128 (1, 2, 4 or 8)");
    static constexpr std::size_t pieces = 128 / K;
    static constexpr std::size_t leaves = std::size_t{1} << K;

public:
    /// Runs the 128 base OTs (as their sender) and sends the GGM corrections.
    explicit softspoken_receiver(net::channel& ch, security mode = security::semi_honest, prg* rng = nullptr)
        : checked_(mode == security::malicious), mask_key_(rng ? rng->next() : os_random_block()) {
        tandem::detail::require_aes_instructions();
        ch.send_value(detail::softspoken_parameters(K, checked_));
        std::array<std::array<block, 2>, 128> pairs;
        base_ot_send(ch, pairs, rng, mode);
        std::vector<block> corrections;
        corrections.reserve(pieces * (K - 1) * 2);
        keys_.reserve(pieces * leaves);
        for (std::size_t i = 0; i < pieces; ++i) {
            std::array<block, leaves> nodes{}, next{};
            nodes[0] = pairs[i * K][0];
            nodes[1] = pairs[i * K][1];
            for (std::size_t level = 1; level < K; ++level) {
                const std::size_t width = std::size_t{1} << level;
                block sum[2];
                for (std::size_t p = 0; p < width; ++p) {
                    detail::ggm_children(nodes[p], next[p], next[p + width]);
                    sum[0] = sum[0] ^ next[p];
                    sum[1] = sum[1] ^ next[p + width];
                }
                corrections.push_back(sum[0] ^ pairs[i * K + level][0]);
                corrections.push_back(sum[1] ^ pairs[i * K + level][1]);
                nodes = next;
            }
            for (const block& leaf : nodes) keys_.emplace_back(leaf);
            tandem::detail::wipe(nodes.data(), sizeof nodes);
            tandem::detail::wipe(next.data(), sizeof next);
        }
        tandem::detail::mark_secret(keys_.data(), keys_.size() * sizeof(aes_key));
        tandem::detail::wipe(pairs.data(), sizeof pairs);
        ch.send(corrections.data(), corrections.size() * sizeof(block));
        ch.flush();
    }
    softspoken_receiver(const softspoken_receiver&) = delete;
    softspoken_receiver& operator=(const softspoken_receiver&) = delete;
    softspoken_receiver(softspoken_receiver&&) noexcept = default;
    softspoken_receiver& operator=(softspoken_receiver&&) = delete;
    ~softspoken_receiver() {
        tandem::detail::wipe_all(keys_);
        tandem::detail::wipe(&mask_key_, sizeof mask_key_);
        for (auto& b : buf_) b.wipe();
    }

    /// choices.size() new COTs with choice bits choices[i] ∈ {0, 1}; t.size()
    /// must equal choices.size(). Flushes the channel before returning.
    void extend(net::channel& ch, std::span<const std::uint8_t> choices, std::span<block> t) {
        run(ch, t, detail::unpacked_choices("ot::softspoken_receiver::extend", choices, t.size()));
    }

    /// The same with packed choice bits: bit i (bit i%8 of byte i/8) is r_i;
    /// choice_bits.size() must be (t.size() + 7) / 8.
    void extend_packed(net::channel& ch, std::span<const std::uint8_t> choice_bits, std::span<block> t) {
        run(ch, t, detail::packed_choices("ot::softspoken_receiver::extend_packed", choice_bits, t.size()));
    }

private:
    template <class Pack>
    void run(net::channel& ch, std::span<block> t, Pack pack) {
        const std::size_t m = t.size();
        ch.send_value<std::uint64_t>(m);
        if (m == 0) {
            ch.flush();
            return;
        }
        buf_[0].ensure();
        if (checked_) buf_[1].ensure();
        detail::check_sums sums{};
        std::size_t chunk = 0, previous_nb = 0;
        for (std::size_t done = 0; done < m; done += detail::chunk_ots, ++chunk) {
            detail::softspoken_buffers& buf = buf_[checked_ ? chunk % 2 : 0];
            const std::size_t n = std::min(m - done, detail::chunk_ots);
            const std::size_t nb = (n + 127) / 128;
            const bool last = done + n == m;
            const std::size_t blocks = nb + (checked_ && last ? 1 : 0);
            const std::size_t column_bytes = checked_ ? blocks * sizeof(block) : (n + 7) / 8;
            block* r = buf.bits.data();
            pack(done, n, r, nb);
            if (blocks > nb) r[nb] = mask_key_.encrypt(block(0, masks_++));  // random choices of the mask block
            block* u = buf.column.data();
            detail::counter_blocks(counter_, buf.counters.data(), blocks);
            for (std::size_t i = 0; i < pieces; ++i) {
                block* rows[K];
                for (std::size_t b = 0; b < K; ++b) rows[b] = buf.row(i * K + b);
                detail::leaf_rows<K>(keys_.data() + i * leaves, 0, buf.counters.data(), blocks, rows, u);
                for (std::size_t k = 0; k < blocks; ++k) u[k] = u[k] ^ r[k];
                ch.send(u, column_bytes);
            }
            counter_ += blocks;
            ch.flush();  // the sender works on this chunk (and sends its challenge) while the next is made
            detail::transpose_tiles(buf.matrix.data(), buf.matrix.data() + 128 * detail::row_stride, nb,
                                    t.data() + done, n);
            if (checked_ && chunk > 0) hash_chunk(ch, buf_[(chunk - 1) % 2], previous_nb, false, sums);
            previous_nb = nb;
        }
        if (checked_) {
            hash_chunk(ch, buf_[(chunk - 1) % 2], previous_nb, true, sums);
            std::array<block, 129> claimed;
            claimed[0] = gf128::reduce(sums[128]);
            for (std::size_t r = 0; r < 128; ++r) claimed[1 + r] = gf128::reduce(sums[r]);
            ch.send(claimed.data(), sizeof claimed);
        }
        ch.flush();
    }

    /// Adds a chunk's rows and choices, hashed under the challenge the sender
    /// sent for it, to the sums; the last chunk's mask block goes in as is.
    static void hash_chunk(net::channel& ch, detail::softspoken_buffers& buf, std::size_t nb, bool last,
                           detail::check_sums& sums) {
        const block seed = ch.recv_value<block>();
        detail::expand(aes_key(seed), 0, buf.chi.data(), nb);
        gf128::multiply_add_rows(buf.chi.data(), nb, buf.matrix.data(), detail::row_stride, 128, sums.data());
        gf128::multiply_add_rows(buf.chi.data(), nb, buf.bits.data(), 0, 1, sums.data() + 128);
        if (last) {
            for (std::size_t r = 0; r < 128; ++r) gf128::add(sums[r], buf.row(r)[nb]);
            gf128::add(sums[128], buf.bits[nb]);
        }
    }

    bool checked_;
    aes_key mask_key_;  // the mask blocks' random choices
    std::uint64_t masks_ = 0;
    std::vector<aes_key> keys_;  // piece i's leaves x = 0 .. 2^K − 1 at i·2^K + x
    std::uint64_t counter_ = 0;
    std::array<detail::softspoken_buffers, 2> buf_;  // malicious: the chunk being made and the one awaiting its challenge
};

static_assert(correlated_ot_sender<softspoken_sender<4>>);
static_assert(correlated_ot_receiver<softspoken_receiver<4>>);

}  // namespace tandem::ot

TANDEM_CRYPTO_END

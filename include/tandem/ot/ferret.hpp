// tandem/ot/ferret.hpp — silent correlated OT: an LPN-based extension that
// sends under half a bit per COT, secure against a malicious peer.
//
// Yang–Weng–Lan–Zhang–Wang, "Ferret: Fast Extension for coRRElated oT with
// small communication", CCS 2020 (ePrint 2020/924), with regular noise. The
// same outputs as ot/iknp.hpp and ot/softspoken.hpp: the sender fixes Δ and
// gets q_i, the receiver gets r_i and t_i = q_i ⊕ r_i·Δ — here with random
// r_i (extend_random), or chosen ones for one more bit per OT (extend).
//
// A round turns a base of COTs into n new ones (ot/lpn.hpp): k of the base
// are the LPN secret, t·depth run t single-point COTs (ot/spcot.hpp) that
// make the regular noise, and the outputs are the code applied to the
// secret plus the noise. Each round's first outputs are the next round's
// base, so after one set-up the extension is self-sustaining: the first
// base comes from SoftSpoken OT (ot/softspoken.hpp, K = 4), through a
// smaller set-up round, all in the constructor. Only the GGM trees' level
// messages cross the wire: 2·depth + 1 blocks per 2^depth outputs.
//
// A round runs in batches of about 2^18 outputs (4 MiB of blocks), so the
// extension's memory is a round's base twice (this one's and the next's:
// 7.5 MiB each in the steady round) and one batch, not a round's 160 MiB.
//
// The receiver's choice bit of each COT travels in the COT itself, in bit
// p = ferret_config::choice_bit: Δ has that bit set and the sender clears
// it in every q (its base, and every leaf of its trees), so t = q ⊕ r·Δ
// has r there. The code and the trees are linear, so this holds through
// every round with no table of bits beside the blocks: the code's random
// reads fetch a row's choice with its block (ten fewer loads per output).
//
// Malicious security (security::malicious). The receiver sends nothing in a
// round but its side of the check, so a cheating receiver gains nothing;
// the base COTs (SoftSpoken's checked set-up) bind its choices. A cheating
// sender could send level sums or a c that do not match its tree and Δ,
// corrupting outputs at places that depend on the receiver's noise points.
// Each batch is checked before any of its outputs is used (Ferret §4, Fig.
// 7, the check of its single-point COTs, over all trees of the batch at
// once): as soon as the sender's messages arrive the receiver draws the
// seed of χ_i ∈ GF(2^128), one per leaf, and sends it with
// x' = Σ χ_i·e_i ⊕ x = Σ_j χ_{α_j} ⊕ x, masked by the choices x of 128
// COTs kept for it (z_b = y_b ⊕ x_b·Δ) — it needs only its noise points, so
// the sender hashes its leaves while the receiver builds its trees. The
// sender answers H(V), V = Σ χ_i·v_i ⊕ Σ_b X^b·(y_b ⊕ x'_b·Δ), and the
// receiver accepts iff it equals H(W), W = Σ χ_i·w_i ⊕ Σ_b X^b·z_b. An
// honest pair gives V = W; a deviation passes with probability about
// 2^-128 but for the selective failure every such check allows — the
// sender learns whether a guess about a noise point was right, at the
// price of being caught otherwise — which Ferret's parameters account for
// (§4: LPN with that leakage). A batch's check is masked by 128 COTs from
// the batch before it (already checked), a round's first by 128 of the
// base. H is BLAKE2b (libsodium), a commitment: neither party learns the
// other's V or W, which a cheater could otherwise use against Δ or α. A
// failed check is a security_error naming the step.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/gf128.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/sodium.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/ot/lpn.hpp>
#include <tandem/ot/softspoken.hpp>
#include <tandem/ot/spcot.hpp>
#include <tandem/security.hpp>

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

/// A silent extension's shape: its set-up and steady LPN rounds and the
/// outputs of one checked batch. Both parties must use the same; the
/// default is the secure one (anything else is for tests).
struct ferret_config {
    lpn_parameters setup = ferret_setup;
    lpn_parameters main = ferret_main;
    std::size_t batch_leaves = std::size_t{1} << 18;
    /// The bit of every COT that carries the receiver's choice: the sender's
    /// Δ must have it set (a garbler's Δ has bit 0 set: the default).
    unsigned choice_bit = 0;

    friend constexpr bool operator==(const ferret_config&, const ferret_config&) = default;
};

namespace detail {

inline std::size_t batch_trees(const lpn_parameters& p, std::size_t batch_leaves) noexcept {
    return std::max<std::size_t>(1, batch_leaves >> p.depth);
}

/// The outputs a round hands on (to the next base and the user): n less
/// the 128 kept from each batch but the last to mask the next one's check.
inline std::size_t round_outputs(const lpn_parameters& p, std::size_t batch_leaves) noexcept {
    const std::size_t per = batch_trees(p, batch_leaves);
    return p.n - 128 * ((p.t + per - 1) / per - 1);
}

/// Throws usage_error unless a round of each kind is well formed and each
/// makes at least the next one's base.
inline void validate(const ferret_config& c) {
    for (const lpn_parameters* p : {&c.setup, &c.main}) {
        const char* which = p == &c.setup ? "set-up" : "main";
        if (p->depth < 2 || p->depth > 24 || p->t == 0 || p->n != (p->t << p->depth) || p->k == 0 ||
            p->k > std::uint32_t(-1))
            throw usage_error(std::string("ot::ferret_config: the ") + which +
                              " round must have n = t·2^depth, 2 ≤ depth ≤ 24, 0 < k < 2^32");
        if (batch_trees(*p, c.batch_leaves) * p->leaves() < 256)
            throw usage_error("ot::ferret_config: a batch must hold at least 256 outputs");
    }
    if (c.choice_bit > 127) throw usage_error("ot::ferret_config: choice_bit is a bit of a block (0 to 127)");
    if (round_outputs(c.setup, c.batch_leaves) < c.main.base())
        throw usage_error("ot::ferret_config: the set-up round makes fewer COTs than the main round's base needs");
    if (round_outputs(c.main, c.batch_leaves) <= c.main.base())
        throw usage_error("ot::ferret_config: the main round makes no more COTs than its own base needs");
}

/// What the receiver sends first and the sender checks: every choice both
/// must share.
using ferret_handshake = std::array<std::uint64_t, 12>;

inline ferret_handshake handshake_of(const ferret_config& c, bool checked) noexcept {
    return {0x74666572726574'01ULL,  // "tferret", version 1
            checked ? 1u : 0u,       c.setup.n, c.setup.k, c.setup.t, c.setup.depth,
            c.main.n,                c.main.k,  c.main.t,  c.main.depth, c.batch_leaves, c.choice_bit};
}

inline std::string describe(const ferret_handshake& h) {
    if ((h[0] >> 8) != 0x74666572726574ULL) return "something other than tandem's silent OT";
    return std::string("silent OT ") + (h[1] ? "malicious" : "semi-honest") + ", main round n=" +
           std::to_string(h[6]) + " k=" + std::to_string(h[7]) + " t=" + std::to_string(h[8]) +
           ", set-up round n=" + std::to_string(h[2]) + " k=" + std::to_string(h[3]) + " t=" + std::to_string(h[4]) +
           ", batches of " + std::to_string(h[10]) + " leaves, choices in bit " + std::to_string(h[11]);
}

/// X^b in GF(2^128): the block with bit b set.
inline block monomial(std::size_t b) noexcept {
    return b < 64 ? block(0, std::uint64_t{1} << b) : block(std::uint64_t{1} << (b - 64), 0);
}

using check_digest = std::array<std::uint8_t, 32>;

/// The commitment H(V) of the check.
inline check_digest digest_of(block v) {
    static constexpr char domain[] = "tandem ferret single-point check";
    tandem::detail::require_sodium();
    crypto_generichash_state st;
    crypto_generichash_init(&st, nullptr, 0, sizeof(check_digest));
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(domain), sizeof domain - 1);
    unsigned char bytes[16];
    v.store(bytes);
    crypto_generichash_update(&st, bytes, sizeof bytes);
    check_digest out;
    crypto_generichash_final(&st, out.data(), out.size());
    tandem::detail::wipe(bytes, sizeof bytes);
    return out;
}

/// The count of an extend (and whether its choices are chosen), which the
/// receiver sends so that mismatched programs fail with a clear error
/// rather than a desynchronised stream.
inline std::uint64_t extend_word(std::size_t m, bool chosen) noexcept { return (std::uint64_t{m} << 1) | chosen; }

inline void check_extend_word(std::uint64_t peer, std::size_t m, bool chosen) {
    if (peer == extend_word(m, chosen)) return;
    auto what = [](std::uint64_t w) {
        return std::to_string(w >> 1) + ((w & 1) ? " COTs with chosen choices" : " random COTs");
    };
    throw protocol_error("silent OT: the receiver asks for " + what(peer) + ", the sender for " +
                         what(extend_word(m, chosen)) + " (the parties run different programs?)");
}

/// The parts both sides of the extension keep alike: the round, its base,
/// the next round's base as it fills, and the batch being handed out.
struct ferret_state {
    ferret_config config;
    lpn_parameters round_params{};
    std::uint64_t round = 0;        // the LPN code's stream (0: the set-up round)
    std::size_t tree = 0;           // the round's next tree
    std::uint64_t trees_before = 0;  // trees of earlier rounds: each tree's PRG keys
    std::uint64_t tweak = 0;        // the level OTs' hash tweaks
    std::size_t next_filled = 0;
    std::size_t ready_begin = 0, ready_end = 0;
    // The bases are read at random (the code's rows): big_vectors, mapped in
    // huge pages, so those reads do not each miss the TLB.
    tandem::detail::big_vector<block> base, next, batch;
    std::vector<block> mask;  // the 128 COTs of the next check

    explicit ferret_state(const ferret_config& c) : config(c), round_params(c.setup) {
        validate(c);
        std::size_t largest = 0;
        for (const lpn_parameters* p : {&c.setup, &c.main})
            largest = std::max(largest, batch_trees(*p, c.batch_leaves) * p->leaves());
        batch.resize(largest);
        base.resize(c.setup.base());
        next.resize(c.main.base());
        mask.resize(128);
    }
    ~ferret_state() { wipe(); }
    ferret_state(const ferret_state&) = delete;
    ferret_state& operator=(const ferret_state&) = delete;

    void wipe() noexcept {
        tandem::detail::wipe_all(base);
        tandem::detail::wipe_all(next);
        tandem::detail::wipe_all(batch);
        tandem::detail::wipe_all(mask);
    }

    std::size_t batch_size() const noexcept {
        return std::min(batch_trees(round_params, config.batch_leaves), round_params.t - tree);
    }
    const block* level_base() const noexcept { return base.data() + round_params.k + tree * round_params.depth; }

    /// Starts the round after this one when this one is done: the filled
    /// next base becomes the base, and its tail masks the first check.
    void next_round_if_done() {
        if (tree < round_params.t) return;
        trees_before += round_params.t;
        base.swap(next);
        tandem::detail::wipe_all(next);
        next.resize(config.main.base());
        round_params = config.main;
        ++round;
        tree = 0;
        next_filled = 0;
        mask_from_base();
    }

    /// The set-up round, once the base is in: next() makes each batch.
    template <class Next>
    void run_setup_round(Next next) {
        mask_from_base();
        do next();
        while (tree < round_params.t);
    }

    /// A round's first check is masked by the base's last 128 COTs.
    void mask_from_base() {
        const std::size_t m = round_params.k + round_params.t * round_params.depth;
        std::copy_n(base.begin() + static_cast<std::ptrdiff_t>(m), 128, mask.begin());
    }

    /// Hands m outputs out: take(from, done, n) copies n ready ones, which
    /// go to outputs [done, done + n); next() makes a batch when none are left.
    template <class Next, class Take>
    void hand_out(std::size_t m, Next next, Take take) {
        for (std::size_t done = 0; done < m;) {
            if (ready_begin == ready_end) next();
            const std::size_t n = std::min(m - done, ready_end - ready_begin);
            take(batch.data() + ready_begin, done, n);
            ready_begin += n;
            done += n;
        }
    }

    /// After a batch of `count` outputs (tree already advanced): 128 to mask
    /// the round's next check, then the next base, then the user's.
    void distribute(std::size_t count) {
        std::size_t pos = 0;
        if (tree < round_params.t) {
            std::copy_n(batch.begin(), 128, mask.begin());
            pos = 128;
        }
        const std::size_t take = std::min(next.size() - next_filled, count - pos);
        std::copy_n(batch.begin() + static_cast<std::ptrdiff_t>(pos), take,
                    next.begin() + static_cast<std::ptrdiff_t>(next_filled));
        next_filled += take;
        ready_begin = pos + take;
        ready_end = count;
    }
};

/// Every bit but the choice bit.
inline block without_bit(unsigned p) noexcept { return monomial(p) ^ mask_of(true); }

/// The receiver's choice bits of 128 COTs as one block (bit b from t[b]).
inline block choices_of(const block* t, unsigned p) noexcept {
    std::uint64_t w[2] = {0, 0};
    for (std::size_t b = 0; b < 128; ++b) w[b / 64] |= std::uint64_t{bit_of(t[b], p)} << (b % 64);
    return block(w[1], w[0]);
}

}  // namespace detail

/// The silent COT sender (holds Δ): models correlated_ot_sender.
class ferret_sender {
public:
    /// Runs the set-up: the SoftSpoken bootstrap and the set-up round. The
    /// peer constructs a ferret_receiver with the same mode and config on the
    /// same channel at the same time. Δ must have the config's choice bit set.
    /// `rng`: as softspoken_sender's.
    ferret_sender(net::channel& ch, block delta, security mode = security::semi_honest, prg* rng = nullptr,
                  const ferret_config& config = {})
        : delta_(delta), checked_(mode == security::malicious), rng_(rng ? rng->next() : os_random_block()),
          state_(config), keep_(detail::without_bit(config.choice_bit)), tree_salt_(rng_.next()),
          hash_start_(rng_.next()), salt_key_(tree_salt_), hash_(hash_start_) {
        tandem::detail::require_aes_instructions();
        // Whether a bit of Δ is set is public here: the receiver reads its
        // choices from it (detail/secret.hpp).
        if (!tandem::detail::declassified(detail::bit_of(delta, config.choice_bit) == 1))
            throw usage_error("ot::ferret_sender: Δ must have bit " + std::to_string(config.choice_bit) +
                              " set (ferret_config::choice_bit: it carries the receiver's choice in every COT)");
        const auto peer = ch.recv_value<detail::ferret_handshake>();
        const auto mine = detail::handshake_of(config, checked_);
        if (peer != mine)
            throw protocol_error("silent OT: the receiver runs " + detail::describe(peer) + ", this party " +
                                 detail::describe(mine) + " (mismatched configuration or not a tandem peer)");
        ch.send_value(tree_salt_);
        ch.send_value(hash_start_);
        {
            softspoken_sender<4> boot(ch, delta_, mode, rng);
            boot.extend(ch, std::span<block>(state_.base.data(), state_.base.size()));
        }
        for (block& q : state_.base) q = q & keep_;  // the receiver sets that bit to its choice
        state_.run_setup_round([&] { next_batch(ch); });
        ch.flush();
    }
    ferret_sender(const ferret_sender&) = delete;
    ferret_sender& operator=(const ferret_sender&) = delete;
    ~ferret_sender() {
        tandem::detail::wipe(&delta_, sizeof delta_);
        tandem::detail::wipe_all(scratch_);
    }

    block delta() const noexcept { return delta_; }
    /// LPN rounds begun so far (the set-up round is round 0).
    std::uint64_t rounds() const noexcept { return state_.round; }

    /// q.size() COTs with the receiver's random choices (its extend_random).
    void extend_random(net::channel& ch, std::span<block> q) {
        detail::check_extend_word(ch.recv_value<std::uint64_t>(), q.size(), false);
        produce(ch, q);
    }

    /// q.size() COTs with the receiver's chosen choices (its extend or
    /// extend_packed): random ones, then its bit of difference per OT.
    void extend(net::channel& ch, std::span<block> q) {
        detail::check_extend_word(ch.recv_value<std::uint64_t>(), q.size(), true);
        produce(ch, q);
        diff_.resize((q.size() + 7) / 8);
        ch.recv(diff_.data(), diff_.size());
        for (std::size_t i = 0; i < q.size(); ++i) q[i] = q[i] ^ (delta_ & mask_of(((diff_[i / 8] >> (i % 8)) & 1) != 0));
    }

private:
    void produce(net::channel& ch, std::span<block> q) {
        state_.hand_out(q.size(), [&] { next_batch(ch); },
                        [&](const block* from, std::size_t done, std::size_t n) { std::copy_n(from, n, q.data() + done); });
        ch.flush();
    }

    /// One batch of trees: expand, send the level messages, check, encode.
    void next_batch(net::channel& ch) {
        state_.next_round_if_done();
        const lpn_parameters& p = state_.round_params;
        const std::size_t trees = state_.batch_size(), leaves = p.leaves(), h = p.depth, count = trees * leaves;
        const std::size_t levels = trees * h;
        scratch_.resize(2 * levels + trees * (2 * h + 1));
        sums_.resize(levels);
        block* hashed = scratch_.data();        // q, then q ⊕ Δ, of each level's base COT
        block* messages = hashed + 2 * levels;  // per tree: 2 blocks per level, then c
        const block* q = state_.level_base();
        for (std::size_t j = 0; j < trees; ++j) {
            const detail::ggm_keys keys(salt_key_, state_.trees_before + state_.tree + j);
            detail::ggm_sender_tree(keys, rng_.next(), p.depth, keep_, state_.batch.data() + j * leaves,
                                    sums_.data() + j * h);
        }
        for (std::size_t g = 0; g < levels; ++g) {
            hashed[g] = q[g];
            hashed[levels + g] = q[g] ^ delta_;
        }
        hash_.hash(state_.tweak, levels, 2, hashed);
        state_.tweak += levels;
        for (std::size_t j = 0; j < trees; ++j) {
            block* m = messages + j * (2 * h + 1);
            const detail::level_sums* s = sums_.data() + j * h;
            for (std::size_t l = 0; l < h; ++l) {
                m[2 * l] = s[l].left ^ hashed[j * h + l];
                m[2 * l + 1] = s[l].right ^ hashed[levels + j * h + l];
            }
            m[2 * h] = delta_ ^ s[h - 1].left ^ s[h - 1].right;
        }
        ch.send(messages, trees * (2 * h + 1) * sizeof(block));
        ch.flush();
        if (checked_) answer_check(ch, count);
        detail::lpn_encode(state_.round, state_.tree * leaves, count, p.k, state_.base.data(), state_.batch.data());
        state_.tree += trees;
        state_.distribute(count);
    }

    /// The sender's side of the batch's check: H(V) for the receiver's χ and x'.
    void answer_check(net::channel& ch, std::size_t count) {
        const block seed = ch.recv_value<block>();
        const block x = ch.recv_value<block>();
        chi_.resize(chi_chunk);
        const aes_key chi_key(seed);
        gf128::accumulator acc{};
        for (std::size_t done = 0; done < count; done += chi_chunk) {
            const std::size_t m = std::min(chi_chunk, count - done);
            detail::expand(chi_key, done, chi_.data(), m);
            gf128::multiply_add_rows(chi_.data(), m, state_.batch.data() + done, m, 1, &acc);
        }
        for (std::size_t b = 0; b < 128; ++b)
            gf128::multiply_add(acc, detail::monomial(b), state_.mask[b] ^ (delta_ & mask_of(detail::bit_of(x, b) != 0)));
        ch.send_value(detail::digest_of(gf128::reduce(acc)));
        ch.flush();
    }

    static constexpr std::size_t chi_chunk = 4096;

    block delta_;
    bool checked_;
    prg rng_;
    detail::ferret_state state_;
    block keep_;  // every bit but the choice bit
    block tree_salt_, hash_start_;
    aes_key salt_key_;
    rekeyed_hash hash_;
    std::vector<block> scratch_, chi_;
    std::vector<detail::level_sums> sums_;
    std::vector<std::uint8_t> diff_;
};

/// The silent COT receiver: models correlated_ot_receiver (chosen choices
/// cost one bit per OT more than extend_random's random ones). Its choice
/// bit of each COT is bit p = ferret_config::choice_bit of the COT itself:
/// the sender's q have it clear and Δ has it set, so t = q ⊕ r·Δ carries r
/// there, through every round (the code and the trees are linear, and both
/// parties clear that bit of every leaf; the leaf at α gets it from c).
class ferret_receiver {
public:
    /// Runs the set-up with a ferret_sender of the same mode and config.
    explicit ferret_receiver(net::channel& ch, security mode = security::semi_honest, prg* rng = nullptr,
                             const ferret_config& config = {})
        : checked_(mode == security::malicious), rng_(rng ? rng->next() : os_random_block()), state_(config),
          keep_(detail::without_bit(config.choice_bit)), bit_(config.choice_bit) {
        tandem::detail::require_aes_instructions();
        ch.send_value(detail::handshake_of(config, checked_));
        ch.flush();
        salt_key_.emplace(ch.recv_value<block>());
        hash_.emplace(ch.recv_value<block>());
        {
            std::vector<std::uint8_t> bits(state_.base.size());
            for (std::size_t i = 0; i < bits.size(); i += 128) {
                const block r = rng_.next();
                for (std::size_t b = 0; b < 128 && i + b < bits.size(); ++b)
                    bits[i + b] = static_cast<std::uint8_t>(detail::bit_of(r, b));
            }
            softspoken_receiver<4> boot(ch, mode, rng);
            boot.extend(ch, bits, std::span<block>(state_.base.data(), state_.base.size()));
            // t_i's choice bit := r_i (the sender cleared that bit of q_i).
            for (std::size_t i = 0; i < bits.size(); ++i)
                state_.base[i] = (state_.base[i] & keep_) ^ (detail::monomial(bit_) & mask_of(bits[i] != 0));
            tandem::detail::wipe_all(bits);
        }
        state_.run_setup_round([&] { next_batch(ch); });
        ch.flush();
    }
    ferret_receiver(const ferret_receiver&) = delete;
    ferret_receiver& operator=(const ferret_receiver&) = delete;
    ~ferret_receiver() {
        tandem::detail::wipe_all(own_bits_);
        tandem::detail::wipe_all(scratch_);
        tandem::detail::wipe_all(diff_);
    }

    std::uint64_t rounds() const noexcept { return state_.round; }

    /// t.size() COTs with random choices: bits[i] (0 or 1) and
    /// t[i] = q[i] ⊕ bits[i]·Δ. Throws security_error (malicious mode) when
    /// the sender's messages fail their check.
    void extend_random(net::channel& ch, std::span<std::uint8_t> bits, std::span<block> t) {
        if (bits.size() != t.size())
            throw usage_error("ot::ferret_receiver::extend_random: one choice bit per output");
        ch.send_value(detail::extend_word(t.size(), false));
        produce(ch, bits, t);
    }

    /// COTs with chosen choices (one byte each, 0 or 1): t_i = q_i ⊕ choice_i·Δ.
    void extend(net::channel& ch, std::span<const std::uint8_t> choices, std::span<block> t) {
        (void)detail::unpacked_choices("ot::ferret_receiver::extend", choices, t.size());  // checks them
        chosen(ch, t, [&](std::size_t i) { return choices[i]; });
    }

    /// The same with packed choices (bit i % 8 of byte i / 8).
    void extend_packed(net::channel& ch, std::span<const std::uint8_t> choice_bits, std::span<block> t) {
        (void)detail::packed_choices("ot::ferret_receiver::extend_packed", choice_bits, t.size());
        chosen(ch, t, [&](std::size_t i) { return static_cast<std::uint8_t>((choice_bits[i / 8] >> (i % 8)) & 1); });
    }

private:
    template <class Choice>
    void chosen(net::channel& ch, std::span<block> t, Choice choice) {
        ch.send_value(detail::extend_word(t.size(), true));
        own_bits_.resize(t.size());
        produce(ch, own_bits_, t);
        diff_.assign((t.size() + 7) / 8, 0);
        for (std::size_t i = 0; i < t.size(); ++i)
            diff_[i / 8] = static_cast<std::uint8_t>(diff_[i / 8] | ((own_bits_[i] ^ choice(i)) << (i % 8)));
        ch.send(diff_.data(), diff_.size());
        ch.flush();
        tandem::detail::wipe_all(own_bits_);
    }

    void produce(net::channel& ch, std::span<std::uint8_t> bits, std::span<block> t) {
        state_.hand_out(t.size(), [&] { next_batch(ch); }, [&](const block* from, std::size_t done, std::size_t n) {
            for (std::size_t i = 0; i < n; ++i) {
                t[done + i] = from[i];
                bits[done + i] = static_cast<std::uint8_t>(detail::bit_of(from[i], bit_));
            }
        });
        ch.flush();
    }

    void next_batch(net::channel& ch) {
        state_.next_round_if_done();
        const lpn_parameters& p = state_.round_params;
        const std::size_t trees = state_.batch_size(), leaves = p.leaves(), h = p.depth, count = trees * leaves;
        const std::size_t levels = trees * h;
        scratch_.resize(levels + trees * (2 * h + 1) + h);
        block* hashed = scratch_.data();
        block* messages = hashed + levels;
        block* opened = messages + trees * (2 * h + 1);
        ch.recv(messages, trees * (2 * h + 1) * sizeof(block));
        const block* base = state_.level_base();  // this batch's level COTs: their choices give each α
        // The check's challenge goes out at once: it needs only the noise
        // points, so the sender hashes its leaves while this side builds its trees.
        const block seed = checked_ ? rng_.next() : block();
        const aes_key chi_key(seed);
        if (checked_) send_challenge(ch, seed, chi_key, base, trees, leaves, h);
        std::copy_n(base, levels, hashed);
        hash_->hash(state_.tweak, levels, 1, hashed);
        state_.tweak += levels;
        std::uint8_t choice[32];
        for (std::size_t j = 0; j < trees; ++j) {
            const block* m = messages + j * (2 * h + 1);
            for (std::size_t l = 0; l < h; ++l) {
                const std::uint8_t b = static_cast<std::uint8_t>(detail::bit_of(base[j * h + l], bit_));
                choice[l] = b;
                opened[l] = hashed[j * h + l] ^ (m[2 * l] & mask_of(b == 0)) ^ (m[2 * l + 1] & mask_of(b != 0));
            }
            const detail::ggm_keys keys(*salt_key_, state_.trees_before + state_.tree + j);
            detail::ggm_receiver_tree(keys, opened, choice, p.depth, keep_, m[2 * h], state_.batch.data() + j * leaves);
        }
        tandem::detail::wipe(choice, sizeof choice);
        if (checked_) finish_check(ch, chi_key, count);
        detail::lpn_encode(state_.round, state_.tree * leaves, count, p.k, state_.base.data(), state_.batch.data());
        state_.tree += trees;
        state_.distribute(count);
    }

    /// The receiver's challenge (see the top of this header): the seed of
    /// χ and x' = Σ_j χ_{α_j} ⊕ x, from the trees' points α_j (the
    /// complements of their level COTs' choices) and the mask COTs' choices x.
    void send_challenge(net::channel& ch, block seed, const aes_key& chi_key, const block* base, std::size_t trees,
                        std::size_t leaves, std::size_t h) {
        block at_points = detail::choices_of(state_.mask.data(), bit_);
        for (std::size_t j = 0; j < trees; ++j) {
            std::size_t alpha = 0;
            for (std::size_t l = 0; l < h; ++l) alpha = 2 * alpha + (detail::bit_of(base[j * h + l], bit_) ^ 1);
            at_points ^= chi_key.encrypt(block(0, j * leaves + alpha));
        }
        ch.send_value(seed);
        ch.send_value(at_points);
        ch.flush();
    }

    /// W = Σ χ_i·w_i ⊕ Σ_b X^b·z_b against the sender's H(V).
    void finish_check(net::channel& ch, const aes_key& chi_key, std::size_t count) {
        chi_.resize(chi_chunk);
        gf128::accumulator acc{};
        for (std::size_t done = 0; done < count; done += chi_chunk) {
            const std::size_t m = std::min(chi_chunk, count - done);
            detail::expand(chi_key, done, chi_.data(), m);
            gf128::multiply_add_rows(chi_.data(), m, state_.batch.data() + done, m, 1, &acc);
        }
        for (std::size_t b = 0; b < 128; ++b) gf128::multiply_add(acc, detail::monomial(b), state_.mask[b]);
        const detail::check_digest expected = detail::digest_of(gf128::reduce(acc));
        const auto theirs = ch.recv_value<detail::check_digest>();
        if (sodium_memcmp(expected.data(), theirs.data(), expected.size()) != 0)
            throw security_error(
                "silent OT: the check of the sender's GGM trees failed (its level messages do not match one tree and "
                "its Δ); the peer cheated or the link was tampered with — the run is aborted");
    }

    static constexpr std::size_t chi_chunk = 4096;

    bool checked_;
    prg rng_;
    detail::ferret_state state_;
    block keep_;
    unsigned bit_;
    std::optional<aes_key> salt_key_;
    std::optional<rekeyed_hash> hash_;
    std::vector<std::uint8_t> own_bits_, diff_;
    std::vector<block> scratch_, chi_;
};

static_assert(correlated_ot_sender<ferret_sender>);
static_assert(correlated_ot_receiver<ferret_receiver>);

}  // namespace tandem::ot

TANDEM_CRYPTO_END

// tandem/auth/triples.hpp — authenticated AND triples ⟨x⟩, ⟨y⟩, ⟨z⟩ with
// z = x·y, the function-independent preprocessing of authenticated garbling
// (docs/DESIGN.md §9.2): leaky triples in bulk, then bucketing.
//
// Leaky AND, in Katz–Ranellucci–Rosulek–Wang's form (CRYPTO 2018, ePrint
// 2018/578 [031], §4, improving WRK17 [030] Fig. 6 by dropping its
// half-authenticated AND). From random shared bits ⟨x⟩, ⟨y⟩, ⟨r⟩ each
// party P (keys under its Δ_P, MACs under the peer's) computes
//     Φ_P = K[y_peer] ⊕ M[y_P] ⊕ y_P·Δ_P,      so Φ_A ⊕ Φ_B = y·(Δ_A ⊕ Δ_B),
// sends U_P = H(K[x_peer]) ⊕ H(K[x_peer] ⊕ Δ_P) ⊕ Φ_P and computes
//     S_P = H(M[x_P]) ⊕ x_P·(U_peer ⊕ Φ_P) ⊕ H(K[x_peer]) ⊕ M[r_P] ⊕ K[r_peer] ⊕ r_P·Δ_P,
// so that S_A ⊕ S_B = (x·y ⊕ r)·(Δ_A ⊕ Δ_B): H(M[x_P]) ⊕ H(K[x_P]) is
// x_P·(H(K[x_P]) ⊕ H(K[x_P] ⊕ Δ_peer)), which the peer's U carries. With
// lsb(Δ_A ⊕ Δ_B) = 1 (Alice's Δ has lowest bit 1, Bob's 0) the parties swap
// lsb(S_P) and learn d = x·y ⊕ r, set z = r ⊕ d, and S'_P = S_P ⊕ d·Δ_P must
// then be equal: one F_EQ per batch (auth/agree.hpp) on a digest of all S'.
// A peer that deviates anywhere passes only by guessing the honest party's
// share of x for each triple it attacks (probability 1/2 each, [030] Lemma
// on F_LaAND): z = x·y always holds, x may leak. H is the run-independent
// MITCCR hash (crypto/hash.hpp) with a start both parties toss for and a
// distinct tweak per triple and direction, never reused in the session.
//
// Bucketing ([030] §3, Fig. 7): the leaky triples are fixed before a coin toss
// picks a random permutation of them; each bucket of B consecutive triples
// in it is folded into one, x'' = ⊕ x_k, y'' = y_1, z'' = ⊕ z_k ⊕ ⊕_{k>1} d_k·x_k
// with d_k = y_1 ⊕ y_k opened and MAC-checked (a forged d_k would silently
// corrupt z''). x'' leaks only if every x_k in its bucket did. B follows
// [030]'s bound for statistical security 2^-40: B = 3 from 280,000 triples,
// 4 from 3,100, 5 from 320; smaller requests are rounded up to 320.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/agree.hpp>
#include <tandem/auth/bits.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::auth {

/// One party's half of n authenticated AND triples: x[i]·y[i] = z[i].
struct triples {
    shares x, y, z;

    std::size_t size() const noexcept { return x.size(); }
    void resize(std::size_t n) {
        x.resize(n);
        y.resize(n);
        z.resize(n);
    }
    void wipe() noexcept {
        x.wipe();
        y.wipe();
        z.wipe();
    }
};

/// How a request for `wanted` triples is met: `outputs` ≥ wanted triples
/// from `outputs · bucket` leaky ones, whichever plan sends least.
struct triple_plan {
    std::size_t outputs;
    std::size_t bucket;

    std::size_t leaky() const noexcept { return outputs * bucket; }

    /// [030]'s bucket sizes for 2^-40 (each the least B whose bound
    /// max_t 2^-t·ℓ·C(t,B)/C(ℓB,B) is below 2^-40; tests/auth.cpp checks them).
    static constexpr std::size_t bucket_for(std::size_t outputs) noexcept {
        return outputs >= 280'000 ? 3 : outputs >= 3'100 ? 4 : 5;
    }
    static constexpr std::size_t min_outputs = 320;

    static constexpr triple_plan for_request(std::size_t wanted) noexcept {
        triple_plan best{std::max(wanted, min_outputs), bucket_for(std::max(wanted, min_outputs))};
        for (std::size_t threshold : {std::size_t{3'100}, std::size_t{280'000}}) {
            const triple_plan rounded{threshold, bucket_for(threshold)};
            if (threshold > wanted && rounded.leaky() < best.leaky()) best = rounded;
        }
        return best;
    }
};

/// Makes authenticated AND triples for one session, from its authenticator.
class triple_maker {
public:
    static constexpr const char* leaky_step = "AND triples: leaky-AND check";
    static constexpr const char* toss_step = "AND triples: coin toss";
    static constexpr const char* bucket_step = "AND triples: bucket combination";

    /// Both parties construct it at the same point (one coin toss: the hash
    /// start). Bob's Δ must have lowest bit 0, so that lsb(Δ_A ⊕ Δ_B) = 1.
    triple_maker(net::channel& ch, authenticator& auth, prg& rng)
        : auth_(auth), rng_(rng), hash_(start_block(ch, auth, rng)) {}

    /// Fresh triples into out: triple_plan::for_request(wanted).outputs of
    /// them (≥ wanted). Both parties call it with the same `wanted`. Throws
    /// security_error naming the step when the peer deviated.
    void make(net::channel& ch, std::size_t wanted, triples& out) {
        if (wanted == 0) return out.resize(0);
        const triple_plan plan = triple_plan::for_request(wanted);
        if (plan.leaky() > std::uint32_t(-1))
            throw usage_error("auth::triple_maker::make: at most 2^32 leaky triples per call; ask in batches");
        leaky(ch, plan.leaky(), leaky_);
        combine(ch, plan, leaky_, out);
        leaky_.wipe();
    }

    /// Leaky triples only (z = x·y, x's shares may have leaked): n of them.
    void leaky(net::channel& ch, std::size_t n, triples& t) {
        const party me = auth_.me();
        const block delta = auth_.delta();
        // x, y and r (r in t.z until the check turns it into z).
        auth_.random(ch, n, t.x);
        auth_.random(ch, n, t.y);
        auth_.random(ch, n, t.z);

        // U to the peer, computed a chunk at a time as it is sent (Alice
        // first, then Bob: auth::exchange), the peer's U into u_, and in s_
        // the part of S that does not need the peer's U.
        s_.resize(n);
        u_.resize(n);
        const std::uint64_t base = next_tweak_;
        next_tweak_ += 2 * round_up(n);
        auto send_u = [&] {
            for (std::size_t first = 0; first < n; first += per_hash) hash_chunk(t, base, first, n, delta, me, ch);
        };
        if (me == party::alice) send_u();
        ch.recv(u_.data(), n * sizeof(block));
        if (me == party::bob) {
            send_u();
            ch.flush();
        }

        // S, its lowest bits swapped: d = x·y ⊕ r.
        packed_.assign((n + 7) / 8, 0);
        for (std::size_t i = 0; i < n; ++i) {
            s_[i] ^= (u_[i] ^ phi(t, i, delta)) & mask_of(t.x.bit[i] != 0);
            packed_[i / 8] = static_cast<std::uint8_t>(packed_[i / 8] | ((s_[i].low() & 1) << (i % 8)));
        }
        peer_packed_.resize(packed_.size());
        exchange(ch, me, packed_.data(), peer_packed_.data(), packed_.size());

        // z = r ⊕ d (the public d added to Alice's share: she flips her bit,
        // Bob shifts his key of it by d·Δ_B), and S' = S ⊕ d·Δ into the digest.
        for (std::size_t i = 0; i < n; ++i) {
            const auto d = static_cast<std::uint8_t>(((packed_[i / 8] ^ peer_packed_[i / 8]) >> (i % 8)) & 1);
            const block d_delta = delta & mask_of(d != 0);
            if (me == party::alice)
                t.z.bit[i] ^= d;
            else
                t.z.key[i] ^= d_delta;
            s_[i] ^= d_delta;
        }
        digester digest("tandem auth leaky AND");
        digest.update(s_);
        tandem::detail::wipe_all(s_);
        check_equal(ch, me, digest.finish(), rng_, leaky_step);
    }

private:
    // Triples per call of the hash: 8, so 16 tweaks (one per triple and
    // direction) in the wide kernels' shape, two copies (K and K ⊕ Δ).
    static constexpr std::size_t hash_width = 16;
    static constexpr std::size_t per_hash = hash_width / 2;
    static std::size_t round_up(std::size_t n) noexcept { return (n + per_hash - 1) / per_hash * per_hash; }

    /// Φ_P = K[y_peer] ⊕ M[y_P] ⊕ y_P·Δ_P for triple i.
    static block phi(const triples& t, std::size_t i, const block& delta) noexcept {
        return t.y.key[i] ^ t.y.mac[i] ^ (delta & mask_of(t.y.bit[i] != 0));
    }

    /// Triples first.. (up to per_hash of them): the hashes, each with the
    /// tweak base + 2i + (0 for Alice's x-share, 1 for Bob's); U sent, the
    /// U-free part of S into s_. Past n, the last triple repeats, discarded.
    void hash_chunk(const triples& t, std::uint64_t base, std::size_t first, std::size_t n, const block& delta,
                    party me, net::channel& ch) {
        const std::size_t m = std::min(per_hash, n - first);
        const unsigned mine = me == party::alice ? 0 : 1;  // tweak parity of this party's x-shares
        alignas(64) block h[2 * hash_width];
        for (std::size_t j = 0; j < per_hash; ++j) {
            const std::size_t i = first + std::min(j, m - 1);
            h[2 * j + mine] = t.x.mac[i];
            h[hash_width + 2 * j + mine] = block();
            h[2 * j + (1 - mine)] = t.x.key[i];
            h[hash_width + 2 * j + (1 - mine)] = t.x.key[i] ^ delta;
        }
        hash_.hash<hash_width, 2>(base + 2 * first, h);
        block u[per_hash];
        for (std::size_t j = 0; j < m; ++j) {
            const std::size_t i = first + j;
            const block own = h[2 * j + mine], key0 = h[2 * j + (1 - mine)], key1 = h[hash_width + 2 * j + (1 - mine)];
            u[j] = key0 ^ key1 ^ phi(t, i, delta);
            s_[i] = own ^ key0 ^ t.z.mac[i] ^ t.z.key[i] ^ (delta & mask_of(t.z.bit[i] != 0));
        }
        ch.send(u, m * sizeof(block));
        tandem::detail::wipe(h, sizeof h);
    }

    static block start_block(net::channel& ch, authenticator& auth, prg& rng) {
        if (auth.me() == party::bob && tandem::detail::declassified((auth.delta().low() & 1) != 0))
            throw usage_error(
                "auth::triple_maker: Bob's Δ must have lowest bit 0 (the leaky AND needs lsb(Δ_A ⊕ Δ_B) = 1)");
        return coin_toss(ch, auth.me(), rng, toss_step);
    }

    /// Buckets the leaky triples by a tossed permutation and folds each.
    void combine(net::channel& ch, const triple_plan& plan, const triples& t, triples& out) {
        const std::size_t n = plan.leaky(), b = plan.bucket;
        permutation(coin_toss(ch, auth_.me(), rng_, toss_step), n);

        // d_k = y_1 ⊕ y_k for k = 2..B of every bucket, opened together.
        opened_.resize(plan.outputs * (b - 1));
        for (std::size_t j = 0; j < plan.outputs; ++j) {
            prefetch_bucket(t, j + prefetch_ahead, plan, false);
            const std::size_t first = order_[j * b];
            for (std::size_t k = 1; k < b; ++k) {
                const std::size_t i = order_[j * b + k], at = j * (b - 1) + k - 1;
                opened_.bit[at] = static_cast<std::uint8_t>(t.y.bit[first] ^ t.y.bit[i]);
                opened_.mac[at] = t.y.mac[first] ^ t.y.mac[i];
                opened_.key[at] = t.y.key[first] ^ t.y.key[i];
            }
        }
        d_.resize(opened_.size());
        auth_.open(ch, opened_, d_, bucket_step);
        opened_.wipe();

        out.resize(plan.outputs);
        for (std::size_t j = 0; j < plan.outputs; ++j) {
            prefetch_bucket(t, j + prefetch_ahead, plan, true);
            const std::size_t first = order_[j * b];
            std::uint8_t xb = t.x.bit[first], zb = t.z.bit[first];
            block xm = t.x.mac[first], xk = t.x.key[first], zm = t.z.mac[first], zk = t.z.key[first];
            for (std::size_t k = 1; k < b; ++k) {
                const std::size_t i = order_[j * b + k];
                const std::uint8_t d = d_[j * (b - 1) + k - 1];
                const block dm = mask_of(d != 0);
                zb ^= static_cast<std::uint8_t>(t.z.bit[i] ^ (d & t.x.bit[i]));
                zm ^= t.z.mac[i] ^ (dm & t.x.mac[i]);
                zk ^= t.z.key[i] ^ (dm & t.x.key[i]);
                xb ^= t.x.bit[i];
                xm ^= t.x.mac[i];
                xk ^= t.x.key[i];
            }
            out.x.bit[j] = xb;
            out.x.mac[j] = xm;
            out.x.key[j] = xk;
            out.y.bit[j] = t.y.bit[first];
            out.y.mac[j] = t.y.mac[first];
            out.y.key[j] = t.y.key[first];
            out.z.bit[j] = zb;
            out.z.mac[j] = zm;
            out.z.key[j] = zk;
        }
    }

    // The buckets' members lie at random places in arrays of megabytes: each
    // fold would wait on a dozen cache misses without asking ahead.
    static constexpr std::size_t prefetch_ahead = 4;
    void prefetch_bucket(const triples& t, std::size_t j, const triple_plan& plan, bool all) const noexcept {
        if (j >= plan.outputs) return;
        for (std::size_t k = 0; k < plan.bucket; ++k) {
            const std::size_t i = order_[j * plan.bucket + k];
            __builtin_prefetch(&t.y.bit[i]);
            __builtin_prefetch(&t.y.mac[i]);
            __builtin_prefetch(&t.y.key[i]);
            if (!all) continue;
            __builtin_prefetch(&t.x.bit[i]);
            __builtin_prefetch(&t.x.mac[i]);
            __builtin_prefetch(&t.x.key[i]);
            __builtin_prefetch(&t.z.bit[i]);
            __builtin_prefetch(&t.z.mac[i]);
            __builtin_prefetch(&t.z.key[i]);
        }
    }

    /// order_ ← a uniformly random permutation of 0..n-1 drawn from `seed`
    /// (public: both parties draw the same one). Fisher–Yates, each index
    /// by rejection sampling, so no modulo bias.
    void permutation(block seed, std::size_t n) {
        prg stream(tandem::detail::declassified(seed));
        order_.resize(n);
        for (std::size_t i = 0; i < n; ++i) order_[i] = static_cast<std::uint32_t>(i);
        std::uint64_t words[2];
        std::size_t left = 0;
        auto draw = [&] {
            if (left == 0) {
                const block r = stream.next();
                words[0] = r.low();
                words[1] = r.high();
                left = 2;
            }
            return tandem::detail::declassified(words[--left]);
        };
        for (std::size_t i = n - 1; i > 0; --i) {
            const std::uint64_t range = i + 1, limit = ~std::uint64_t{0} - (~std::uint64_t{0} % range);
            std::uint64_t v;
            do v = draw();
            while (v >= limit);
            std::swap(order_[i], order_[v % range]);
        }
    }

    authenticator& auth_;
    prg& rng_;
    rekeyed_hash hash_;
    std::uint64_t next_tweak_ = 0;
    triples leaky_;
    shares opened_;
    std::vector<block> u_, s_;
    std::vector<std::uint8_t> packed_, peer_packed_, d_;
    std::vector<std::uint32_t> order_;
};

/// Triples made elsewhere than the session's main link, in parallel with it
/// (garbler_evaluator::make_triples): on a worker link of this process
/// (linked_triples) or by another MPI rank of this party on its own link
/// (mpi/session.hpp). The peer holds the matching source, and both are
/// asked for the same counts in the same order.
class triple_source {
public:
    virtual ~triple_source() = default;
    /// As triple_maker::make: at least `wanted` fresh triples into out.
    virtual void make(std::size_t wanted, triples& out) = 0;
    /// Ends a make() in progress on another thread early (another part
    /// failed), or lets it end by its link's deadline.
    virtual void interrupt() noexcept = 0;
};

/// A triple maker of its own on `link`: an authenticator under this party's
/// global key Δ (so its triples combine with the main link's) with
/// randomness from `seed`, on the session's extension. Both parties
/// construct theirs at once: the two extensions' set-ups and the coin toss
/// run on the link.
class linked_triples final : public triple_source {
public:
    linked_triples(net::channel& link, party me, block delta, block seed,
                   cot_extension extension = cot_extension::softspoken)
        : link_(link), rng_(seed), auth_(link, me, delta, rng_, extension), maker_(link, auth_, rng_) {
        link_.flush();
    }
    void make(std::size_t wanted, triples& out) override { maker_.make(link_, wanted, out); }
    void interrupt() noexcept override { link_.interrupt(); }

private:
    net::channel& link_;
    prg rng_;
    authenticator auth_;
    triple_maker maker_;
};

}  // namespace tandem::auth

TANDEM_CRYPTO_END

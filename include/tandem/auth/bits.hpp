// tandem/auth/bits.hpp — authenticated bits: the IT-MACs that authenticated
// garbling (docs/DESIGN.md §9.2) is built on, made from malicious-secure
// correlated OTs, and their batched, checked opening.
//
// Wang–Ranellucci–Katz, "Authenticated Garbling and Efficient Maliciously
// Secure Two-Party Computation", CCS 2017 (ePrint 2017/030), §2 (the IT-MACs
// of Nielsen–Nordholt–Orlandi–Burra, CRYPTO 2012). Each party holds a global
// key: Alice (the garbler) Δ_A, whose lowest bit is 1 (it is her free-XOR
// offset), Bob Δ_B. A bit x of Alice's is authenticated when Alice holds x
// and its MAC M[x], and Bob holds its key K[x], with M[x] = K[x] ⊕ x·Δ_B; a
// bit of Bob's the same way under Δ_A. A shared bit ⟨w⟩ = w_A ⊕ w_B is a bit
// of each, so each party holds its own share, its MAC, and the key of the
// peer's share. XORs of shared bits are local (shares, MACs and keys XOR).
//
// Made from COTs: the receiver of a correlated OT with the sender's Δ gets
// t = q ⊕ r·Δ for its choice bit r, i.e. an authenticated bit with M = t,
// K = q. One extension each way, each with its malicious check: Alice sends
// Bob's bits under Δ_A, Bob sends Alice's under Δ_B. Which extension is
// tandem::cot_extension (security.hpp): SoftSpoken (ot/softspoken.hpp, K = 4: 4 bytes per COT,
// the receiver's random bits chosen from its generator) or silent OT
// (ot/ferret.hpp: 0.44 bits per COT, the bits its LPN outputs; its choice
// rides in bit 0 of Alice's Δ_A and bit 1 of Bob's Δ_B, which must be set).
//
// Opening: a party shows a bit x by sending it; the verifier knows what its
// MAC must be, K[x] ⊕ x·Δ. Rather than a MAC per bit, the prover sends one
// GF(2^128) combination Σ χ_i·M[x_i] with χ drawn by the verifier after the
// bits arrived (crypto/gf128.hpp). If the shown bits differ from the
// authenticated ones by e ≠ 0, the prover would have to send the honest sum
// plus (Σ χ_i·e_i)·Δ: Σ χ_i·e_i is 0 with probability 2^-128 over χ, so
// passing means guessing (a nonzero multiple of) the verifier's Δ. A plain
// XOR of the MACs would not do: two flipped bits cancel in it.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/agree.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/gf128.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/big_vector.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/ferret.hpp>
#include <tandem/ot/softspoken.hpp>
#include <tandem/party.hpp>
#include <tandem/security.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::auth {

/// One party's half of n authenticated shared bits ⟨w_i⟩ (see above).
/// The arrays are big_vectors: batches of a million bits span tens of MiB,
/// and bucketing (auth/triples.hpp) reads them at random places, where
/// huge pages save a page walk per access.
struct shares {
    tandem::detail::big_vector<std::uint8_t> bit;  // this party's share (0 or 1)
    tandem::detail::big_vector<block> mac;         // M of this party's share, under the peer's Δ
    tandem::detail::big_vector<block> key;         // K of the peer's share, under this party's Δ

    shares() = default;
    shares(const shares&) = delete;
    shares& operator=(const shares&) = delete;
    shares(shares&&) noexcept = default;
    shares& operator=(shares&& o) noexcept {
        wipe();
        bit = std::move(o.bit);
        mac = std::move(o.mac);
        key = std::move(o.key);
        return *this;
    }
    ~shares() { wipe(); }

    std::size_t size() const noexcept { return bit.size(); }
    /// n shares, contents unspecified (every user writes them all): arrays
    /// that must grow are wiped and emptied first, so no secret is left
    /// behind in freed memory and nothing is copied; a mapped array then
    /// grows in place (big_vector: mremap) rather than leaving its block in
    /// the cache, where a reservoir growing step by step (auth/garble.hpp)
    /// would keep every smaller step's block resident.
    void resize(std::size_t n) {
        if (n > bit.capacity()) {
            wipe();
            bit.clear();
            mac.clear();
            key.clear();
        }
        bit.resize(n);
        mac.resize(n);
        key.resize(n);
    }
    void wipe() noexcept {
        tandem::detail::wipe_all(bit);
        tandem::detail::wipe_all(mac);
        tandem::detail::wipe_all(key);
    }
};

/// Swaps n bytes with the peer: Alice sends hers first and then reads,
/// Bob reads first. Both sending at once could deadlock once a message
/// outgrows the two sockets' buffers (neither side would read).
inline void exchange(net::channel& ch, party me, const void* mine, void* theirs, std::size_t n) {
    if (me == party::alice) {
        ch.send(mine, n);
        ch.recv(theirs, n);
    } else {
        ch.recv(theirs, n);
        ch.send(mine, n);
        ch.flush();
    }
}

/// ⟨a⟩ ⊕ ⟨b⟩ into out[i] for every i (all three of one size; out may alias).
inline void add(const shares& a, const shares& b, shares& out) {
    const std::size_t n = a.size();
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.bit[i] = static_cast<std::uint8_t>(a.bit[i] ^ b.bit[i]);
        out.mac[i] = a.mac[i] ^ b.mac[i];
        out.key[i] = a.key[i] ^ b.key[i];
    }
}

/// The terms i in [first, last) of random_combination, unreduced: parts
/// made apart (on other threads, each with its own scratch) XOR into the
/// whole, since the reduction is linear.
template <class Value>
gf128::accumulator random_combination_part(block seed, std::size_t first, std::size_t last, Value x,
                                           std::vector<block>& chi, std::vector<block>& rows) {
    prg chi_stream(seed);
    chi_stream.seek(first);
    gf128::accumulator acc{};
    constexpr std::size_t chunk = 1024;
    chi.resize(chunk);
    rows.resize(chunk);
    for (std::size_t from = first; from < last; from += chunk) {
        const std::size_t m = std::min(chunk, last - from);
        chi_stream.fill(chi.data(), m);
        for (std::size_t j = 0; j < m; ++j) rows[j] = x(from + j);
        gf128::multiply_add_rows(chi.data(), m, rows.data(), m, 1, &acc);
    }
    tandem::detail::wipe_all(rows);
    return acc;
}

/// Σ_i χ_i·x(i) over GF(2^128), χ_i the AES-CTR stream of `seed`, in chunks
/// of vectorized products (chi and rows are scratch; rows is wiped). Two
/// parties compare this one block instead of n values: where the values x'
/// one combined differ from the x the other expects by multiples of a Δ the
/// first does not know, x'_i ⊕ x_i = e_i·Δ, the two differ by (Σ e_i·χ_i)·Δ,
/// which it can neither predict nor offset, and which is 0 with probability
/// 2^-128 when χ was drawn after the e_i were fixed. An XOR of the x(i)
/// would not do: two changes would cancel.
template <class Value>
block random_combination(block seed, std::size_t n, Value x, std::vector<block>& chi, std::vector<block>& rows) {
    return gf128::reduce(random_combination_part(seed, 0, n, x, chi, rows));
}

/// A fresh global key Δ for `me`: Alice's is her free-XOR offset (lowest bit
/// 1), Bob's has lowest bit 0 (auth/triples.hpp: lsb(Δ_A ⊕ Δ_B) = 1) and,
/// over silent OT, bit 1 set (it carries his silent COTs' choices); never 0.
inline block draw_delta(party me, cot_extension extension, prg& rng) {
    block d = rng.next();
    d = me == party::alice ? d | block(0, 1) : d ^ (d & block(0, 1));
    if (me == party::bob && extension == cot_extension::silent) d = d | block(0, 2);
    if (tandem::detail::declassified(d == block())) d = block(1, 0);  // 2^-127: never zero
    return d;
}

/// A party's source of authenticated bits for one session: both extensions
/// (malicious mode) and its global key Δ.
class authenticator {
public:
    static constexpr std::size_t softspoken_k = 4;
    /// The bit of each silent COT that carries its choice, per sender: bit 0
    /// of Alice's Δ (her free-XOR offset's), bit 1 of Bob's (his bit 0 is 0).
    static constexpr unsigned silent_choice_bit(party sender) noexcept { return sender == party::alice ? 0 : 1; }

    /// Runs both extensions' set-ups: first Alice's (she sends), then Bob's.
    /// The peer constructs its authenticator with the other party at the same
    /// time. `delta`: this party's global key (Alice's must have lowest bit 1;
    /// neither may be 0). `rng` draws the random bits and the challenges.
    authenticator(net::channel& ch, party me, block delta, prg& rng,
                  cot_extension extension = cot_extension::softspoken)
        : me_(me), delta_(delta), rng_(rng) {
        if (tandem::detail::declassified(delta == block()))
            throw usage_error("auth::authenticator: Δ must not be zero");
        if (me == party::alice && tandem::detail::declassified((delta.low() & 1) == 0))
            throw usage_error("auth::authenticator: Alice's Δ is her free-XOR offset; its lowest bit must be 1");
        if (extension == cot_extension::softspoken) {
            auto sender = [&] { sender_.emplace(ch, delta_, security::malicious, &rng_); };
            auto receiver = [&] { receiver_.emplace(ch, security::malicious, &rng_); };
            in_turn(sender, receiver);
        } else {
            const party peer = me == party::alice ? party::bob : party::alice;
            ot::ferret_config mine, theirs;
            mine.choice_bit = silent_choice_bit(me);
            theirs.choice_bit = silent_choice_bit(peer);
            auto sender = [&] { silent_sender_.emplace(ch, delta_, security::malicious, &rng_, mine); };
            auto receiver = [&] { silent_receiver_.emplace(ch, security::malicious, &rng_, theirs); };
            in_turn(sender, receiver);
        }
    }
    authenticator(const authenticator&) = delete;
    authenticator& operator=(const authenticator&) = delete;
    ~authenticator() { tandem::detail::wipe(&delta_, sizeof delta_); }

    party me() const noexcept { return me_; }
    /// This party's global key.
    const block& delta() const noexcept { return delta_; }

    /// n fresh random shared bits into out (resized). Both parties call it
    /// with the same n. Throws security_error when the peer's OT columns fail
    /// their check.
    void random(net::channel& ch, std::size_t n, shares& out) {
        out.resize(n);
        if (n == 0) return;  // nothing to send (a segment without inputs or ANDs)
        if (silent_sender_) {
            // Random COTs both ways; this party's bits are its LPN outputs.
            auto keys = [&] { silent_sender_->extend_random(ch, std::span<block>(out.key.data(), n)); };
            auto macs = [&] {
                silent_receiver_->extend_random(ch, std::span<std::uint8_t>(out.bit.data(), n),
                                                std::span<block>(out.mac.data(), n));
            };
            return in_turn(keys, macs);
        }
        packed_.resize((n + 7) / 8);
        for (std::size_t i = 0; i < packed_.size(); i += 16) {
            const block r = rng_.next();
            std::uint8_t bytes[16];
            r.store(bytes);
            for (std::size_t j = 0; j < 16 && i + j < packed_.size(); ++j) packed_[i + j] = bytes[j];
        }
        for (std::size_t i = 0; i < n; ++i) out.bit[i] = static_cast<std::uint8_t>((packed_[i / 8] >> (i % 8)) & 1);
        in_turn([&] { sender_->extend(ch, out.key); },                     // keys of the peer's shares, under my Δ
                [&] { receiver_->extend_packed(ch, packed_, out.mac); });  // MACs of mine, under the peer's Δ
        tandem::detail::wipe_all(packed_);
    }

    /// Opens n shared bits to both parties: value[i] = this party's share ⊕
    /// the peer's, after checking the peer's shares against their MACs (one
    /// combination per call, challenge drawn by each verifier). Both parties
    /// call it with the same n. `step` names the protocol step in the
    /// security_error when the peer showed a bit other than its share.
    void open(net::channel& ch, const shares& s, std::span<std::uint8_t> value, const char* step) {
        const std::size_t n = s.size();
        if (value.size() != n) throw usage_error("auth::authenticator::open: value must hold one bit per share");
        // This party's shares leave from own_packed_, the peer's arrive in packed_.
        own_packed_.assign((n + 7) / 8, 0);
        for (std::size_t i = 0; i < n; ++i)
            own_packed_[i / 8] = static_cast<std::uint8_t>(own_packed_[i / 8] | (s.bit[i] << (i % 8)));
        packed_.resize(own_packed_.size());
        exchange(ch, me_, own_packed_.data(), packed_.data(), packed_.size());
        for (std::size_t i = 0; i < n; ++i)
            value[i] = static_cast<std::uint8_t>(s.bit[i] ^ ((packed_[i / 8] >> (i % 8)) & 1));
        // χ for the peer's bits, drawn now that they are fixed.
        const block my_seed = rng_.next();
        ch.send_value(my_seed);
        const block peer_seed = ch.recv_value<block>();
        ch.send_value(combine(peer_seed, n, [&](std::size_t i) { return s.mac[i]; }));
        verify(my_seed, s, ch.recv_value<block>(), step);
    }

    /// Opens n shared bits to `to` alone: there value[i] = share ⊕ the
    /// peer's share, checked as in open(); the other party only proves its
    /// shares (value is not written). Both parties call it with the same n.
    void open_to(net::channel& ch, party to, const shares& s, std::span<std::uint8_t> value, const char* step) {
        const std::size_t n = s.size();
        if (to != me_) {
            own_packed_.assign((n + 7) / 8, 0);
            for (std::size_t i = 0; i < n; ++i)
                own_packed_[i / 8] = static_cast<std::uint8_t>(own_packed_[i / 8] | (s.bit[i] << (i % 8)));
            ch.send(own_packed_.data(), own_packed_.size());
            const block seed = ch.recv_value<block>();
            ch.send_value(combine(seed, n, [&](std::size_t i) { return s.mac[i]; }));
            ch.flush();
            return;
        }
        if (value.size() != n) throw usage_error("auth::authenticator::open_to: value must hold one bit per share");
        packed_.resize((n + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        for (std::size_t i = 0; i < n; ++i)
            value[i] = static_cast<std::uint8_t>(s.bit[i] ^ ((packed_[i / 8] >> (i % 8)) & 1));
        const block seed = rng_.next();
        ch.send_value(seed);
        verify(seed, s, ch.recv_value<block>(), step);
    }

    /// Opens s to the peer in one message, for a peer that calls
    /// receive_opening with the same n: this party's shares, packed, and a
    /// digest of their MACs. One-way (no challenge to wait for), so it suits
    /// the online phase; it costs a hash of 16 B per bit, where open_to's
    /// combination is cheaper for the preprocessing's large openings.
    void send_opening(net::channel& ch, const shares& s) {
        const std::size_t n = s.size();
        own_packed_.assign((n + 7) / 8, 0);
        for (std::size_t i = 0; i < n; ++i)
            own_packed_[i / 8] = static_cast<std::uint8_t>(own_packed_[i / 8] | (s.bit[i] << (i % 8)));
        ch.send(own_packed_.data(), own_packed_.size());
        digester h(opening_domain);
        h.update(std::span<const block>(s.mac.data(), n));
        ch.send_value(h.finish());
    }

    /// Receives the peer's send_opening of s: value[i] = this party's share ⊕
    /// the peer's, after checking the digest against the MACs the peer's
    /// bits must have, K_i ⊕ b_i·Δ (a bit other than its share would need Δ).
    void receive_opening(net::channel& ch, const shares& s, std::span<std::uint8_t> value, const char* step) {
        const std::size_t n = s.size();
        if (value.size() != n) throw usage_error("auth::authenticator::receive_opening: value must hold one bit per share");
        packed_.resize((n + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        const digest theirs = ch.recv_value<digest>();
        expected_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint8_t b = (packed_[i / 8] >> (i % 8)) & 1;
            expected_[i] = s.key[i] ^ (delta_ & mask_of(b != 0));
            value[i] = static_cast<std::uint8_t>(s.bit[i] ^ b);
        }
        digester h(opening_domain);
        h.update(std::span<const block>(expected_.data(), n));
        const bool honest = detail::same(h.finish(), theirs);
        tandem::detail::wipe_all(expected_);
        if (!honest)
            throw security_error(std::string("authenticated garbling: ") + step +
                                 ": the peer opened bits that are not the ones it holds (their MACs do not match); "
                                 "the peer cheated or the link was tampered with — the run is aborted");
    }

private:
    static constexpr const char* opening_domain = "tandem auth one-way opening";

    /// Alice's side of a pair of extension steps first, then Bob's: Alice is
    /// the sender of the first, so both parties run the same step at once.
    template <class AsSender, class AsReceiver>
    void in_turn(AsSender as_sender, AsReceiver as_receiver) {
        if (me_ == party::alice) {
            as_sender();
            as_receiver();
        } else {
            as_receiver();
            as_sender();
        }
    }

    /// Checks the peer's combination `theirs` of the MACs of the bits it
    /// showed (in packed_) against Σ χ_i·(K_i ⊕ b_i·Δ), χ from `seed`.
    void verify(block seed, const shares& s, block theirs, const char* step) {
        const block expected = combine(seed, s.size(), [&](std::size_t i) {
            const std::uint8_t b = (packed_[i / 8] >> (i % 8)) & 1;
            return s.key[i] ^ (delta_ & mask_of(b != 0));
        });
        if (!tandem::detail::declassified(theirs == expected))
            throw security_error(std::string("authenticated garbling: ") + step +
                                 ": the peer opened bits that are not the ones it holds (their MACs do not match); "
                                 "the peer cheated or the link was tampered with — the run is aborted");
    }

    template <class Value>
    block combine(block seed, std::size_t n, Value x) {
        return random_combination(seed, n, x, chi_, rows_);
    }

    party me_;
    block delta_;
    prg& rng_;
    std::optional<ot::softspoken_sender<softspoken_k>> sender_;
    std::optional<ot::softspoken_receiver<softspoken_k>> receiver_;
    std::optional<ot::ferret_sender> silent_sender_;
    std::optional<ot::ferret_receiver> silent_receiver_;
    std::vector<std::uint8_t> packed_, own_packed_;
    tandem::detail::big_vector<block> expected_;  // receive_opening's MACs
    std::vector<block> chi_, rows_;
};

}  // namespace tandem::auth

TANDEM_CRYPTO_END

// tandem/auth/garble.hpp — one run of a circuit by authenticated garbling,
// secure against a malicious garbler or evaluator (docs/DESIGN.md §9.2):
// Alice garbles, Bob evaluates, the outputs go to whoever `reveal` names.
// Sessions with security::malicious run every compiled run and batch through
// it (session/session_impl.hpp). It keeps the whole circuit's preprocessing
// in memory and runs one gate at a time.
//
// Katz–Ranellucci–Rosulek–Wang, CRYPTO 2018 [031] §3–4 (authenticated
// half-gates) on Wang–Ranellucci–Katz, CCS 2017 [030] (the framework).
// Every wire w has a mask λ_w = λ^A_w ⊕ λ^B_w of authenticated shares
// (auth/bits.hpp); Bob learns the masked value Λ_w = v_w ⊕ λ_w and the
// label L_{w,Λ_w} = L_{w,0} ⊕ Λ_w·Δ_A. For u shared, [u·Δ_A] is shared as
// Alice's u_A·Δ_A ⊕ K[u_B] and Bob's M[u_B].
//  1. Function-dependent preprocessing. Fresh shared masks for the input
//     wires and every AND output; XOR outputs take the XOR of their inputs'
//     masks, NOT outputs the mask plus 1. Per AND (α, β → γ), λ_σ = λ_α·λ_β
//     from a triple (auth/triples.hpp) by Beaver: d = λ_α ⊕ x and
//     e = λ_β ⊕ y opened with their MACs, λ_σ = z ⊕ d·y ⊕ e·x ⊕ d·e. Alice
//     garbles each AND with tweaks j0 = 2k, j1 = 2k + 1:
//        G0 = H(L_α0, j0) ⊕ H(L_α1, j0) ⊕ [λ_β Δ_A],
//        G1 = H(L_β0, j1) ⊕ H(L_β1, j1) ⊕ [λ_α Δ_A] ⊕ L_α0,
//        L_γ0 = H(L_α0, j0) ⊕ H(L_β0, j1) ⊕ [λ_σ Δ_A] ⊕ [λ_γ Δ_A],
//     and sends G0, G1 and lsb(L_γ0): 2κ + 1 bits per AND.
//  2. Inputs. For Alice's input bits Bob opens his mask shares to her (MAC
//     checked); she sends Λ = x ⊕ λ and L_{w,Λ}. For Bob's, Alice opens hers;
//     Bob sends Λ = y ⊕ λ and Alice answers with L_{w,Λ}. Λ is uniform to
//     the party that did not choose the input, so nothing either party can
//     do with it depends on the other's input (no selective failure).
//  3. Evaluation: Bob computes L_γ = H(L_α, j0) ⊕ H(L_β, j1) ⊕ Λ_α·G0 ⊕
//     Λ_β·(G1 ⊕ L_α) ⊕ [λ_σ Δ_A]_B ⊕ [λ_γ Δ_A]_B ⊕ Λ_α·[λ_β Δ_A]_B ⊕
//     Λ_β·[λ_α Δ_A]_B and Λ_γ = lsb(L_γ) ⊕ lsb(L_γ0).
//  4. The AND check. Every AND must satisfy (Λ_α ⊕ λ_α)(Λ_β ⊕ λ_β) =
//     Λ_γ ⊕ λ_γ, i.e. c_γ = Λ_αΛ_β ⊕ Λ_γ ⊕ Λ_α λ_β ⊕ Λ_β λ_α ⊕ λ_σ ⊕ λ_γ = 0,
//     linear in the shares once the Λ are public. Bob sends every Λ_γ with a
//     digest of his labels L_γ: Alice recomputes L_γ0 ⊕ Λ_γ·Δ_A and refuses
//     Λs that his labels do not back (otherwise a flipped Λ would make her
//     next message depend on a mask share). Alice then sends a digest of the
//     MACs of her shares of every c_γ; Bob compares it with his keys ⊕
//     (his share of c_γ)·Δ_B. A wrong table, lsb or input label changes some
//     Λ_γ without Bob noticing during evaluation; it is caught here unless
//     the cheater knows Δ_B. Nothing is output before both checks pass.
//  5. Outputs: each party opens its mask shares of the output wires to the
//     other, if the other learns them, with their MACs; the value is
//     Λ ⊕ λ^A ⊕ λ^B.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/agree.hpp>
#include <tandem/auth/bits.hpp>
#include <tandem/auth/triples.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>
#include <tandem/session/run_stats.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::auth {

/// Runs circuits with authenticated garbling over one session's
/// authenticator and triple maker (both parties hold one each).
class garbler_evaluator {
public:
    static constexpr const char* beaver_step = "function-dependent preprocessing: the Beaver openings";
    static constexpr const char* input_step = "inputs: the mask openings";
    static constexpr const char* lambda_step = "AND check: the evaluator's masked values";
    static constexpr const char* and_check_step = "AND check";
    static constexpr const char* output_step = "outputs: the mask openings";

    garbler_evaluator(authenticator& auth, triple_maker& maker, prg& rng) : auth_(auth), maker_(maker), rng_(rng) {}

    /// Runs c (regions are flattened) on this party's input bits, the bits of
    /// its input values in circuit order; returns every output bit, in order,
    /// to the parties `who` names (the other gets nullopt). Throws
    /// security_error naming the step if the peer deviated, before any output
    /// is opened.
    std::optional<std::vector<std::uint8_t>> run(net::channel& ch, const circuit<>& original,
                                                 std::span<const std::uint8_t> my_bits, reveal who = reveal::both) {
        const circuit<> c = flatten(original);
        const circuit_data& d = c.data();
        me_ = auth_.me();
        std::size_t mine = 0;
        for (const value_layout& v : d.inputs)
            if (v.owner == me_) mine += v.bits;
        if (my_bits.size() != mine)
            throw usage_error("auth::garbler_evaluator::run: " + std::to_string(my_bits.size()) +
                              " input bits given; this party's input values have " + std::to_string(mine));
        ands_ = 0;
        for (const gate& g : d.gates) ands_ += g.kind == gate_kind::and_gate;

        phase_clock clock(ch);
        authenticated_bits(ch, d);
        clock.lap(last_.independent);
        hash_start(ch);
        masks(d);
        beaver(ch);
        if (me_ == party::alice)
            garble(ch, d);
        else
            receive_tables(ch);
        clock.lap(last_.dependent);
        inputs(ch, d, my_bits);
        if (me_ == party::bob) evaluate(d);
        check(ch, d);
        std::optional<std::vector<std::uint8_t>> out = outputs(ch, d, who);
        clock.lap(last_.online);
        return out;
    }

    /// ANDs in the last run's circuit (regions flattened).
    std::uint64_t and_gates() const noexcept { return ands_; }

    /// The phases of the last run (run_stats::independent, dependent, online).
    void report(run_stats& r) const noexcept {
        r.independent = last_.independent;
        r.dependent = last_.dependent;
        r.online = last_.online;
    }

private:
    // ---- helpers on one shared bit ----
    struct bit_share {
        std::uint8_t bit;
        block mac, key;
    };
    static bit_share get(const shares& s, std::size_t i) noexcept { return {s.bit[i], s.mac[i], s.key[i]}; }
    static void put(shares& s, std::size_t i, const bit_share& v) noexcept {
        s.bit[i] = v.bit;
        s.mac[i] = v.mac;
        s.key[i] = v.key;
    }
    static bit_share add(const bit_share& a, const bit_share& b) noexcept {
        return {static_cast<std::uint8_t>(a.bit ^ b.bit), a.mac ^ b.mac, a.key ^ b.key};
    }
    /// c·u for a public bit c.
    static bit_share times(std::uint8_t c, const bit_share& u) noexcept {
        const block m = mask_of(c != 0);
        return {static_cast<std::uint8_t>(c & u.bit), m & u.mac, m & u.key};
    }
    /// u ⊕ c for a public bit c: Alice's share flips, Bob's key of it moves by c·Δ_B.
    bit_share plus(const bit_share& u, std::uint8_t c) const noexcept {
        if (me_ == party::alice) return {static_cast<std::uint8_t>(u.bit ^ c), u.mac, u.key};
        return {u.bit, u.mac, u.key ^ (auth_.delta() & mask_of(c != 0))};
    }
    /// Alice's share of u·Δ_A: u_A·Δ_A ⊕ K[u_B].
    block times_delta(const bit_share& u) const noexcept { return (auth_.delta() & mask_of(u.bit != 0)) ^ u.key; }
    static std::uint8_t lsb(const block& b) noexcept { return static_cast<std::uint8_t>(b.low() & 1); }

    void hash_start(net::channel& ch) {
        // The garbler's hash start, as in a semi-honest run: only the
        // garbler's own secrets depend on it being random.
        if (me_ == party::alice) {
            start_ = rng_.next();
            ch.send_value(start_);
        } else {
            start_ = ch.recv_value<block>();
        }
        hash_.emplace(tandem::detail::declassified(start_));
    }

    /// Function-independent preprocessing: random shared bits for the input
    /// wires' and AND outputs' masks, and the AND triples.
    void authenticated_bits(net::channel& ch, const circuit_data& d) {
        auth_.random(ch, d.input_bits, inputs_lam_);
        auth_.random(ch, ands_, fresh_);
        if (ands_ > 0) maker_.make(ch, ands_, triples_);
    }

    /// Step 1 for both parties: masks for every wire, the per-AND shares
    /// (λ_α, λ_β, λ_γ) and the output wires' masks.
    void masks(const circuit_data& d) {
        slot_lam_.resize(d.slot_count);
        lam_a_.resize(ands_);
        lam_b_.resize(ands_);
        for (std::uint32_t i = 0; i < d.input_bits; ++i) put(slot_lam_, i, get(inputs_lam_, i));
        std::size_t k = 0;
        for (const gate& g : d.gates) {
            switch (g.kind) {
            case gate_kind::and_gate:
                put(lam_a_, k, get(slot_lam_, g.in0));
                put(lam_b_, k, get(slot_lam_, g.in1));
                put(slot_lam_, g.out, get(fresh_, k));
                ++k;
                break;
            case gate_kind::xor_gate: put(slot_lam_, g.out, add(get(slot_lam_, g.in0), get(slot_lam_, g.in1))); break;
            case gate_kind::not_gate: put(slot_lam_, g.out, plus(get(slot_lam_, g.in0), 1)); break;
            }
        }
        output_lam_.resize(d.output_slots.size());
        for (std::size_t i = 0; i < d.output_slots.size(); ++i) {
            const std::uint32_t s = d.output_slots[i];
            put(output_lam_, i, s >= output_false ? bit_share{0, block(), block()} : get(slot_lam_, s));
        }
        slot_lam_.wipe();
    }

    /// Step 1, both: λ_σ = λ_α·λ_β by Beaver: d = λ_α ⊕ x and e = λ_β ⊕ y,
    /// opened together.
    void beaver(net::channel& ch) {
        opened_.resize(2 * ands_);
        for (std::size_t j = 0; j < ands_; ++j) {
            put(opened_, j, add(get(lam_a_, j), get(triples_.x, j)));
            put(opened_, ands_ + j, add(get(lam_b_, j), get(triples_.y, j)));
        }
        de_.resize(2 * ands_);
        auth_.open(ch, opened_, de_, beaver_step);
        opened_.wipe();
        sigma_.resize(ands_);
        for (std::size_t j = 0; j < ands_; ++j) {
            const std::uint8_t dj = de_[j], ej = de_[ands_ + j];
            const bit_share s = add(add(get(triples_.z, j), times(dj, get(triples_.y, j))), times(ej, get(triples_.x, j)));
            put(sigma_, j, plus(s, static_cast<std::uint8_t>(dj & ej)));
        }
        triples_.wipe();
    }

    /// Step 1, Alice: the garbled ANDs, sent, and every wire's 0-label.
    void garble(net::channel& ch, const circuit_data& d) {
        const block delta = auth_.delta();
        slot_label_.resize(d.slot_count);
        input_label_.resize(d.input_bits);
        rng_.fill(input_label_.data(), input_label_.size());
        for (std::uint32_t i = 0; i < d.input_bits; ++i) slot_label_[i] = input_label_[i];
        and_label_.resize(ands_);
        packed_.assign((ands_ + 7) / 8, 0);
        const std::uint64_t base = next_tweak_;
        std::size_t k = 0;
        for (const gate& g : d.gates) {
            switch (g.kind) {
            case gate_kind::and_gate: {
                const block la = slot_label_[g.in0], lb = slot_label_[g.in1];
                block h[4] = {la, lb, la ^ delta, lb ^ delta};
                hash_->hash<2, 2>(base + 2 * k, h);
                const block g0 = h[0] ^ h[2] ^ times_delta(get(lam_b_, k));
                const block g1 = h[1] ^ h[3] ^ times_delta(get(lam_a_, k)) ^ la;
                const block l0 = h[0] ^ h[1] ^ times_delta(get(sigma_, k)) ^ times_delta(get(fresh_, k));
                ch.send_value(g0);
                ch.send_value(g1);
                packed_[k / 8] = static_cast<std::uint8_t>(packed_[k / 8] | (lsb(l0) << (k % 8)));
                slot_label_[g.out] = and_label_[k] = l0;
                ++k;
                break;
            }
            case gate_kind::xor_gate: slot_label_[g.out] = slot_label_[g.in0] ^ slot_label_[g.in1]; break;
            case gate_kind::not_gate: slot_label_[g.out] = slot_label_[g.in0]; break;  // the mask absorbs NOT
            }
        }
        next_tweak_ += 2 * ands_;
        ch.send(packed_.data(), packed_.size());
        tandem::detail::wipe_all(slot_label_);
    }

    void receive_tables(net::channel& ch) {
        tables_.resize(2 * ands_);
        ch.recv(tables_.data(), tables_.size() * sizeof(block));
        packed_.resize((ands_ + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        colour_.resize(ands_);
        for (std::size_t k = 0; k < ands_; ++k) colour_[k] = static_cast<std::uint8_t>((packed_[k / 8] >> (k % 8)) & 1);
    }

    /// Step 2: the input wires' Λ for both parties, their labels for Bob.
    void inputs(net::channel& ch, const circuit_data& d, std::span<const std::uint8_t> my_bits) {
        // Which input bits are whose, and this party's values in place.
        std::vector<std::uint32_t> of[2];
        std::vector<std::uint8_t> value(d.input_bits, 0);
        std::size_t next = 0;
        for (const value_layout& v : d.inputs)
            for (std::uint32_t b = 0; b < v.bits; ++b) {
                of[v.owner == party::alice ? 0 : 1].push_back(v.first_bit + b);
                if (v.owner == me_) value[v.first_bit + b] = my_bits[next++] & 1;
            }
        input_lambda_.assign(d.input_bits, 0);
        const block delta = auth_.delta();
        // The mask shares of each party's input bits, opened to that party.
        for (const party owner : {party::alice, party::bob}) {
            const auto& bits = of[owner == party::alice ? 0 : 1];
            opened_.resize(bits.size());
            for (std::size_t j = 0; j < bits.size(); ++j) put(opened_, j, get(inputs_lam_, bits[j]));
            std::vector<std::uint8_t> lambda(bits.size());
            auth_.open_to(ch, owner, opened_, lambda, input_step);
            if (owner == me_)
                for (std::size_t j = 0; j < bits.size(); ++j)
                    input_lambda_[bits[j]] = static_cast<std::uint8_t>(value[bits[j]] ^ lambda[j]);
        }
        opened_.wipe();
        // Λ of each party's input bits to the other; labels from Alice.
        const auto& alices = of[0];
        const auto& bobs = of[1];
        if (me_ == party::alice) {
            send_bits(ch, alices, input_lambda_);
            for (const std::uint32_t w : alices)
                ch.send_value(input_label_[w] ^ (delta & mask_of(input_lambda_[w] != 0)));
            recv_bits(ch, bobs, input_lambda_);
            for (const std::uint32_t w : bobs)
                ch.send_value(input_label_[w] ^ (delta & mask_of(input_lambda_[w] != 0)));
            ch.flush();
            tandem::detail::wipe_all(input_label_);
        } else {
            input_label_.resize(d.input_bits);
            recv_bits(ch, alices, input_lambda_);
            for (const std::uint32_t w : alices) input_label_[w] = ch.recv_value<block>();
            send_bits(ch, bobs, input_lambda_);
            for (const std::uint32_t w : bobs) input_label_[w] = ch.recv_value<block>();
        }
    }

    /// Step 3, Bob: every wire's Λ and label; per AND, Λ_α, Λ_β, Λ_γ.
    void evaluate(const circuit_data& d) {
        slot_label_.resize(d.slot_count);
        slot_lambda_.assign(d.slot_count, 0);
        for (std::uint32_t i = 0; i < d.input_bits; ++i) {
            slot_label_[i] = input_label_[i];
            slot_lambda_[i] = input_lambda_[i];
        }
        and_label_.resize(ands_);
        and_lambda_.resize(3 * ands_);
        const std::uint64_t base = next_tweak_;
        std::size_t k = 0;
        for (const gate& g : d.gates) {
            switch (g.kind) {
            case gate_kind::and_gate: {
                const block la = slot_label_[g.in0], lb = slot_label_[g.in1];
                const std::uint8_t ca = slot_lambda_[g.in0], cb = slot_lambda_[g.in1];
                const block ma = mask_of(ca != 0), mb = mask_of(cb != 0);
                block h[2] = {la, lb};
                hash_->hash<2, 1>(base + 2 * k, h);
                const block l = h[0] ^ h[1] ^ (ma & tables_[2 * k]) ^ (mb & (tables_[2 * k + 1] ^ la)) ^
                                sigma_.mac[k] ^ fresh_.mac[k] ^ (ma & lam_b_.mac[k]) ^ (mb & lam_a_.mac[k]);
                const auto cg = static_cast<std::uint8_t>(lsb(l) ^ colour_[k]);
                slot_label_[g.out] = and_label_[k] = l;
                slot_lambda_[g.out] = cg;
                and_lambda_[3 * k] = ca;
                and_lambda_[3 * k + 1] = cb;
                and_lambda_[3 * k + 2] = cg;
                ++k;
                break;
            }
            case gate_kind::xor_gate:
                slot_label_[g.out] = slot_label_[g.in0] ^ slot_label_[g.in1];
                slot_lambda_[g.out] = static_cast<std::uint8_t>(slot_lambda_[g.in0] ^ slot_lambda_[g.in1]);
                break;
            case gate_kind::not_gate:
                slot_label_[g.out] = slot_label_[g.in0];
                slot_lambda_[g.out] = slot_lambda_[g.in0];
                break;
            }
        }
        next_tweak_ += 2 * ands_;
        output_lambda(d);
        tandem::detail::wipe_all(slot_label_);
        tandem::detail::wipe_all(input_label_);
    }

    /// Λ of every output bit (0 for the constants), from slot_lambda_.
    void output_lambda(const circuit_data& d) {
        output_lambda_.assign(d.output_slots.size(), 0);
        for (std::size_t i = 0; i < d.output_slots.size(); ++i) {
            const std::uint32_t s = d.output_slots[i];
            output_lambda_[i] = s >= output_false ? static_cast<std::uint8_t>(s == output_true) : slot_lambda_[s];
        }
    }

    /// Alice: every wire's Λ from Bob's Λ_γ (the rest follows by XOR).
    void propagate_lambda(const circuit_data& d, std::span<const std::uint8_t> gamma) {
        slot_lambda_.assign(d.slot_count, 0);
        for (std::uint32_t i = 0; i < d.input_bits; ++i) slot_lambda_[i] = input_lambda_[i];
        and_lambda_.resize(3 * ands_);
        std::size_t k = 0;
        for (const gate& g : d.gates) {
            switch (g.kind) {
            case gate_kind::and_gate:
                and_lambda_[3 * k] = slot_lambda_[g.in0];
                and_lambda_[3 * k + 1] = slot_lambda_[g.in1];
                and_lambda_[3 * k + 2] = slot_lambda_[g.out] = gamma[k];
                ++k;
                break;
            case gate_kind::xor_gate:
                slot_lambda_[g.out] = static_cast<std::uint8_t>(slot_lambda_[g.in0] ^ slot_lambda_[g.in1]);
                break;
            case gate_kind::not_gate: slot_lambda_[g.out] = slot_lambda_[g.in0]; break;
            }
        }
        output_lambda(d);
    }

    /// Step 4.
    void check(net::channel& ch, const circuit_data& d) {
        const block delta = auth_.delta();
        std::vector<std::uint8_t> gamma(ands_);
        if (me_ == party::bob) {
            for (std::size_t k = 0; k < ands_; ++k) gamma[k] = and_lambda_[3 * k + 2];
            std::vector<std::uint32_t> all(ands_);
            for (std::size_t k = 0; k < ands_; ++k) all[k] = static_cast<std::uint32_t>(k);
            send_bits(ch, all, gamma);
            ch.send_value(label_digest(and_label_));
        } else {
            packed_.resize((ands_ + 7) / 8);
            ch.recv(packed_.data(), packed_.size());
            for (std::size_t k = 0; k < ands_; ++k) gamma[k] = static_cast<std::uint8_t>((packed_[k / 8] >> (k % 8)) & 1);
            const digest theirs = ch.recv_value<digest>();
            for (std::size_t k = 0; k < ands_; ++k) and_label_[k] ^= delta & mask_of(gamma[k] != 0);
            if (!detail::same(label_digest(and_label_), theirs))
                detail::cheated(lambda_step, "the evaluator's masked values are not those of its labels");
            propagate_lambda(d, gamma);
        }
        tandem::detail::wipe_all(and_label_);
        // c_γ's shares: Alice's MAC of hers, or Bob's key of Alice's share
        // plus his share times Δ_B; the two must agree for every AND.
        digester h("tandem auth AND check");
        for (std::size_t k = 0; k < ands_; ++k) {
            const std::uint8_t ca = and_lambda_[3 * k], cb = and_lambda_[3 * k + 1], cg = and_lambda_[3 * k + 2];
            const bit_share c = add(add(times(ca, get(lam_b_, k)), times(cb, get(lam_a_, k))),
                                    add(get(sigma_, k), get(fresh_, k)));
            block v;
            if (me_ == party::alice) {
                v = c.mac;
            } else {
                const auto share = static_cast<std::uint8_t>((ca & cb) ^ cg ^ c.bit);
                v = c.key ^ (delta & mask_of(share != 0));
            }
            h.update(&v, sizeof v);
        }
        const digest mine = h.finish();
        if (me_ == party::alice) {
            ch.send_value(mine);
            ch.flush();
        } else if (!detail::same(ch.recv_value<digest>(), mine)) {
            detail::cheated(and_check_step, "the garbled circuit does not compute the ANDs it was given");
        }
    }

    /// Step 5: each party that learns the outputs gets the other's mask
    /// shares of the output wires, MAC-checked; the value is Λ ⊕ λ^A ⊕ λ^B.
    /// Both know every Λ by now (Alice from the AND check's first message).
    std::optional<std::vector<std::uint8_t>> outputs(net::channel& ch, const circuit_data& d, reveal who) {
        const std::size_t n = d.output_slots.size();
        std::vector<std::uint8_t> lambda(n), out(n);
        for (const party to : {party::bob, party::alice}) {
            if (who != reveal::both && who != (to == party::alice ? reveal::alice : reveal::bob)) continue;
            auth_.open_to(ch, to, output_lam_, lambda, output_step);
            if (to == me_)
                for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(output_lambda_[i] ^ lambda[i]);
        }
        ch.flush();
        // Constant outputs: their Λ is the constant and their mask 0.
        if (who != reveal::both && who != (me_ == party::alice ? reveal::alice : reveal::bob)) return std::nullopt;
        return out;
    }

    /// Times the phases of a run and counts the bytes moved in each.
    class phase_clock {
    public:
        explicit phase_clock(const net::channel& ch) noexcept : ch_(ch) { start(); }
        void lap(phase_stats& p) noexcept {
            p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
            p.bytes_sent = ch_.bytes_sent() - sent0_;
            p.bytes_received = ch_.bytes_received() - received0_;
            start();
        }

    private:
        void start() noexcept {
            t0_ = std::chrono::steady_clock::now();
            sent0_ = ch_.bytes_sent();
            received0_ = ch_.bytes_received();
        }
        const net::channel& ch_;
        std::chrono::steady_clock::time_point t0_;
        std::uint64_t sent0_ = 0, received0_ = 0;
    };

    static digest label_digest(const tandem::detail::big_vector<block>& labels) {
        digester h("tandem auth evaluator labels");
        h.update(labels.data(), labels.size() * sizeof(block));
        return h.finish();
    }

    void send_bits(net::channel& ch, const std::vector<std::uint32_t>& which, const std::vector<std::uint8_t>& bits) {
        packed_.assign((which.size() + 7) / 8, 0);
        for (std::size_t j = 0; j < which.size(); ++j)
            packed_[j / 8] = static_cast<std::uint8_t>(packed_[j / 8] | ((bits[which[j]] & 1) << (j % 8)));
        ch.send(packed_.data(), packed_.size());
    }
    void recv_bits(net::channel& ch, const std::vector<std::uint32_t>& which, std::vector<std::uint8_t>& bits) {
        packed_.resize((which.size() + 7) / 8);
        ch.recv(packed_.data(), packed_.size());
        for (std::size_t j = 0; j < which.size(); ++j)
            bits[which[j]] = static_cast<std::uint8_t>((packed_[j / 8] >> (j % 8)) & 1);
    }

    authenticator& auth_;
    triple_maker& maker_;
    prg& rng_;
    party me_ = party::alice;
    run_stats last_;  // its phases
    std::size_t ands_ = 0;
    block start_;
    std::optional<rekeyed_hash> hash_;
    std::uint64_t next_tweak_ = 0;
    triples triples_;
    shares inputs_lam_, fresh_, slot_lam_, lam_a_, lam_b_, sigma_, output_lam_, opened_;
    tandem::detail::big_vector<block> slot_label_, input_label_, and_label_, tables_;
    std::vector<std::uint8_t> packed_, de_, colour_, input_lambda_, slot_lambda_, and_lambda_, output_lambda_;
};

}  // namespace tandem::auth

TANDEM_CRYPTO_END

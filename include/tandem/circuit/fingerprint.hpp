// tandem/circuit/fingerprint.hpp — a 128-bit digest of a circuit's structure.
//
// Two parties compare fingerprints in the header of every run (docs/DESIGN.md §7.4)
// to catch a peer that compiled a different program or a different version
// of it. The digest covers every gate, the levels and steps, and the input
// and output layouts, field by field (never padding bytes). It detects
// accidents, not adversaries: a semi-honest peer runs the agreed program, so
// a fast multiply–rotate mix is enough (two independent 64-bit lanes).
#pragma once

#include <tandem/circuit/circuit_data.hpp>

#include <bit>
#include <cstdint>

namespace tandem {

/// A 128-bit digest of a circuit's structure (circuit::fingerprint()).
struct circuit_fingerprint {
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    friend bool operator==(const circuit_fingerprint&, const circuit_fingerprint&) = default;
};

namespace detail {

class fingerprint_mixer {
public:
    void add(std::uint64_t w) noexcept {
        a_ = std::rotl((a_ ^ w) * 0x9E3779B97F4A7C15ull, 29);
        b_ = std::rotl((b_ + w) * 0xC2B2AE3D27D4EB4Full, 31) ^ a_;
    }
    void add2(std::uint32_t x, std::uint32_t y) noexcept { add(x | std::uint64_t{y} << 32); }
    circuit_fingerprint finish() const noexcept {
        auto fin = [](std::uint64_t h) {  // final avalanche
            h ^= h >> 33, h *= 0xFF51AFD7ED558CCDull, h ^= h >> 33, h *= 0xC4CEB9FE1A85EC53ull;
            return h ^ (h >> 33);
        };
        return {fin(b_ ^ 0x5bd1e995), fin(a_ + b_)};
    }

private:
    std::uint64_t a_ = 0x243F6A8885A308D3ull;
    std::uint64_t b_ = 0x13198A2E03707344ull;
};

}  // namespace detail

namespace detail {
/// The digest of a gate array, the bulk of a circuit: the sum over
/// positions p of a mix of (p, gates[p]), in two 64-bit lanes. Each term is a
/// multiply–xorshift of the gate's fields and its position, and the lanes
/// fold it differently (an xorshift, a rotation), so a change of any field or
/// position changes the sums but with negligible probability: enough to
/// catch accidents, which is all a fingerprint is for. (A streamed segment's
/// gates are digested as they are recorded instead: gate_chain below.)
struct gate_sum {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    void add(std::uint64_t position, const gate& g) noexcept {
        // Operands and kind in one word, output and position in another
        // (operands and slots are below 2^31 where gates are recorded).
        const std::uint64_t u = std::uint64_t{g.in0} << 33 ^ std::uint64_t{g.in1} << 2 ^ static_cast<std::uint64_t>(g.kind);
        const std::uint64_t v = std::uint64_t{g.out} << 32 ^ position;
        const std::uint64_t t = (u ^ v * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
        a += t ^ (t >> 29);
        b += std::rotl(t, 32) ^ v;
    }
    static gate_sum of(const big_vector<gate>& gates) noexcept {
        gate_sum s;
        for (std::size_t p = 0; p < gates.size(); ++p) s.add(p, gates[p]);
        return s;
    }
    friend bool operator==(const gate_sum&, const gate_sum&) = default;
};

/// The digest of a streamed segment's gates as a builder records them: a
/// chain over each recorded gate's operands, kind and level, in record order
/// (which numbers the gates' outputs, so the outputs need no term of their
/// own). The laid-out segment is a function of its recording — levels,
/// buckets and slots follow from it — so the chain stands for its gates at
/// about a third of gate_sum's cost per gate, and no pass of the lay-out
/// touches it. It covers dead gates too (both parties record them alike).
/// Each step is a bijection of the state (an xor, an odd multiply, an xor),
/// so a difference in one gate survives until a later one cancels it
/// exactly: 64 bits against accidents, which is all a fingerprint is for.
struct gate_chain {
    std::uint64_t a = 0x452821E638D01377ull;
    void add(std::uint32_t in0, std::uint32_t in1, std::uint32_t level_kind) noexcept {
        a = ((a ^ (std::uint64_t{in1} << 32 | in0)) * 0x9E3779B97F4A7C15ull) ^ level_kind;
    }
    gate_sum value() const noexcept { return {a, std::rotl(a, 32) * 0xBF58476D1CE4E5B9ull}; }
};

/// Mixes every part of c into m; `gates`, where given, stands for c.gates in
/// place of gate_sum::of(c.gates) (a streamed segment's gate_chain).
inline void mix_circuit(fingerprint_mixer& m, const circuit_data& c, const gate_sum* gates = nullptr) {
    m.add2(c.input_bits, c.slot_count);
    const gate_sum g = gates != nullptr ? *gates : gate_sum::of(c.gates);
    m.add(c.gates.size());
    m.add(g.a);
    m.add(g.b);
    m.add(c.levels.size());
    for (const level_range& l : c.levels) m.add2(l.and_begin, l.xor_begin), m.add(l.end);
    m.add(c.steps.size());
    for (const step& s : c.steps) m.add2(static_cast<std::uint32_t>(s.kind), s.level_begin), m.add2(s.level_end, s.region);
    for (const auto* values : {&c.inputs, &c.outputs}) {
        m.add(values->size());
        for (const value_layout& v : *values) m.add2(static_cast<std::uint32_t>(v.owner), v.first_bit), m.add(v.bits);
    }
    m.add(c.output_slots.size());
    for (std::uint32_t s : c.output_slots) m.add(s);
    // Regions: bodies, instances and wire maps (not names: they hold file paths).
    m.add(c.regions.size());
    for (const region_data& r : c.regions) {
        m.add(r.bodies.size());
        for (const circuit_data& b : r.bodies) mix_circuit(m, b);
        m.add(r.instances.size());
        for (const region_instance& i : r.instances) m.add2(i.body, i.map_begin);
        m.add(r.wire_map.size());
        for (std::uint32_t w : r.wire_map) m.add(w);
    }
}
}  // namespace detail

/// The fingerprint of c's structure (see the top of this header).
inline circuit_fingerprint compute_fingerprint(const circuit_data& c) {
    detail::fingerprint_mixer m;
    m.add(0x74616e64656d3034ull);  // "tandem04": changes if the encoding below changes
    detail::mix_circuit(m, c);
    return m.finish();
}

}  // namespace tandem

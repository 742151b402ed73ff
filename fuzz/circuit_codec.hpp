// fuzz/circuit_codec.hpp — hand-made circuit_data from fuzz bytes (fuzz_circuit_data),
// and the other way round for its seeds (fuzz/seeds.cpp).
//
// Every field of circuit_data is read as it is, unchecked, in a compact form
// that keeps numbers small so the fuzzer reaches valid and nearly valid data:
//   u8  inputs (mod 8), each: u8 owner (bit 0), u16 first_bit, u16 bits
//   u16 input_bits, u16 slot_count, u16 wire_count
//   u16 gates (mod 1024), each: u8 kind (mod 4: AND, XOR, INV or no kind), u16 in0, in1, out
//   u8  levels, each: u16 and_begin, xor_begin, end
//   u8  steps, each: u8 kind (bit 0: region), u16 level_begin, level_end, u8 region
//   u8  outputs (mod 8), each: u16 first_bit, u16 bits
//   u16 output slots (mod 1024), each u16 (0xFFFE: the constant 0, 0xFFFF: the constant 1)
//   top level only: u8 regions (mod 3), each:
//       u8 bodies (mod 3), each a circuit as above without regions
//       u8 instances, each: u8 body, u16 map_begin
//       u16 wire map entries (mod 1024), each u16 (0xFFFF: unused_slot)
// Slots, bits and gate indices thus stay below 2^16.
#pragma once

#include "fuzz.hpp"

#include <tandem/circuit/circuit_data.hpp>

#include <stdexcept>

namespace tandem::fuzz {

inline std::uint32_t slot_of(std::uint16_t v) noexcept {
    return v == 0xFFFE ? output_false : v == 0xFFFF ? output_true : v;
}

inline circuit_data decode_circuit(byte_reader& r, bool top = true) {
    circuit_data d;
    for (std::size_t n = r.u8() % 8, i = 0; i < n; ++i) {
        value_layout v{};
        v.owner = (r.u8() & 1) != 0 ? party::bob : party::alice;
        v.first_bit = r.u16();
        v.bits = r.u16();
        d.inputs.push_back(v);
    }
    d.input_bits = r.u16();
    d.slot_count = r.u16();
    d.wire_count = r.u16();
    for (std::size_t n = r.u16() % 1024, i = 0; i < n; ++i) {
        gate g{};
        g.kind = static_cast<gate_kind>(r.u8() % 4);
        g.in0 = r.u16();
        g.in1 = r.u16();
        g.out = r.u16();
        d.gates.push_back(g);
    }
    for (std::size_t n = r.u8(), i = 0; i < n; ++i) {
        level_range l{};
        l.and_begin = r.u16();
        l.xor_begin = r.u16();
        l.end = r.u16();
        d.levels.push_back(l);
    }
    for (std::size_t n = r.u8(), i = 0; i < n; ++i) {
        step s{};
        s.kind = (r.u8() & 1) != 0 ? step_kind::region : step_kind::sequential;
        s.level_begin = r.u16();
        s.level_end = r.u16();
        s.region = r.u8();
        d.steps.push_back(s);
    }
    for (std::size_t n = r.u8() % 8, i = 0; i < n; ++i) {
        value_layout v{};
        v.first_bit = r.u16();
        v.bits = r.u16();
        d.outputs.push_back(v);
    }
    for (std::size_t n = r.u16() % 1024, i = 0; i < n; ++i) d.output_slots.push_back(slot_of(r.u16()));
    if (!top) return d;
    for (std::size_t n = r.u8() % 3, i = 0; i < n; ++i) {
        region_data g;
        g.name = "fuzz region " + std::to_string(i);
        for (std::size_t b = r.u8() % 3, k = 0; k < b; ++k) g.bodies.push_back(decode_circuit(r, false));
        for (std::size_t m = r.u8(), k = 0; k < m; ++k) {
            region_instance inst{};
            inst.body = r.u8();
            inst.map_begin = r.u16();
            g.instances.push_back(inst);
        }
        for (std::size_t m = r.u16() % 1024, k = 0; k < m; ++k) {
            const std::uint16_t v = r.u16();
            g.wire_map.push_back(v == 0xFFFF ? unused_slot : v);
        }
        d.regions.push_back(std::move(g));
    }
    return d;
}

/// The inverse of decode_circuit, for seeds: throws if d does not fit the
/// format (a number past its field).
class circuit_encoder {
public:
    std::vector<std::uint8_t> bytes;

    void encode(const circuit_data& d, bool top = true) {
        put8(d.inputs.size(), 8);
        for (const value_layout& v : d.inputs) {
            put8(v.owner == party::bob ? 1 : 0, 256);
            put16(v.first_bit);
            put16(v.bits);
        }
        put16(d.input_bits);
        put16(d.slot_count);
        put16(d.wire_count);
        put16(d.gates.size(), 1024);
        for (const gate& g : d.gates) {
            put8(static_cast<std::uint8_t>(g.kind), 4);
            put16(g.in0);
            put16(g.in1);
            put16(g.out);
        }
        put8(d.levels.size(), 256);
        for (const level_range& l : d.levels) {
            put16(l.and_begin);
            put16(l.xor_begin);
            put16(l.end);
        }
        put8(d.steps.size(), 256);
        for (const step& s : d.steps) {
            put8(s.kind == step_kind::region ? 1 : 0, 256);
            put16(s.level_begin);
            put16(s.level_end);
            put8(s.region, 256);
        }
        put8(d.outputs.size(), 8);
        for (const value_layout& v : d.outputs) {
            put16(v.first_bit);
            put16(v.bits);
        }
        put16(d.output_slots.size(), 1024);
        for (std::uint32_t s : d.output_slots)
            put16(s == output_false ? 0xFFFE : s == output_true ? 0xFFFF : check16(s), 0x10000);
        if (!top) {
            if (!d.regions.empty()) throw std::invalid_argument("circuit_encoder: a region body has regions");
            return;
        }
        put8(d.regions.size(), 3);
        for (const region_data& g : d.regions) {
            put8(g.bodies.size(), 3);
            for (const circuit_data& b : g.bodies) encode(b, false);
            put8(g.instances.size(), 256);
            for (const region_instance& i : g.instances) {
                put8(i.body, 256);
                put16(i.map_begin);
            }
            put16(g.wire_map.size(), 1024);
            for (std::uint32_t v : g.wire_map) put16(v == unused_slot ? 0xFFFF : check16(v), 0x10000);
        }
    }

private:
    static std::uint32_t check16(std::uint64_t v) {
        if (v >= 0xFFFE) throw std::invalid_argument("circuit_encoder: a slot does not fit 16 bits");
        return static_cast<std::uint32_t>(v);
    }
    void put8(std::uint64_t v, std::uint64_t bound) {
        if (v >= bound) throw std::invalid_argument("circuit_encoder: a count does not fit its field");
        bytes.push_back(static_cast<std::uint8_t>(v));
    }
    void put16(std::uint64_t v, std::uint64_t bound = 0x10000) {
        if (v >= bound) throw std::invalid_argument("circuit_encoder: a number does not fit its field");
        bytes.push_back(static_cast<std::uint8_t>(v));
        bytes.push_back(static_cast<std::uint8_t>(v >> 8));
    }
};

}  // namespace tandem::fuzz

// Validated circuits (issue 13): a circuit built from a circuit_data is
// checked before any engine runs it. One hand-made defect per check, the
// circuits tandem makes itself still accepted, and random mutations of valid
// circuits either refused or run (plaintext, plans, garbling) without harm.
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace validate_tests {

using namespace tandem;

namespace {

/// A small valid circuit with every part a check looks at: two input
/// values, two levels (ANDs, then XOR and NOT), a region of two instances of
/// one body between them, a constant output. With inputs a = (a0, a1) and
/// b = (b0, b1), s4 = a0 & b0, s5 = a1 & b1, s6 = s4 ^ s5, s7 = ~s6; the
/// instances AND (s4, s5) into s2 and (s6, s7) into s3; then s0 = s2 & s3,
/// s1 = s0 ^ s7. Outputs: s1, s5, true.
circuit_data base() {
    circuit_data body;
    body.input_bits = 2;
    body.slot_count = 3;
    body.inputs = {{party::alice, 0, 2}};
    body.gates.push_back({0, 1, 2, gate_kind::and_gate});
    body.levels = {{0, 1, 1}};
    body.steps = {{step_kind::sequential, 0, 1}};
    body.outputs = {{party::alice, 0, 1}};
    body.output_slots = {2};
    body.wire_count = 3;

    circuit_data d;
    d.input_bits = 4;
    d.slot_count = 8;
    d.inputs = {{party::alice, 0, 2}, {party::bob, 2, 2}};
    for (const gate g : {gate{0, 2, 4, gate_kind::and_gate}, gate{1, 3, 5, gate_kind::and_gate},
                         gate{4, 5, 6, gate_kind::xor_gate}, gate{6, 6, 7, gate_kind::not_gate},
                         gate{2, 3, 0, gate_kind::and_gate}, gate{0, 7, 1, gate_kind::xor_gate}})
        d.gates.push_back(g);
    d.levels = {{0, 2, 4}, {4, 5, 6}};
    d.steps = {{step_kind::sequential, 0, 1}, {step_kind::region, 1, 1, 0}, {step_kind::sequential, 1, 2}};
    region_data r;
    r.name = "test region";
    r.bodies.push_back(body);
    r.instances = {{0, 0}, {0, 3}};
    r.wire_map = {4, 5, 2, 6, 7, 3};
    d.regions.push_back(r);
    d.outputs = {{party::alice, 0, 3}};
    d.output_slots = {1, 5, output_true};
    d.wire_count = 4 + 6 + 2;
    return d;
}

/// base() without the region: level 1's AND reads input slots instead.
circuit_data base_flat() {
    circuit_data d = base();
    d.regions.clear();
    d.steps = {{step_kind::sequential, 0, 2}};
    d.wire_count = 4 + 6;
    return d;
}

void check_rejected(const circuit_data& d, const std::string& expected) {
    CHECK_THROWS_WITH_AS((void)circuit<>(d), doctest::Contains(expected.c_str()), usage_error);
}

/// d changed by `edit` is refused with a message containing `expected`.
void check_defect(circuit_data (*make)(), const std::function<void(circuit_data&)>& edit, const std::string& expected) {
    circuit_data d = make();
    edit(d);
    INFO("expected: " << expected);
    check_rejected(d, expected);
}

std::vector<std::vector<bool>> random_inputs(const circuit_data& d, std::mt19937_64& rng) {
    std::vector<std::vector<bool>> in;
    for (const value_layout& v : d.inputs) {
        std::vector<bool> bits(v.bits);
        for (std::uint32_t k = 0; k < v.bits; ++k) bits[k] = (rng() & 1u) != 0;
        in.push_back(std::move(bits));
    }
    return in;
}

/// Garbles and evaluates c in process and decodes: the batched, vectorised
/// path that a circuit breaking level independence would make disagree
/// with plaintext evaluation.
std::vector<bool> garbled_run(const circuit<>& c, const std::vector<std::vector<bool>>& inputs, std::uint64_t seed) {
    prg rng(block(seed, 13));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble(c, rng, tables);
    std::vector<block> active;
    for (std::size_t v = 0; v < inputs.size(); ++v)
        for (std::size_t k = 0; k < inputs[v].size(); ++k)
            active.push_back(g.input.label(c.data().inputs[v].first_bit + k, inputs[v][k]));
    gc::table_reader reader(tables.tables());
    return gc::decode(gc::evaluate(c, g.hash_start, reader, active), g.output);
}

std::vector<bool> flat(const std::vector<std::vector<bool>>& v) {
    std::vector<bool> r;
    for (const auto& x : v) r.insert(r.end(), x.begin(), x.end());
    return r;
}

}  // namespace

TEST_CASE("validate.base_circuits_are_valid") {
    for (circuit_data (*make)() : {base, base_flat}) {
        const circuit<> c(make());
        for (unsigned x = 0; x < 16; ++x) {
            const bool a0 = x & 1u, a1 = x & 2u, b0 = x & 4u, b1 = x & 8u;
            const bool s4 = a0 && b0, s5 = a1 && b1, s7 = s4 == s5;
            // The region's s2 & s3 is s4 & s5 & s6 & ~s6 = 0; without it s0 = b0 & b1.
            const bool s0 = make == base ? false : (b0 && b1);
            const auto out = eval_plain_bits(c, {{a0, a1}, {b0, b1}});
            REQUIRE(out.size() == 1);
            CHECK(out[0] == std::vector<bool>{s0 != s7, s5, true});
            CHECK(garbled_run(c, {{a0, a1}, {b0, b1}}, x) == out[0]);
        }
    }
    // An instance output nobody reads is allowed.
    circuit_data d = base();
    d.regions[0].wire_map[5] = unused_slot;
    CHECK_NOTHROW((void)circuit<>(d));
    // The empty circuit.
    CHECK_NOTHROW((void)circuit<>(circuit_data{}));
}

TEST_CASE("validate.sizes_and_values") {
    check_defect(base, [](circuit_data& d) { d.slot_count = 0xFFFFFFFFu; }, "slot_count is 4294967295 but at most");
    check_defect(base, [](circuit_data& d) { d.slot_count = 3; }, "input_bits is 4 but the circuit has only 3 slots");
    check_defect(base, [](circuit_data& d) { d.inputs[1].owner = static_cast<party>(5); },
                 "input value 1 has owner 5");
    check_defect(base, [](circuit_data& d) { d.inputs[1].first_bit = 3; },
                 "input value 1 starts at bit 3 but should start at 2");
    check_defect(base, [](circuit_data& d) { d.inputs[1].bits = 3; }, "the input values cover 5 bits but there are 4");
    check_defect(base, [](circuit_data& d) { d.outputs[0].bits = 2; },
                 "the output values cover 2 bits but there are 3");
    check_defect(base, [](circuit_data& d) { d.outputs = {{party::alice, 0, 1}, {party::alice, 2, 2}}; },
                 "output value 1 starts at bit 2 but should start at 1");
    check_defect(base, [](circuit_data& d) { d.wire_count = 11; },
                 "wire_count is 11 but the circuit has 12 wires (input bits + gates + region instance outputs)");
    check_defect(base, [](circuit_data& d) { d.slot_count = 13; },
                 "slot_count is 13 but the circuit has only 12 wires");
}

TEST_CASE("validate.levels_and_steps") {
    check_defect(base, [](circuit_data& d) { d.levels[1].and_begin = 5; },
                 "level 1 starts at gate 5 but the level before ends at gate 4");
    check_defect(base, [](circuit_data& d) { d.levels[0].xor_begin = 5; },
                 "level 0 has and_begin 0, xor_begin 5, end 4; they must satisfy and_begin <= xor_begin <= end");
    check_defect(base, [](circuit_data& d) { d.levels[1].end = 7; },
                 "level 1 ends at gate 7 but the circuit has 6 gates");
    check_defect(base, [](circuit_data& d) { d.gates.push_back({0, 1, 2, gate_kind::xor_gate}); },
                 "the levels cover 6 gates but the circuit has 7");
    check_defect(base_flat, [](circuit_data& d) { d.steps[0].level_begin = 1; },
                 "step 0 runs levels [1, 2) but should start at level 0");
    check_defect(base_flat, [](circuit_data& d) { d.steps[0].level_end = 3; },
                 "step 0 runs levels [0, 3) but should start at level 0 and end by level 2");
    check_defect(base_flat, [](circuit_data& d) { d.steps[0].level_end = 1; },
                 "the steps run 1 levels but the circuit has 2");
    check_defect(base_flat, [](circuit_data& d) { d.steps.clear(); }, "the steps run 0 levels but the circuit has 2");
    check_defect(base_flat, [](circuit_data& d) { d.steps[0].kind = static_cast<step_kind>(9); },
                 "step 0 has unknown kind 9");
    check_defect(base, [](circuit_data& d) { d.steps[1].region = 1; }, "step 1 runs region 1 but the next region is 0");
    check_defect(base, [](circuit_data& d) { d.steps[1].level_end = 2; },
                 "a region step must have level_begin == level_end == the levels run before it (1)");
    check_defect(base, [](circuit_data& d) { d.steps = {{step_kind::sequential, 0, 2}}; },
                 "the steps run 0 regions but the circuit has 1");
}

TEST_CASE("validate.gates") {
    check_defect(base, [](circuit_data& d) { d.gates[0].kind = gate_kind::xor_gate; },
                 "gate 0 (level 0) is a XOR among the level's ANDs [0, 2)");
    check_defect(base, [](circuit_data& d) { d.gates[1].kind = static_cast<gate_kind>(7); },
                 "gate 1 (level 0) is of unknown kind 7 among the level's ANDs");
    check_defect(base, [](circuit_data& d) { d.gates[2].kind = gate_kind::and_gate; },
                 "gate 2 (level 0) is an AND after the level's ANDs (from gate 2 on");
    check_defect(base, [](circuit_data& d) { d.gates[5].kind = static_cast<gate_kind>(7); },
                 "gate 5 (level 1) has unknown kind 7");
    check_defect(base, [](circuit_data& d) { d.gates[3].in1 = 5; },
                 "gate 3 (level 0) is a NOT whose operands differ (6, 5)");
    // The example message.
    check_defect(base, [](circuit_data& d) { d.gates[4].in0 = 900; },
                 "circuit: gate 4 (level 1) reads slot 900 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.gates[5].in1 = 8; },
                 "gate 5 (level 1) reads slot 8 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.gates[2].out = 8; },
                 "gate 2 (level 0) writes slot 8 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.gates[1].out = 9; },
                 "gate 1 (level 0) writes slot 9 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.gates[0].in0 = 6; },
                 "gate 0 (level 0) reads slot 6 before anything wrote it");
    check_defect(base, [](circuit_data& d) { d.gates[2].in1 = 7; },
                 "gate 2 (level 0) reads slot 7 before anything wrote it");
    // Level independence: the ANDs of a level read before any of them writes.
    check_defect(base, [](circuit_data& d) { d.gates[1].out = 0; },
                 "gate 1 (level 0) writes slot 0, which an AND of the same level reads");
    check_defect(base, [](circuit_data& d) { d.gates[0].out = 0; },
                 "gate 0 (level 0) writes slot 0, which an AND of the same level reads");  // even its own operand
    check_defect(base, [](circuit_data& d) { d.gates[1].out = 4; },
                 "gate 1 (level 0) writes slot 4, which another AND of the same level writes");
    check_defect(base, [](circuit_data& d) { d.gates[1].in0 = 4; },
                 "gate 1 (level 0) reads slot 4 before anything wrote it");
}

TEST_CASE("validate.outputs") {
    check_defect(base, [](circuit_data& d) { d.output_slots[0] = 8; },
                 "output 0 reads slot 8 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.output_slots[2] = unused_slot - 2; },
                 "output 2 reads slot 4294967293 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.slot_count = 9, d.output_slots[0] = 8; },
                 "output 0 reads slot 8, which nothing wrote");
    circuit_data d = base();
    d.output_slots = {output_false, output_true, 4};
    CHECK_NOTHROW((void)circuit<>(d));
}

TEST_CASE("validate.regions") {
    const std::string r = "region 0 ('test region') ";
    check_defect(base, [](circuit_data& d) { d.regions[0].instances[1].body = 1; },
                 r + "instance 1 runs body 1 but the region has 1 bodies");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map.pop_back(); },
                 r + "instance 1 needs wire map entries [3, 6) (2 inputs and 1 outputs) but the wire map has 5");
    check_defect(base, [](circuit_data& d) { d.regions[0].instances[0].map_begin = 0xFFFFFFFFu; },
                 r + "instance 0 needs wire map entries [4294967295, 4294967298)");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map[0] = 900; },
                 r + "instance 0 reads slot 900 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map[3] = unused_slot; },
                 r + "instance 1 reads slot 4294967295 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.slot_count = 9, d.regions[0].wire_map[1] = 8; },
                 r + "instance 0 reads slot 8 before anything wrote it");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map[2] = 8; },
                 r + "instance 0 writes slot 8 but the circuit has 8 slots");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map[2] = 6; },
                 r + "instance 0 writes slot 6, which an instance of the same region reads");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map[5] = 2; },
                 r + "instance 1 writes slot 2, which another instance of the same region writes");
    check_defect(base, [](circuit_data& d) { d.regions[0].wire_map[5] = unused_slot, d.wire_count = 11; },
                 "wire_count is 11 but the circuit has 12 wires");  // an unused output is still a wire
    // Bodies are checked as circuits of their own, and must be flat with slot outputs.
    const std::string b = r + "body 0: ";
    check_defect(base, [](circuit_data& d) { d.regions[0].bodies[0].gates[0].in0 = 7; },
                 b + "gate 0 (level 0) reads slot 7 but the circuit has 3 slots");
    check_defect(base, [](circuit_data& d) { d.regions[0].bodies[0].slot_count = 1; },
                 b + "input_bits is 2 but the circuit has only 1 slots");
    check_defect(base, [](circuit_data& d) { d.regions[0].bodies[0].output_slots[0] = output_true; },
                 b + "output 0 is a constant; a region body's outputs must be slots");
    check_defect(base, [](circuit_data& d) { d.regions[0].bodies[0].regions.push_back({}); },
                 b + "a region body has regions of its own");
    check_defect(base, [](circuit_data& d) { d.regions[0].bodies[0].wire_count = 2; }, b + "wire_count is 2");
    check_defect(base, [](circuit_data& d) { d.regions[0].bodies[0].levels[0].xor_begin = 0; },
                 b + "gate 0 (level 0) is an AND after the level's ANDs");
    // Messages name the circuit_data documentation.
    check_defect(base, [](circuit_data& d) { d.gates[4].in0 = 900; }, "tandem/circuit/circuit_data.hpp");
}

TEST_CASE("validate.typed_signature") {
    using U = secure_uint<8>;
    const auto c = compile([](U a, U b) { return a + b; }, input<party::alice, U>, input<party::bob, U>);
    using same = circuit<U(input_t<party::alice, U>, input_t<party::bob, U>)>;
    CHECK(same(c.data()).eval_plain(200, 100) == 44);
    using wide_in = circuit<U(input_t<party::alice, secure_uint<16>>, input_t<party::bob, U>)>;
    CHECK_THROWS_WITH_AS((void)wide_in(c.data()), doctest::Contains("input value 0 has 8 bits, its type 16"),
                         usage_error);
    using swapped = circuit<U(input_t<party::bob, U>, input_t<party::bob, U>)>;
    CHECK_THROWS_WITH_AS((void)swapped(c.data()),
                         doctest::Contains("input value 0 is alice's, the signature says bob's"), usage_error);
    using one = circuit<U(input_t<party::alice, U>)>;
    CHECK_THROWS_WITH_AS((void)one(c.data()), doctest::Contains("it has 2 input values, the signature 1"), usage_error);
    using wide_out = circuit<secure_uint<9>(input_t<party::alice, U>, input_t<party::bob, U>)>;
    CHECK_THROWS_WITH_AS((void)wide_out(c.data()), doctest::Contains("it has 8 output bits, the result type 9"),
                         usage_error);
}

namespace {

using U8 = secure_uint<8>;

/// Compiled circuits with regions (parallel_for, reduce), arithmetic and
/// constant outputs, and the Bristol AES-128 circuit.
std::vector<circuit<>> tandem_made() {
    std::vector<circuit<>> cs;
    cs.push_back(compile(
        [](const std::array<U8, 6>& a, const std::array<U8, 6>& b) {
            const auto prod =
                parallel_for<6>([&](std::size_t i) { return a[i] * b[i] + select(a[i] < b[i], a[i], b[i]); });
            const U8 sum = reduce(prod, [](const U8& x, const U8& y) { return x + y; });
            return std::tuple{sum, prod[2], U8(7), a[0] == b[0]};
        },
        input<party::alice, std::array<U8, 6>>, input<party::bob, std::array<U8, 6>>));
    cs.push_back(compile([](secure_int<16> a, secure_int<16> b) { return std::tuple{a / (b | 1), a * b, ~a}; },
                         input<party::alice, secure_int<16>>, input<party::bob, secure_int<16>>));
    cs.push_back(bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt"));
    return cs;
}

}  // namespace

TEST_CASE("validate.tandem_made_circuits_are_valid") {
    std::vector<circuit<>> cs = tandem_made();
    cs.push_back(flatten(cs[0]));
    std::stringstream text;
    bristol::write(text, cs[0]);
    cs.push_back(bristol::read(text, "round trip"));
    std::mt19937_64 rng(7);
    for (const circuit<>& c : cs) {
        const circuit_data copy = c.data();
        CHECK_NOTHROW((void)circuit<>(copy));
        const auto in = random_inputs(copy, rng);
        CHECK(flat(eval_plain_bits(c, in)) == garbled_run(c, in, 5));
    }
}

namespace {

/// One random edit of d (or of one of its region bodies): a field set to a
/// nearby or an extreme value.
void mutate(circuit_data& d, std::mt19937_64& rng) {
    if (!d.regions.empty() && rng() % 4 == 0) {
        region_data& r = d.regions[rng() % d.regions.size()];
        switch (rng() % 4) {
            case 0:
                if (!r.wire_map.empty()) {
                    std::uint32_t& w = r.wire_map[rng() % r.wire_map.size()];
                    w = rng() % 8 == 0 ? unused_slot : static_cast<std::uint32_t>(rng() % (d.slot_count + 2));
                }
                return;
            case 1:
                if (!r.instances.empty()) {
                    region_instance& i = r.instances[rng() % r.instances.size()];
                    (rng() % 2 ? i.body : i.map_begin) += static_cast<std::uint32_t>(rng() % 3) - 1;
                }
                return;
            default:
                if (!r.bodies.empty()) mutate(r.bodies[rng() % r.bodies.size()], rng);
                return;
        }
    }
    const auto near = [&](std::uint32_t v, std::uint32_t range) {
        switch (rng() % 8) {
            case 0: return static_cast<std::uint32_t>(rng());
            case 1: return v + 1;
            case 2: return v - 1;
            default: return static_cast<std::uint32_t>(rng() % (range + 2));
        }
    };
    switch (rng() % 12) {
        case 0: case 1: case 2: case 3: case 4: {  // gates are most of a circuit
            if (d.gates.empty()) return;
            gate& g = d.gates[rng() % d.gates.size()];
            switch (rng() % 4) {
                case 0: g.in0 = near(g.in0, d.slot_count); break;
                case 1: g.in1 = near(g.in1, d.slot_count); break;
                case 2: g.out = near(g.out, d.slot_count); break;
                default: g.kind = static_cast<gate_kind>(rng() % 4); break;
            }
            return;
        }
        case 5: {
            if (d.levels.empty()) return;
            level_range& l = d.levels[rng() % d.levels.size()];
            std::uint32_t& f = rng() % 3 == 0 ? l.and_begin : rng() % 2 ? l.xor_begin : l.end;
            f = near(f, static_cast<std::uint32_t>(d.gates.size()));
            return;
        }
        case 6: {
            if (d.steps.empty()) return;
            step& s = d.steps[rng() % d.steps.size()];
            switch (rng() % 4) {
                case 0: s.level_begin = near(s.level_begin, static_cast<std::uint32_t>(d.levels.size())); break;
                case 1: s.level_end = near(s.level_end, static_cast<std::uint32_t>(d.levels.size())); break;
                case 2: s.region = near(s.region, static_cast<std::uint32_t>(d.regions.size())); break;
                default: s.kind = static_cast<step_kind>(rng() % 3); break;
            }
            return;
        }
        case 7: case 8: {
            if (d.output_slots.empty()) return;
            std::uint32_t& s = d.output_slots[rng() % d.output_slots.size()];
            s = rng() % 4 == 0 ? (rng() % 2 ? output_true : output_false) : near(s, d.slot_count);
            return;
        }
        case 9: {
            std::vector<value_layout>& vs = rng() % 2 ? d.inputs : d.outputs;
            if (vs.empty()) return;
            value_layout& v = vs[rng() % vs.size()];
            switch (rng() % 3) {
                case 0: v.first_bit = near(v.first_bit, 8); break;
                case 1: v.bits = near(v.bits, 8); break;
                default: v.owner = static_cast<party>(rng() % 3); break;
            }
            return;
        }
        case 10: (rng() % 2 ? d.input_bits : d.slot_count) += static_cast<std::uint32_t>(rng() % 3) - 1; return;
        default: d.wire_count += rng() % 3 - 1; return;
    }
}

}  // namespace

TEST_CASE("validate.mutated_circuits_are_refused_or_run") {
    // Each mutant is either refused with usage_error or runs: plaintext, the
    // planners (FGP splits, IPP cuts), stats, flatten, Bristol export and an
    // in-process garbled run that must agree with plaintext. Under ASan (the
    // asan preset) any out-of-bounds access is a failure.
    std::vector<circuit_data> originals{base(), base_flat()};
    for (const circuit<>& c : tandem_made()) originals.push_back(c.data());
    const std::uint64_t seed = 20261113;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    int accepted = 0, refused = 0;
    for (int t = 0; t < 1500; ++t) {
        const std::size_t which = static_cast<std::size_t>(rng() % originals.size());
        circuit_data d = originals[which];
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; ++e) mutate(d, rng);
        std::optional<circuit<>> c;
        try {
            c.emplace(std::move(d));
        } catch (const usage_error&) {
            ++refused;
            continue;
        }
        ++accepted;
        INFO("mutant " << t << " of circuit " << which);
        const auto in = random_inputs(c->data(), rng);
        const auto plain = eval_plain_bits(*c, in);
        CHECK(flat(plain) == garbled_run(*c, in, static_cast<std::uint64_t>(t)));
        (void)c->stats();
        (void)c->fingerprint();
        (void)exec::make_plan(*c, 3, 1);
        (void)exec::make_ipp_plan(*c, 2, 0, 1);
        std::ostringstream text;
        bristol::write(text, *c);
        std::istringstream back(text.str());
        CHECK(eval_plain_bits(bristol::read(back, "mutant"), in) == plain);
    }
    MESSAGE("mutants: " << accepted << " accepted, " << refused << " refused");
    CHECK(accepted > 50);
    CHECK(refused > 500);
}

TEST_CASE("validate.plan_must_fit_its_circuit") {
    // exec::garble / exec::evaluate index the plan with the circuit's steps,
    // levels and instances: a plan made for another circuit is refused.
    const circuit<> with_region(base()), flat_c(base_flat());
    prg rng(block(3, 3));
    gc::encoding enc{rng.next() | block(0, 1), std::vector<block>(4)};
    rng.fill(enc.zero_labels.data(), enc.zero_labels.size());
    std::vector<gc::table_buffer> buffers(2);
    std::vector<gc::table_buffer*> sinks{&buffers[0], &buffers[1]};
    const std::span<gc::table_buffer* const> out(sinks);
    const exec::plan p = exec::make_plan(with_region, 2, 1);
    CHECK_NOTHROW(exec::garble<rekeyed_hash>(p, with_region, enc, block(), out));
    CHECK_THROWS_WITH_AS(exec::garble<rekeyed_hash>(p, flat_c, enc, block(), out),
                         doctest::Contains("the plan does not fit the circuit (the plan has 3 steps, the circuit 1)"),
                         usage_error);
    std::vector<gc::table_reader> readers{gc::table_reader(buffers[0].tables()), gc::table_reader(buffers[1].tables())};
    std::vector<gc::table_reader*> sources{&readers[0], &readers[1]};
    std::vector<block> labels(4);
    exec::plan other = exec::make_plan(with_region, 2, 1);
    other.steps[1].instance_first_and.pop_back();
    CHECK_THROWS_WITH_AS(exec::evaluate<rekeyed_hash>(other, with_region, block(),
                                                     std::span<gc::table_reader* const>(sources), labels),
                         doctest::Contains("step 1 is a region of 2 instances"), usage_error);
}

}  // namespace validate_tests

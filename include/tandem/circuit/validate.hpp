// tandem/circuit/validate.hpp — checks that a circuit_data is safe to run.
//
// The engines (plaintext evaluation, garbling, evaluation, the planners, FGP
// and IPP, flatten and Bristol export) index arrays with the numbers a
// circuit holds and never check them: checking once here, when a circuit is
// built from a circuit_data, keeps their inner loops free of bounds tests.
// validate_circuit() throws usage_error naming the first problem found. What
// it establishes, for the circuit and, each for itself, every region body:
//
//  * Sizes: slot_count <= 2^32 - 2 (the two highest numbers mark constant
//    outputs), input_bits <= slot_count <= wire_count; wire_count =
//    input_bits + gates + the outputs of every region instance (unused ones
//    included).
//  * Values: `inputs` cover input bits [0, input_bits) in order, each owned
//    by alice or bob; `outputs` cover output_slots in order.
//  * Levels: contiguous from gate 0 to gates.size(), and_begin <= xor_begin
//    <= end; gates in [and_begin, xor_begin) are ANDs, the rest XOR or NOT,
//    a NOT with in1 == in0.
//  * Steps: in order they cover every level once and name every region once,
//    in order; a region step sits between levels (level_begin == level_end ==
//    the levels before it). Bodies have no regions.
//  * Data flow, step by step: every gate operand and every slot a region
//    instance reads is < slot_count and was written before (by an input bit,
//    an earlier gate or an earlier region), and every written slot is <
//    slot_count. The engines rely on this beyond bounds: the IPP planner
//    tracks which world holds each slot, and a body's label array is reused
//    from instance to instance, so an unwritten slot would read stale labels.
//  * Independence: no AND of a level writes a slot that another AND of that
//    level reads or writes (the garbler hashes a level's ANDs in batches
//    reading all operands first, and FGP runs them on several threads);
//    no instance of a region writes a slot that an instance of it reads or
//    that another instance writes (instances run in any order, at once).
//  * Instances: the body index is valid and the wire map holds the body's
//    input_bits input slots and one slot per body output (`unused_slot` is
//    allowed for outputs only).
//  * Outputs: each output slot is < slot_count and written by the end, or
//    one of output_false / output_true (not in a body: a body's outputs are
//    copied out of its label array).
//
// The check is linear in stored gates plus slots plus wire-map entries, about
// 3 ns per gate. tandem::compile's layout satisfies all of this by
// construction and skips it, as do streamed segments (circuit.hpp,
// trusted_layout).
#pragma once

#include <tandem/circuit/circuit_data.hpp>
#include <tandem/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tandem::detail {

class circuit_validator {
public:
    /// `where` prefixes every message (which circuit or body).
    explicit circuit_validator(std::string where) : where_(std::move(where)) {}

    void check(const circuit_data& c, bool is_body) {
        sizes(c);
        values(c.inputs, c.input_bits, "input", "input bits [0, input_bits)");
        values(c.outputs, c.output_slots.size(), "output", "output_slots");
        levels(c);
        steps(c, is_body);
        for (std::size_t r = 0; r < c.regions.size(); ++r) {
            const region_data& rd = c.regions[r];
            for (std::size_t b = 0; b < rd.bodies.size(); ++b)
                circuit_validator(where_ + region_name(c, r) + " body " + std::to_string(b) + ": ")
                    .check(rd.bodies[b], true);
        }
        instances(c);
        wire_count(c);
        outputs(c, is_body, data_flow(c));
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw usage_error("circuit: " + where_ + what +
                          " (a circuit_data made by hand must follow the layout documented in "
                          "tandem/circuit/circuit_data.hpp and tandem/circuit/validate.hpp)");
    }
    static std::string str(std::uint64_t v) { return std::to_string(v); }
    static std::string region_name(const circuit_data& c, std::size_t r) {
        return "region " + str(r) + " ('" + c.regions[r].name + "')";
    }

    void sizes(const circuit_data& c) const {
        if (c.slot_count > output_false)
            fail("slot_count is " + str(c.slot_count) + " but at most " + str(output_false) +
                 " slots are allowed (the two highest numbers mark constant outputs)");
        if (c.input_bits > c.slot_count)
            fail("input_bits is " + str(c.input_bits) + " but the circuit has only " + str(c.slot_count) +
                 " slots (input bit k starts in slot k)");
    }

    void values(const std::vector<value_layout>& vs, std::uint64_t total, const char* kind, const char* covered) const {
        std::uint64_t next = 0;
        for (std::size_t i = 0; i < vs.size(); ++i) {
            const value_layout& v = vs[i];
            if (kind[0] == 'i' && v.owner != party::alice && v.owner != party::bob)
                fail("input value " + str(i) + " has owner " + str(static_cast<unsigned>(v.owner)) +
                     "; it must be party::alice or party::bob");
            if (v.first_bit != next)
                fail(std::string(kind) + " value " + str(i) + " starts at bit " + str(v.first_bit) +
                     " but should start at " + str(next) + ": the " + kind + " values must cover " + covered +
                     " in order, without gaps");
            next += v.bits;
        }
        if (next != total)
            fail(std::string("the ") + kind + " values cover " + str(next) + " bits but there are " + str(total) +
                 " (" + covered + ")");
    }

    void levels(const circuit_data& c) const {
        std::uint64_t next = 0;
        for (std::size_t l = 0; l < c.levels.size(); ++l) {
            const level_range& lv = c.levels[l];
            if (lv.and_begin != next)
                fail("level " + str(l) + " starts at gate " + str(lv.and_begin) +
                     " but the level before ends at gate " + str(next) +
                     ": levels must cover the gates in order, without gaps");
            if (lv.xor_begin < lv.and_begin || lv.end < lv.xor_begin)
                fail("level " + str(l) + " has and_begin " + str(lv.and_begin) + ", xor_begin " + str(lv.xor_begin) +
                     ", end " + str(lv.end) + "; they must satisfy and_begin <= xor_begin <= end");
            if (lv.end > c.gates.size())
                fail("level " + str(l) + " ends at gate " + str(lv.end) + " but the circuit has " +
                     str(c.gates.size()) + " gates");
            next = lv.end;
        }
        if (c.levels.size() + c.regions.size() >= max_epochs)
            fail("the circuit has " + str(c.levels.size()) + " levels and " + str(c.regions.size()) +
                 " regions; together they must be fewer than " + str(max_epochs));
        if (next != c.gates.size())
            fail("the levels cover " + str(next) + " gates but the circuit has " + str(c.gates.size()) +
                 ": every gate must belong to a level");
    }

    void steps(const circuit_data& c, bool is_body) const {
        if (is_body && !c.regions.empty()) fail("a region body has regions of its own; bodies must be flat");
        std::uint64_t level = 0, region = 0;
        for (std::size_t k = 0; k < c.steps.size(); ++k) {
            const step& st = c.steps[k];
            if (st.kind == step_kind::sequential) {
                if (st.level_begin != level || st.level_end < st.level_begin || st.level_end > c.levels.size())
                    fail("step " + str(k) + " runs levels [" + str(st.level_begin) + ", " + str(st.level_end) +
                         ") but should start at level " + str(level) + " and end by level " + str(c.levels.size()) +
                         ": steps must run the levels in order, each once");
                level = st.level_end;
            } else if (st.kind == step_kind::region) {
                if (st.region != region)
                    fail("step " + str(k) + " runs region " + str(st.region) + " but the next region is " +
                         str(region) + " (of " + str(c.regions.size()) +
                         "): steps must run every region once, in order");
                if (st.level_begin != level || st.level_end != level)
                    fail("step " + str(k) + " (a region) has levels [" + str(st.level_begin) + ", " +
                         str(st.level_end) +
                         "); a region step must have level_begin == level_end == the levels run before it (" +
                         str(level) + ")");
                ++region;
            } else {
                fail("step " + str(k) + " has unknown kind " + str(static_cast<unsigned>(st.kind)));
            }
        }
        if (level != c.levels.size())
            fail("the steps run " + str(level) + " levels but the circuit has " + str(c.levels.size()) +
                 ": every level must be run by a step");
        if (region != c.regions.size())
            fail("the steps run " + str(region) + " regions but the circuit has " + str(c.regions.size()));
    }

    void instances(const circuit_data& c) const {
        for (std::size_t r = 0; r < c.regions.size(); ++r) {
            const region_data& rd = c.regions[r];
            for (std::size_t i = 0; i < rd.instances.size(); ++i) {
                const region_instance& inst = rd.instances[i];
                if (inst.body >= rd.bodies.size())
                    fail(region_name(c, r) + " instance " + str(i) + " runs body " + str(inst.body) +
                         " but the region has " + str(rd.bodies.size()) + " bodies");
                const circuit_data& body = rd.bodies[inst.body];
                const std::uint64_t end = std::uint64_t{inst.map_begin} + body.input_bits + body.output_slots.size();
                if (end > rd.wire_map.size())
                    fail(region_name(c, r) + " instance " + str(i) + " needs wire map entries [" + str(inst.map_begin) +
                         ", " + str(end) + ") (" + str(body.input_bits) + " inputs and " +
                         str(body.output_slots.size()) + " outputs) but the wire map has " + str(rd.wire_map.size()));
            }
        }
    }

    void wire_count(const circuit_data& c) const {
        std::uint64_t n = std::uint64_t{c.input_bits} + c.gates.size();
        for (const region_data& rd : c.regions)
            for (const region_instance& inst : rd.instances) n += rd.bodies[inst.body].output_slots.size();
        if (c.wire_count != n)
            fail("wire_count is " + str(c.wire_count) + " but the circuit has " + str(n) +
                 " wires (input bits + gates + region instance outputs)");
        // More slots than wires are never needed, and the bound keeps what
        // this check (and a run) allocates in proportion to the data itself.
        if (c.slot_count > n)
            fail("slot_count is " + str(c.slot_count) + " but the circuit has only " + str(n) +
                 " wires, so it never needs more slots than that");
    }

    // Per slot: the epoch of the last write (0: never written) and of the
    // last read by an AND of the current level or an instance of the current
    // region. Epoch 1 is the inputs; each level and each region gets a new one.
    static constexpr std::uint64_t max_epochs = 0xFFFFFFF0u;  // epochs are 32-bit
    struct slot_state {
        std::uint32_t written = 0;
        std::uint32_t read = 0;
    };

    std::string gate_name(std::uint64_t g, std::size_t level) const {
        return "gate " + str(g) + " (level " + str(level) + ")";
    }

    // The walk below tests each gate with one cheap condition; these find
    // out, off the hot path, which check failed and say so.
    [[noreturn, gnu::cold, gnu::noinline]] void operand_error(const circuit_data& c, const slot_state* s,
                                                              std::uint64_t g, std::size_t l,
                                                              std::uint32_t slot) const {
        if (slot >= c.slot_count)
            fail(gate_name(g, l) + " reads slot " + str(slot) + " but the circuit has " + str(c.slot_count) + " slots");
        (void)s;  // called because slot >= slot_count or s[slot] was never written
        fail(gate_name(g, l) + " reads slot " + str(slot) +
             " before anything wrote it (only the input bits' slots [0, input_bits) start with a value)");
    }
    [[noreturn, gnu::cold, gnu::noinline]] void and_read_error(const circuit_data& c, const slot_state* s,
                                                               std::uint64_t g, std::size_t l) const {
        const gate& x = c.gates[g];
        const level_range& lv = c.levels[l];
        if (x.kind != gate_kind::and_gate)
            fail(gate_name(g, l) + " is " + kind_name(x.kind) + " among the level's ANDs [" + str(lv.and_begin) + ", " +
                 str(lv.xor_begin) + ")");
        if (x.in0 >= c.slot_count || s[x.in0].written == 0) operand_error(c, s, g, l, x.in0);
        operand_error(c, s, g, l, x.in1);
    }
    [[noreturn, gnu::cold, gnu::noinline]] void and_write_error(const circuit_data& c, const slot_state* s,
                                                                std::uint64_t g, std::size_t l, std::uint32_t e) const {
        const std::uint32_t out = c.gates[g].out;
        if (out >= c.slot_count)
            fail(gate_name(g, l) + " writes slot " + str(out) + " but the circuit has " + str(c.slot_count) + " slots");
        if (s[out].read == e)
            fail(gate_name(g, l) + " writes slot " + str(out) +
                 ", which an AND of the same level reads: the ANDs of a level run at once, so a slot they read is "
                 "free again only from the next level on");
        fail(gate_name(g, l) + " writes slot " + str(out) + ", which another AND of the same level writes");
    }
    [[noreturn, gnu::cold, gnu::noinline]] void linear_error(const circuit_data& c, const slot_state* s,
                                                             std::uint64_t g, std::size_t l) const {
        const gate& x = c.gates[g];
        if (x.kind == gate_kind::and_gate)
            fail(gate_name(g, l) + " is an AND after the level's ANDs (from gate " + str(c.levels[l].xor_begin) +
                 " on, a level holds only XOR and NOT gates)");
        if (!is_free(x.kind))
            fail(gate_name(g, l) + " has unknown kind " + str(static_cast<unsigned>(x.kind)));
        if (input_count(x.kind) == 1 && x.in1 != x.in0)
            fail(gate_name(g, l) + " is " + kind_name(x.kind) + " whose operands differ (" + str(x.in0) + ", " +
                 str(x.in1) + "); a one-input gate stores its operand in both");
        if (x.in0 >= c.slot_count || s[x.in0].written == 0) operand_error(c, s, g, l, x.in0);
        if (x.in1 >= c.slot_count || s[x.in1].written == 0) operand_error(c, s, g, l, x.in1);
        fail(gate_name(g, l) + " writes slot " + str(x.out) + " but the circuit has " + str(c.slot_count) + " slots");
    }

    /// Walks the steps; returns each slot's state at the end.
    std::vector<slot_state> data_flow(const circuit_data& c) const {
        std::vector<slot_state> state(c.slot_count);
        slot_state* const s = state.data();
        const std::uint32_t n = c.slot_count;
        for (std::uint32_t k = 0; k < c.input_bits; ++k) s[k].written = 1;
        std::uint32_t epoch = 1;
        const gate* const gates = c.gates.data();
        for (const step& st : c.steps) {
            if (st.kind == step_kind::region) {
                region_flow(c, st.region, state, ++epoch);
                continue;
            }
            for (std::uint32_t l = st.level_begin; l < st.level_end; ++l) {
                const level_range& lv = c.levels[l];
                const std::uint32_t e = ++epoch;
                // The ANDs read the slots as they were before the level...
                for (std::uint32_t g = lv.and_begin; g < lv.xor_begin; ++g) {
                    const gate& x = gates[g];
                    if (x.kind != gate_kind::and_gate || x.in0 >= n || x.in1 >= n || s[x.in0].written == 0 ||
                        s[x.in1].written == 0) [[unlikely]]
                        and_read_error(c, s, g, l);
                    s[x.in0].read = e;
                    s[x.in1].read = e;
                }
                // ...and none of them overwrites what another reads or writes.
                for (std::uint32_t g = lv.and_begin; g < lv.xor_begin; ++g) {
                    const std::uint32_t out = gates[g].out;
                    if (out >= n || s[out].read == e || s[out].written == e) [[unlikely]]
                        and_write_error(c, s, g, l, e);
                    s[out].written = e;
                }
                // The XORs and NOTs run one after another.
                for (std::uint32_t g = lv.xor_begin; g < lv.end; ++g) {
                    const gate& x = gates[g];
                    const bool kind_ok = is_free(x.kind) && (input_count(x.kind) == 2 || x.in1 == x.in0);
                    if (!kind_ok || x.in0 >= n || x.in1 >= n || x.out >= n || s[x.in0].written == 0 ||
                        s[x.in1].written == 0) [[unlikely]]
                        linear_error(c, s, g, l);
                    s[x.out].written = e;
                }
            }
        }
        return state;
    }

    static std::string kind_name(gate_kind k) {
        switch (k) {
            case gate_kind::and_gate: return "an AND";
            case gate_kind::xor_gate: return "a XOR";
            case gate_kind::not_gate: return "a NOT";
        }
        return "of unknown kind " + str(static_cast<unsigned>(k));
    }

    void region_flow(const circuit_data& c, std::uint32_t r, std::vector<slot_state>& s, std::uint32_t e) const {
        const region_data& rd = c.regions[r];
        // Every instance reads slots written before the region...
        for (std::size_t i = 0; i < rd.instances.size(); ++i)
            for (const std::uint32_t slot : rd.inputs_of(rd.instances[i])) {
                if (slot >= c.slot_count)
                    fail(region_name(c, r) + " instance " + str(i) + " reads slot " + str(slot) +
                         " but the circuit has " + str(c.slot_count) + " slots");
                if (s[slot].written == 0)
                    fail(region_name(c, r) + " instance " + str(i) + " reads slot " + str(slot) +
                         " before anything wrote it");
                s[slot].read = e;
            }
        // ...and writes slots no instance of it reads or writes.
        for (std::size_t i = 0; i < rd.instances.size(); ++i)
            for (const std::uint32_t slot : rd.outputs_of(rd.instances[i])) {
                if (slot == unused_slot) continue;
                if (slot >= c.slot_count)
                    fail(region_name(c, r) + " instance " + str(i) + " writes slot " + str(slot) +
                         " but the circuit has " + str(c.slot_count) + " slots");
                if (s[slot].read == e)
                    fail(region_name(c, r) + " instance " + str(i) + " writes slot " + str(slot) +
                         ", which an instance of the same region reads: instances run at once and may read only "
                         "slots written before the region");
                if (s[slot].written == e)
                    fail(region_name(c, r) + " instance " + str(i) + " writes slot " + str(slot) +
                         ", which another instance of the same region writes");
                s[slot].written = e;
            }
    }

    void outputs(const circuit_data& c, bool is_body, const std::vector<slot_state>& s) const {
        for (std::size_t k = 0; k < c.output_slots.size(); ++k) {
            const std::uint32_t slot = c.output_slots[k];
            if (slot == output_false || slot == output_true) {
                if (is_body) fail("output " + str(k) + " is a constant; a region body's outputs must be slots");
                continue;
            }
            if (slot >= c.slot_count)
                fail("output " + str(k) + " reads slot " + str(slot) + " but the circuit has " + str(c.slot_count) +
                     " slots");
            if (s[slot].written == 0) fail("output " + str(k) + " reads slot " + str(slot) + ", which nothing wrote");
        }
    }

    std::string where_;
};

/// Throws usage_error naming the first way in which c is not a circuit the
/// engines can run (see the top of this header).
inline void validate_circuit(const circuit_data& c) { circuit_validator("").check(c, false); }

}  // namespace tandem::detail

// tandem/circuit/bristol.hpp — Bristol Fashion import and export.
//
// Format (https://nigelsmart.github.io/MPC-Circuits/, "Bristol Fashion"):
//   line 1: ngates nwires
//   line 2: niv n_1 ... n_niv     input values and their widths
//   line 3: nov m_1 ... m_nov     output values and their widths
//   then one gate per line: nin nout in... out... KIND, KIND one of
//   XOR, AND, INV, EQ (out = constant in), EQW (out = in), MAND (k ANDs at once).
// Input value i occupies the next n_i wires; outputs are the last Σm wires.
// Wire j of a value is bit j of it (least significant first).
//
// Import records the gates through the same builder as tandem::compile, so
// the result is levelled, constant-folded and free of dead gates.
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/circuit/layout.hpp>
#include <tandem/error.hpp>

#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace tandem::bristol {

namespace detail {

class line_reader {
public:
    line_reader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

    /// Next non-blank line as a token stream; false at end of input.
    bool next(std::istringstream& tokens) {
        std::string line;
        while (std::getline(in_, line)) {
            ++number_;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            tokens.clear();
            tokens.str(line);
            return true;
        }
        return false;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw usage_error(source_ + ":" + std::to_string(number_) + ": " + what);
    }
    [[noreturn]] void fail_eof(const std::string& what) const {
        throw usage_error(source_ + ": truncated after line " + std::to_string(number_) + ": " + what);
    }
    std::uint64_t number(std::istringstream& t, const char* what) {
        std::uint64_t v;
        if (!(t >> v)) fail(std::string("expected ") + what);
        return v;
    }

private:
    std::istream& in_;
    std::string source_;
    std::uint64_t number_ = 0;
};

}  // namespace detail

/// Reads a Bristol Fashion circuit. Input value i is owned by owners[i]; by
/// default value 0 belongs to Alice and every other value to Bob. Malformed
/// input throws usage_error naming `source` and the line.
inline circuit<> read(std::istream& in, const std::string& source = "<bristol>", std::vector<party> owners = {}) {
    detail::line_reader r(in, source);
    std::istringstream t;
    if (!r.next(t)) r.fail_eof("missing the header line 'ngates nwires'");
    const std::uint64_t ngates = r.number(t, "the gate count"), nwires = r.number(t, "the wire count");
    if (nwires >= (std::uint64_t{1} << 31)) r.fail("too many wires");

    auto read_widths = [&](const char* what) {
        if (!r.next(t)) r.fail_eof(std::string("missing the ") + what + " line");
        const std::uint64_t n = r.number(t, what);
        std::vector<std::uint32_t> widths;
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t w = r.number(t, "a value width");
            if (w == 0 || w > nwires) r.fail("value width " + std::to_string(w) + " is out of range");
            widths.push_back(static_cast<std::uint32_t>(w));
        }
        return widths;
    };
    const std::vector<std::uint32_t> in_widths = read_widths("input values");
    const std::vector<std::uint32_t> out_widths = read_widths("output values");
    std::uint64_t total_in = 0;
    for (auto w : in_widths) total_in += w;
    if (total_in > nwires) r.fail("the inputs need more wires than the header declares");
    if (owners.empty())
        for (std::size_t i = 0; i < in_widths.size(); ++i) owners.push_back(i == 0 ? party::alice : party::bob);
    if (owners.size() != in_widths.size())
        throw usage_error(source + ": " + std::to_string(owners.size()) + " owners given for " +
                          std::to_string(in_widths.size()) + " input values");

    tandem::detail::builder bld;
    // Grown as wires are written, so a bogus wire count in the header costs nothing.
    std::vector<tandem::detail::wire_ref> wire;
    std::vector<std::uint8_t> set;
    const auto is_set = [&](std::uint64_t w) { return w < set.size() && set[w] != 0; };
    std::uint64_t next_wire = 0;
    for (std::size_t i = 0; i < in_widths.size(); ++i) {
        const auto first = bld.add_input_value(owners[i], in_widths[i]);
        for (std::uint32_t k = 0; k < in_widths[i]; ++k, ++next_wire) {
            wire.push_back(tandem::detail::builder::input_bit(first, k));
            set.push_back(1);
        }
    }

    auto read_in = [&](std::uint64_t w) {
        if (w >= nwires) r.fail("wire index " + std::to_string(w) + " is out of range (nwires = " +
                                std::to_string(nwires) + ")");
        if (!is_set(w)) r.fail("wire " + std::to_string(w) + " is used before it is set");
        return wire[w];
    };
    auto write_out = [&](std::uint64_t w, tandem::detail::wire_ref v) {
        if (w >= nwires) r.fail("wire index " + std::to_string(w) + " is out of range (nwires = " +
                                std::to_string(nwires) + ")");
        if (is_set(w)) r.fail("wire " + std::to_string(w) + " is set twice");
        if (w >= set.size()) {
            wire.resize(w + 1);
            set.resize(w + 1, 0);
        }
        wire[w] = v;
        set[w] = 1;
    };

    std::vector<std::uint64_t> ins, outs;
    for (std::uint64_t g = 0; g < ngates; ++g) {
        if (!r.next(t))
            r.fail_eof("expected " + std::to_string(ngates) + " gates, found " + std::to_string(g));
        const std::uint64_t nin = r.number(t, "the gate's input count"), nout = r.number(t, "the gate's output count");
        if (nin > 1024 || nout > 1024) r.fail("gate arity out of range");
        ins.resize(nin);
        outs.resize(nout);
        for (auto& w : ins) w = r.number(t, "an input wire");
        for (auto& w : outs) w = r.number(t, "an output wire");
        std::string kind;
        if (!(t >> kind)) r.fail("missing the gate kind");
        auto arity = [&](std::uint64_t i, std::uint64_t o) {
            if (nin != i || nout != o)
                r.fail(kind + " takes " + std::to_string(i) + " input(s) and " + std::to_string(o) + " output(s)");
        };
        if (kind == "XOR") {
            arity(2, 1);
            write_out(outs[0], bld.xor_(read_in(ins[0]), read_in(ins[1])));
        } else if (kind == "AND") {
            arity(2, 1);
            write_out(outs[0], bld.and_(read_in(ins[0]), read_in(ins[1])));
        } else if (kind == "INV" || kind == "NOT") {
            arity(1, 1);
            write_out(outs[0], ~read_in(ins[0]));
        } else if (kind == "EQ") {
            arity(1, 1);
            if (ins[0] > 1) r.fail("EQ needs the constant 0 or 1");
            write_out(outs[0], tandem::detail::constant_ref(ins[0] == 1));
        } else if (kind == "EQW") {
            arity(1, 1);
            write_out(outs[0], read_in(ins[0]));
        } else if (kind == "MAND") {
            if (nin != 2 * nout) r.fail("MAND takes 2k inputs and k outputs");
            for (std::uint64_t k = 0; k < nout; ++k)
                write_out(outs[k], bld.and_(read_in(ins[k]), read_in(ins[nout + k])));
        } else {
            r.fail("unknown gate kind '" + kind + "'");
        }
        if (std::string extra; t >> extra) r.fail("unexpected '" + extra + "' after the gate kind");
    }
    if (std::istringstream rest; r.next(rest)) r.fail("more gate lines than the declared " + std::to_string(ngates));

    std::uint64_t total_out = 0;
    for (auto w : out_widths) total_out += w;
    if (total_out > nwires) throw usage_error(source + ": the outputs need more wires than the header declares");
    std::uint64_t w = nwires - total_out;
    for (std::uint32_t width : out_widths) {
        std::vector<tandem::detail::wire_ref> bits(width);
        for (auto& b : bits) {
            if (!is_set(w))
                throw usage_error(source + ": output wire " + std::to_string(w) + " is never set by any gate");
            b = wire[w++];
        }
        bld.add_output_value(bits.data(), width);
    }
    return circuit<>(tandem::detail::lay_out(std::move(bld).take()));
}

/// Reads a Bristol Fashion file; see read(std::istream&, ...).
inline circuit<> read_file(const std::string& path, std::vector<party> owners = {}) {
    std::ifstream in(path);
    if (!in) throw usage_error("cannot open Bristol file '" + path + "'");
    return read(in, path, std::move(owners));
}

/// Writes c as Bristol Fashion. Regions are flattened. Outputs are produced
/// directly by their gates where possible; an output that is an input, a
/// constant or a repeat of another output gets an EQW/EQ gate of its own.
inline void write(std::ostream& out, const circuit<>& c) {
    const circuit<> flat = flatten(c);
    const circuit_data& d = flat.data();
    constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
    // Which gate writes the slot each output bit reads at the end.
    std::vector<std::uint64_t> slot_writer(d.slot_count, none);
    for (std::uint64_t g = 0; g < d.gates.size(); ++g) slot_writer[d.gates[g].out] = g;
    const std::uint64_t n_out = d.output_slots.size();
    std::vector<std::uint64_t> gate_out_wire(d.gates.size(), none);
    std::vector<std::uint64_t> copy_from(n_out, none);  // output k needs a copy gate
    std::uint64_t copies = 0;
    for (std::uint64_t k = 0; k < n_out; ++k) {
        const std::uint32_t s = d.output_slots[k];
        const bool is_gate = s != output_false && s != output_true && slot_writer[s] != none;
        if (is_gate && gate_out_wire[slot_writer[s]] == none) gate_out_wire[slot_writer[s]] = k;  // fixed below
        else ++copies, copy_from[k] = k;
    }
    const std::uint64_t n_in = d.input_bits;
    const std::uint64_t n_plain_gates = d.gates.size() - (n_out - copies);
    const std::uint64_t n_wires = n_in + n_plain_gates + n_out;
    const std::uint64_t first_out = n_wires - n_out;
    for (auto& w : gate_out_wire)
        if (w != none) w += first_out;

    out << d.gates.size() + copies << ' ' << n_wires << '\n' << d.inputs.size();
    for (const auto& v : d.inputs) out << ' ' << v.bits;
    out << '\n' << d.outputs.size();
    for (const auto& v : d.outputs) out << ' ' << v.bits;
    out << "\n\n";

    std::vector<std::uint64_t> slot_wire(d.slot_count, none);
    for (std::uint64_t k = 0; k < n_in; ++k) slot_wire[k] = k;
    std::uint64_t next = n_in;
    for (std::uint64_t g = 0; g < d.gates.size(); ++g) {
        const gate& x = d.gates[g];
        const std::uint64_t a = slot_wire[x.in0], b = slot_wire[x.in1];
        const std::uint64_t o = gate_out_wire[g] != none ? gate_out_wire[g] : next++;
        if (x.kind == gate_kind::not_gate) out << "1 1 " << a << ' ' << o << " INV\n";
        else out << "2 1 " << a << ' ' << b << ' ' << o << ' ' << to_string(x.kind) << '\n';
        slot_wire[x.out] = o;
    }
    for (std::uint64_t k = 0; k < n_out; ++k) {
        if (copy_from[k] == none) continue;
        const std::uint32_t s = d.output_slots[k];
        if (s == output_false || s == output_true) out << "1 1 " << (s == output_true ? 1 : 0) << ' ' << first_out + k << " EQ\n";
        else out << "1 1 " << slot_wire[s] << ' ' << first_out + k << " EQW\n";
    }
}

/// Writes c to a Bristol Fashion file.
inline void write_file(const std::string& path, const circuit<>& c) {
    std::ofstream out(path);
    if (!out) throw usage_error("cannot open '" + path + "' for writing");
    write(out, c);
    if (!out) throw usage_error("writing Bristol file '" + path + "' failed");
}

}  // namespace tandem::bristol

// tandem/circuit/bristol.hpp — Bristol Fashion import and export, and
// import of the older Bristol format.
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
// The old format, which the standard collections still ship for some
// circuits (the 32-bit adder, SHA-1, ...), has one header line fewer:
//   line 1: ngates nwires
//   line 2: n1 n2 n3              bits of input 1, of input 2, of the output
//   then the gates, as above (its files use XOR, AND and INV).
// So it always has two input values (n1 or n2 may be 0) and one output
// value. Wires are numbered as in Fashion: input 1 takes wires [0, n1),
// input 2 the next n2, the output the last n3, and wire j of a value is its
// bit j; the published 32-bit adder numbers them so (its output wire 406 =
// wire 0 XOR wire 32 is bit 0 of the sum, and its carry chain ends in wire
// 438, bit 32). A file that orders the bits of a value otherwise is read as
// it is written: reorder the bits yourself.
//
// read() takes a `format`: fashion or old to insist on one, or detect (the
// default) to choose by this rule: the old format's first gate is on line 3,
// Fashion's line 3 holds only numbers, so the file is old if its third
// non-blank line ends in a gate name (a word, not a number), Fashion if it
// does not; a file of two lines is old if it declares no gates and its line 2
// has three numbers. Insisting on one format refuses the other with a message
// naming the format found.
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
    /// The number of the line read last.
    std::uint64_t line() const noexcept { return number_; }
    [[noreturn]] void fail(const std::string& what) const { fail_at(number_, what); }
    [[noreturn]] void fail_at(std::uint64_t line, const std::string& what) const {
        throw usage_error(source_ + ":" + std::to_string(line) + ": " + what);
    }
    [[noreturn]] void fail_eof(const std::string& what) const {
        throw usage_error(source_ + ": truncated after line " + std::to_string(number_) + ": " + what);
    }
    std::uint64_t number(std::istringstream& t, const char* what) { return number_at(t, what, number_); }
    std::uint64_t number_at(std::istringstream& t, const char* what, std::uint64_t line) const {
        std::uint64_t v;
        if (!(t >> v)) fail_at(line, std::string("expected ") + what);
        return v;
    }

private:
    std::istream& in_;
    std::string source_;
    std::uint64_t number_ = 0;
};

/// The last whitespace-separated token of a line.
inline std::string last_token(const std::string& line) {
    const std::size_t end = line.find_last_not_of(" \t\r");
    if (end == std::string::npos) return "";
    const std::size_t space = line.find_last_of(" \t", end);
    const std::size_t begin = space == std::string::npos ? 0 : space + 1;
    return line.substr(begin, end + 1 - begin);
}

/// Number of whitespace-separated tokens of a line.
inline std::size_t token_count(const std::string& line) {
    std::istringstream t(line);
    std::size_t n = 0;
    for (std::string w; t >> w;) ++n;
    return n;
}

}  // namespace detail

/// Which Bristol format read() accepts (see the top of this header).
enum class format : std::uint8_t {
    detect,   ///< either, told apart by line 3
    fashion,  ///< Bristol Fashion only
    old,      ///< the old format only: line 2 is "n1 n2 n3"
};

/// Reads a Bristol circuit, in Bristol Fashion or in the old format as `fmt`
/// says. Input value i is owned by owners[i]; by default value 0 belongs to
/// Alice and every other value to Bob. Malformed input throws usage_error
/// naming `source` and the line.
inline circuit<> read(std::istream& in, const std::string& source = "<bristol>", std::vector<party> owners = {},
                      format fmt = format::detect) {
    detail::line_reader r(in, source);
    std::istringstream t;
    if (!r.next(t)) r.fail_eof("missing the header line 'ngates nwires'");
    const std::uint64_t ngates = r.number(t, "the gate count"), nwires = r.number(t, "the wire count");
    if (nwires >= (std::uint64_t{1} << 31)) r.fail("too many wires");

    // Lines 2 and 3 tell the formats apart: the old format's gates start on line 3.
    std::istringstream line2, line3;
    if (!r.next(line2))
        r.fail_eof("missing the line of input values ('niv n_1 ... n_niv' in Bristol Fashion, 'n1 n2 n3' in the old "
                   "Bristol format)");
    const std::uint64_t at2 = r.line();
    const bool has_line3 = r.next(line3);
    const std::uint64_t at3 = r.line();
    const std::string last = detail::last_token(line3.str());
    const bool line3_is_gate = has_line3 && last.find_first_not_of("0123456789") != std::string::npos;
    format found = line3_is_gate ? format::old : format::fashion;
    if (!has_line3)  // nothing to tell by: a file with no gates
        found = fmt != format::detect ? fmt
                : ngates == 0 && detail::token_count(line2.str()) == 3 ? format::old
                                                                        : format::fashion;
    if (fmt == format::fashion && found == format::old)
        r.fail_at(at3, "'" + line3.str() +
                           "' is a gate where Bristol Fashion has its line of output values: this is a circuit in the "
                           "old Bristol format (line 2 'n1 n2 n3', then the gates), not Bristol Fashion; read it with "
                           "bristol::format::old or bristol::format::detect");
    if (fmt == format::old && found == format::fashion)
        r.fail_at(at3, "'" + line3.str() +
                           "' holds only numbers where the old Bristol format has its first gate: this is a Bristol "
                           "Fashion circuit (line 2 'niv n_1 ... n_niv', line 3 'nov m_1 ... m_nov', then the gates), "
                           "not the old Bristol format; read it with bristol::format::fashion or "
                           "bristol::format::detect");

    const auto width = [&](std::istringstream& tokens, std::uint64_t line, bool zero_ok) {
        const std::uint64_t w = r.number_at(tokens, "a value width", line);
        if ((w == 0 && !zero_ok) || w > nwires)
            r.fail_at(line, "value width " + std::to_string(w) + " is out of range");
        return static_cast<std::uint32_t>(w);
    };
    std::vector<std::uint32_t> in_widths, out_widths;
    bool line3_pending = false;  // the old format: line 3 is the first gate
    if (found == format::old) {
        if (detail::token_count(line2.str()) != 3)
            r.fail_at(at2, "line 2 of the old Bristol format must be 'n1 n2 n3' (the bits of input 1, of input 2 and "
                           "of the output), not '" + line2.str() + "'");
        in_widths.push_back(width(line2, at2, true));
        in_widths.push_back(width(line2, at2, true));
        out_widths.push_back(width(line2, at2, false));
        line3_pending = has_line3;
    } else {
        const auto widths = [&](std::istringstream& tokens, std::uint64_t line, const char* what, bool zero_ok) {
            const std::uint64_t n = r.number_at(tokens, what, line);
            std::vector<std::uint32_t> ws;
            for (std::uint64_t i = 0; i < n; ++i) ws.push_back(width(tokens, line, zero_ok));
            return ws;
        };
        // An input value may have no bits: the old format's absent input, which
        // write() then emits as width 0 (found by fuzzing: the round trip failed).
        in_widths = widths(line2, at2, "input values", true);
        if (!has_line3) r.fail_eof("missing the output values line");
        out_widths = widths(line3, at3, "output values", false);
    }
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
        if (line3_pending) {
            t.swap(line3);
            line3_pending = false;
        } else if (!r.next(t)) {
            r.fail_eof("expected " + std::to_string(ngates) + " gates, found " + std::to_string(g));
        }
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
    if (line3_pending) r.fail_at(at3, "more gate lines than the declared " + std::to_string(ngates));
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

/// Reads a Bristol file; see read(std::istream&, ...).
inline circuit<> read_file(const std::string& path, std::vector<party> owners = {}, format fmt = format::detect) {
    std::ifstream in(path);
    if (!in) throw usage_error("cannot open Bristol file '" + path + "'");
    return read(in, path, std::move(owners), fmt);
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

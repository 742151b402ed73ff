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
#include <string_view>
#include <vector>

namespace tandem::bristol {

namespace detail {

class line_reader {
public:
    line_reader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

    /// Next non-blank line as a token stream; false at end of input.
    bool next(std::istringstream& tokens) {
        std::string line;
        if (!next_line(line)) return false;
        tokens.clear();
        tokens.str(line);
        return true;
    }
    /// Next non-blank line; false at end of input.
    bool next_line(std::string& line) {
        while (std::getline(in_, line)) {
            ++number_;
            if (line.find_first_not_of(" \t\r") != std::string::npos) return true;
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

/// The whitespace-separated tokens of one line, read in place: gate lines
/// are parsed without streams, as files run to gigabytes.
class tokens {
public:
    explicit tokens(std::string_view line) noexcept : s_(line) {}
    /// The next token; false at the end of the line.
    bool next(std::string_view& token) noexcept {
        while (i_ < s_.size() && is_space(s_[i_])) ++i_;
        if (i_ == s_.size()) return false;
        const std::size_t begin = i_;
        while (i_ < s_.size() && !is_space(s_[i_])) ++i_;
        token = s_.substr(begin, i_ - begin);
        return true;
    }
    /// The next token as a decimal number below 10^19; false if there is
    /// none or it is not one.
    bool number(std::uint64_t& v) noexcept {
        while (i_ < s_.size() && is_space(s_[i_])) ++i_;
        const std::size_t begin = i_;
        v = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') v = v * 10 + static_cast<unsigned>(s_[i_++] - '0');
        const std::size_t digits = i_ - begin;
        return digits > 0 && digits <= 19 && (i_ == s_.size() || is_space(s_[i_]));
    }

private:
    static bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }
    std::string_view s_;
    std::size_t i_ = 0;
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

/// A Bristol gate as read: its kind and wires, as the file writes them.
enum class gate_op : std::uint8_t {
    xor_gate,   ///< XOR: 2 inputs, 1 output
    and_gate,   ///< AND: 2 inputs, 1 output
    inv_gate,   ///< INV (or NOT): 1 input, 1 output
    eq_gate,    ///< EQ: the output is the constant ins[0] (0 or 1)
    eqw_gate,   ///< EQW: the output is a copy of ins[0]
    mand_gate,  ///< MAND: k ANDs, outs[j] = ins[j] AND ins[k + j]
};

/// Line 1 to 3 of a Bristol file (either format).
struct header {
    std::uint64_t gates = 0;
    std::uint64_t wires = 0;
    std::vector<std::uint32_t> input_widths;   ///< bits of each input value, in order
    std::vector<std::uint32_t> output_widths;  ///< bits of each output value (the last wires)
    format found = format::fashion;            ///< the format the file is in
};

/// Reads a Bristol file one gate at a time, without holding the circuit:
/// the header at construction, then next() until it returns false.
/// Syntax, arity and the gate count are checked here; what the wires mean
/// (set before use, set once) is the caller's to check, with fail() to name
/// the line. read() is this reader feeding tandem's builder.
class reader {
public:
    /// Reads the header; `fmt` as in read().
    reader(std::istream& in, std::string source, format fmt = format::detect) : r_(in, std::move(source)) {
        std::istringstream t;
        if (!r_.next(t)) r_.fail_eof("missing the header line 'ngates nwires'");
        h_.gates = r_.number(t, "the gate count");
        h_.wires = r_.number(t, "the wire count");

        // Lines 2 and 3 tell the formats apart: the old format's gates start on line 3.
        std::istringstream line2;
        if (!r_.next(line2))
            r_.fail_eof("missing the line of input values ('niv n_1 ... n_niv' in Bristol Fashion, 'n1 n2 n3' in the "
                        "old Bristol format)");
        const std::uint64_t at2 = r_.line();
        const bool has_line3 = r_.next(line3_);
        const std::uint64_t at3 = r_.line();
        const std::string last = detail::last_token(line3_.str());
        const bool line3_is_gate = has_line3 && last.find_first_not_of("0123456789") != std::string::npos;
        format found = line3_is_gate ? format::old : format::fashion;
        if (!has_line3)  // nothing to tell by: a file with no gates
            found = fmt != format::detect ? fmt
                    : h_.gates == 0 && detail::token_count(line2.str()) == 3 ? format::old
                                                                             : format::fashion;
        if (fmt == format::fashion && found == format::old)
            r_.fail_at(at3, "'" + line3_.str() +
                                "' is a gate where Bristol Fashion has its line of output values: this is a circuit "
                                "in the old Bristol format (line 2 'n1 n2 n3', then the gates), not Bristol Fashion; "
                                "read it with bristol::format::old or bristol::format::detect");
        if (fmt == format::old && found == format::fashion)
            r_.fail_at(at3, "'" + line3_.str() +
                                "' holds only numbers where the old Bristol format has its first gate: this is a "
                                "Bristol Fashion circuit (line 2 'niv n_1 ... n_niv', line 3 'nov m_1 ... m_nov', then "
                                "the gates), not the old Bristol format; read it with bristol::format::fashion or "
                                "bristol::format::detect");
        h_.found = found;
        at3_ = at3;

        const auto width = [&](std::istringstream& tokens, std::uint64_t line, bool zero_ok) {
            const std::uint64_t w = r_.number_at(tokens, "a value width", line);
            if ((w == 0 && !zero_ok) || w > h_.wires)
                r_.fail_at(line, "value width " + std::to_string(w) + " is out of range");
            return static_cast<std::uint32_t>(w);
        };
        if (found == format::old) {
            if (detail::token_count(line2.str()) != 3)
                r_.fail_at(at2, "line 2 of the old Bristol format must be 'n1 n2 n3' (the bits of input 1, of input 2 "
                                "and of the output), not '" + line2.str() + "'");
            h_.input_widths.push_back(width(line2, at2, true));
            h_.input_widths.push_back(width(line2, at2, true));
            h_.output_widths.push_back(width(line2, at2, false));
            line3_pending_ = has_line3;
        } else {
            const auto widths = [&](std::istringstream& tokens, std::uint64_t line, const char* what, bool zero_ok) {
                const std::uint64_t n = r_.number_at(tokens, what, line);
                std::vector<std::uint32_t> ws;
                for (std::uint64_t i = 0; i < n; ++i) ws.push_back(width(tokens, line, zero_ok));
                return ws;
            };
            // An input value may have no bits: the old format's absent input, which
            // write() then emits as width 0 (found by fuzzing: the round trip failed).
            h_.input_widths = widths(line2, at2, "input values", true);
            if (!has_line3) r_.fail_eof("missing the output values line");
            h_.output_widths = widths(line3_, at3, "output values", false);
        }
        std::uint64_t total_in = 0, total_out = 0;
        for (auto w : h_.input_widths) total_in += w;
        for (auto w : h_.output_widths) total_out += w;
        if (total_in > h_.wires) r_.fail("the inputs need more wires than the header declares");
        if (total_out > h_.wires) r_.fail("the outputs need more wires than the header declares");
    }

    const header& head() const noexcept { return h_; }

    /// Reads the next gate into op, ins and outs (the vectors are reused);
    /// false once all declared gates are read, after checking that no gate
    /// line follows.
    bool next(gate_op& op, std::vector<std::uint64_t>& ins, std::vector<std::uint64_t>& outs) {
        if (read_ == h_.gates) {
            if (line3_pending_) r_.fail_at(at3_, "more gate lines than the declared " + std::to_string(h_.gates));
            if (r_.next_line(line_)) r_.fail("more gate lines than the declared " + std::to_string(h_.gates));
            return false;
        }
        if (line3_pending_) {
            line_ = line3_.str();
            line3_pending_ = false;
        } else if (!r_.next_line(line_)) {
            r_.fail_eof("expected " + std::to_string(h_.gates) + " gates, found " + std::to_string(read_));
        }
        ++read_;
        detail::tokens t(line_);
        const auto number = [&](const char* what) {
            std::uint64_t v = 0;
            if (!t.number(v)) r_.fail(std::string("expected ") + what);
            return v;
        };
        const std::uint64_t nin = number("the gate's input count"), nout = number("the gate's output count");
        if (nin > 1024 || nout > 1024) r_.fail("gate arity out of range");
        ins.resize(nin);
        outs.resize(nout);
        for (auto& w : ins) w = number("an input wire");
        for (auto& w : outs) w = number("an output wire");
        std::string_view kind;
        if (!t.next(kind)) r_.fail("missing the gate kind");
        auto arity = [&](std::uint64_t i, std::uint64_t o) {
            if (nin != i || nout != o)
                r_.fail(std::string(kind) + " takes " + std::to_string(i) + " input(s) and " + std::to_string(o) +
                        " output(s)");
        };
        if (kind == "XOR") arity(2, 1), op = gate_op::xor_gate;
        else if (kind == "AND") arity(2, 1), op = gate_op::and_gate;
        else if (kind == "INV" || kind == "NOT") arity(1, 1), op = gate_op::inv_gate;
        else if (kind == "EQ") {
            arity(1, 1);
            if (ins[0] > 1) r_.fail("EQ needs the constant 0 or 1");
            op = gate_op::eq_gate;
        } else if (kind == "EQW") arity(1, 1), op = gate_op::eqw_gate;
        else if (kind == "MAND") {
            if (nin != 2 * nout) r_.fail("MAND takes 2k inputs and k outputs");
            op = gate_op::mand_gate;
        } else {
            r_.fail("unknown gate kind '" + std::string(kind) + "'");
        }
        if (std::string_view extra; t.next(extra))
            r_.fail("unexpected '" + std::string(extra) + "' after the gate kind");
        return true;
    }

    /// Gates read so far.
    std::uint64_t gates_read() const noexcept { return read_; }
    /// Throws usage_error "source:line: what" for the line read last.
    [[noreturn]] void fail(const std::string& what) const { r_.fail(what); }

private:
    detail::line_reader r_;
    header h_;
    std::istringstream line3_;
    std::string line_;
    std::uint64_t at3_ = 0;
    bool line3_pending_ = false;  // the old format: line 3 is the first gate
    std::uint64_t read_ = 0;
};

/// Reads a Bristol circuit, in Bristol Fashion or in the old format as `fmt`
/// says. Input value i is owned by owners[i]; by default value 0 belongs to
/// Alice and every other value to Bob. Malformed input throws usage_error
/// naming `source` and the line.
inline circuit<> read(std::istream& in, const std::string& source = "<bristol>", std::vector<party> owners = {},
                      format fmt = format::detect) {
    reader r(in, source, fmt);
    const header& h = r.head();
    if (h.wires >= (std::uint64_t{1} << 31)) r.fail("too many wires");
    if (owners.empty())
        for (std::size_t i = 0; i < h.input_widths.size(); ++i) owners.push_back(i == 0 ? party::alice : party::bob);
    if (owners.size() != h.input_widths.size())
        throw usage_error(source + ": " + std::to_string(owners.size()) + " owners given for " +
                          std::to_string(h.input_widths.size()) + " input values");

    tandem::detail::builder bld;
    // Grown as wires are written, so a bogus wire count in the header costs nothing.
    std::vector<tandem::detail::wire_ref> wire;
    std::vector<std::uint8_t> set;
    const auto is_set = [&](std::uint64_t w) { return w < set.size() && set[w] != 0; };
    for (std::size_t i = 0; i < h.input_widths.size(); ++i) {
        const auto first = bld.add_input_value(owners[i], h.input_widths[i]);
        for (std::uint32_t k = 0; k < h.input_widths[i]; ++k) {
            wire.push_back(tandem::detail::builder::input_bit(first, k));
            set.push_back(1);
        }
    }

    auto read_in = [&](std::uint64_t w) {
        if (w >= h.wires) r.fail("wire index " + std::to_string(w) + " is out of range (nwires = " +
                                 std::to_string(h.wires) + ")");
        if (!is_set(w)) r.fail("wire " + std::to_string(w) + " is used before it is set");
        return wire[w];
    };
    auto write_out = [&](std::uint64_t w, tandem::detail::wire_ref v) {
        if (w >= h.wires) r.fail("wire index " + std::to_string(w) + " is out of range (nwires = " +
                                 std::to_string(h.wires) + ")");
        if (is_set(w)) r.fail("wire " + std::to_string(w) + " is set twice");
        if (w >= set.size()) {
            wire.resize(w + 1);
            set.resize(w + 1, 0);
        }
        wire[w] = v;
        set[w] = 1;
    };

    gate_op op{};
    std::vector<std::uint64_t> ins, outs;
    while (r.next(op, ins, outs)) {
        switch (op) {
            case gate_op::xor_gate: write_out(outs[0], bld.xor_(read_in(ins[0]), read_in(ins[1]))); break;
            case gate_op::and_gate: write_out(outs[0], bld.and_(read_in(ins[0]), read_in(ins[1]))); break;
            case gate_op::inv_gate: write_out(outs[0], ~read_in(ins[0])); break;
            case gate_op::eq_gate: write_out(outs[0], tandem::detail::constant_ref(ins[0] == 1)); break;
            case gate_op::eqw_gate: write_out(outs[0], read_in(ins[0])); break;
            case gate_op::mand_gate:
                for (std::size_t k = 0; k < outs.size(); ++k)
                    write_out(outs[k], bld.and_(read_in(ins[k]), read_in(ins[outs.size() + k])));
                break;
        }
    }

    std::uint64_t total_out = 0;
    for (auto w : h.output_widths) total_out += w;
    std::uint64_t w = h.wires - total_out;
    for (std::uint32_t width : h.output_widths) {
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
        if (input_count(x.kind) == 1) out << "1 1 " << a << ' ' << o << ' ' << to_string(x.kind) << '\n';
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

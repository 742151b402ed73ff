// tools/tandem-run/bristol_stream.hpp — a Bristol file run as a streamed
// function (tandem/dsl/stream.hpp): the file is read gate by gate while the
// run garbles and sends, so no party ever holds the circuit.
//
// Two passes over the file. The first (on construction) checks it and
// notes, for every wire, the last gate that reads it. The second runs inside
// the streamed function on each party: each gate becomes a DSL operation on
// secure_bit, and a wire is dropped after its last reader, so the run holds
// only the live wires (plus 4 bytes per wire for the last-use table) — never
// the gates. Inputs are two sequences of bits, Alice's values then Bob's;
// outputs are opened in blocks of 64 bits at the end.
#pragma once

#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tandem_run {

class bristol_stream {
public:
    bristol_stream(std::string path, tandem::bristol::format fmt, std::vector<tandem::party> owners)
        : path_(std::move(path)), fmt_(fmt), owners_(std::move(owners)) {
        std::ifstream in = open();
        tandem::bristol::reader r(in, path_, fmt_);
        head_ = r.head();
        if (owners_.empty())
            for (std::size_t i = 0; i < head_.input_widths.size(); ++i)
                owners_.push_back(i == 0 ? tandem::party::alice : tandem::party::bob);
        if (owners_.size() != head_.input_widths.size())
            throw tandem::usage_error(path_ + ": " + std::to_string(owners_.size()) + " owners given for " +
                                      std::to_string(head_.input_widths.size()) + " input values");
        if (head_.gates >= never)
            throw tandem::usage_error(path_ + ": --stream reads files of up to 2^32 - 2 gates; this one declares " +
                                      std::to_string(head_.gates));
        last_use_.assign(head_.wires, unused);
        std::vector<std::uint8_t> set(head_.wires, 0);
        std::uint64_t w = 0;
        for (std::uint32_t width : head_.input_widths)
            for (std::uint32_t k = 0; k < width; ++k) set[w++] = 1;
        tandem::bristol::gate_op op{};
        std::vector<std::uint64_t> ins, outs;
        std::uint32_t g = 0;
        while (r.next(op, ins, outs)) {
            if (op != tandem::bristol::gate_op::eq_gate)
                for (std::uint64_t in_wire : ins) {
                    check_wire(r, in_wire);
                    if (set[in_wire] == 0) r.fail("wire " + std::to_string(in_wire) + " is used before it is set");
                    last_use_[in_wire] = g;
                }
            for (std::uint64_t out_wire : outs) {
                check_wire(r, out_wire);
                if (set[out_wire] != 0) r.fail("wire " + std::to_string(out_wire) + " is set twice");
                set[out_wire] = 1;
            }
            if (op == tandem::bristol::gate_op::and_gate) ++ands_;
            if (op == tandem::bristol::gate_op::mand_gate) ands_ += outs.size();
            ++g;
        }
        std::uint64_t total_out = 0;
        for (auto width : head_.output_widths) total_out += width;
        for (std::uint64_t o = head_.wires - total_out; o < head_.wires; ++o) {
            if (set[o] == 0)
                throw tandem::usage_error(path_ + ": output wire " + std::to_string(o) + " is never set by any gate");
            last_use_[o] = never;  // kept to the end
        }
        for (std::size_t i = 0; i < owners_.size(); ++i)
            bits_of_[owners_[i] == tandem::party::bob] += head_.input_widths[i];
    }

    const tandem::bristol::header& head() const noexcept { return head_; }
    const std::vector<tandem::party>& owners() const noexcept { return owners_; }
    std::uint64_t and_gates() const noexcept { return ands_; }
    /// Input bits Alice (false) or Bob (true) supplies.
    std::uint64_t input_bits(tandem::party p) const noexcept { return bits_of_[p == tandem::party::bob]; }

    /// The streamed function; its outputs land in outputs() on the parties that learn them.
    auto function(tandem::reveal who, std::uint64_t segment_ands) {
        using tandem::party;
        using tandem::secure_bit;
        auto fn = tandem::stream(
            [this, who](const tandem::sequence<secure_bit>& alice, const tandem::sequence<secure_bit>& bob) {
                return body(alice, bob, who);
            },
            tandem::sequence_input<party::alice, secure_bit>(input_bits(party::alice)),
            tandem::sequence_input<party::bob, secure_bit>(input_bits(party::bob)));
        fn.segment_ands = segment_ands;
        fn.expected_ands = ands_;
        return fn;
    }

    /// The output values of the last run, if this party learnt them.
    const std::optional<std::vector<std::vector<bool>>>& outputs() const noexcept { return outputs_; }

private:
    static constexpr std::uint32_t unused = std::numeric_limits<std::uint32_t>::max() - 1;
    static constexpr std::uint32_t never = std::numeric_limits<std::uint32_t>::max();  // an output: never dropped

    std::ifstream open() const {
        std::ifstream in(path_);
        if (!in) throw tandem::usage_error("cannot open Bristol file '" + path_ + "'");
        return in;
    }

    void check_wire(const tandem::bristol::reader& r, std::uint64_t w) const {
        if (w >= head_.wires)
            r.fail("wire index " + std::to_string(w) + " is out of range (nwires = " + std::to_string(head_.wires) + ")");
    }

    tandem::secure_bit body(const tandem::sequence<tandem::secure_bit>& alice,
                            const tandem::sequence<tandem::secure_bit>& bob, tandem::reveal who) {
        using tandem::secure_bit;
        using op_t = tandem::bristol::gate_op;
        std::unordered_map<std::uint64_t, secure_bit> live;
        // Inputs: value i's bits are the next ones of its owner's sequence.
        std::uint64_t wire = 0, next_of[2] = {0, 0};
        for (std::size_t i = 0; i < owners_.size(); ++i) {
            const bool is_bob = owners_[i] == tandem::party::bob;
            for (std::uint32_t k = 0; k < head_.input_widths[i]; ++k, ++wire) {
                const std::uint64_t j = next_of[is_bob]++;
                if (last_use_[wire] != unused) live.emplace(wire, is_bob ? bob[j] : alice[j]);
            }
        }
        std::ifstream in = open();
        tandem::bristol::reader r(in, path_, fmt_);
        op_t op{};
        std::vector<std::uint64_t> ins, outs;
        std::uint32_t g = 0;
        const auto get = [&](std::uint64_t w) -> const secure_bit& { return live.at(w); };
        const auto put = [&](std::uint64_t w, secure_bit v) {
            if (last_use_[w] != unused) live.insert_or_assign(w, std::move(v));
        };
        while (r.next(op, ins, outs)) {
            switch (op) {
                case op_t::xor_gate: put(outs[0], get(ins[0]) ^ get(ins[1])); break;
                case op_t::and_gate: put(outs[0], get(ins[0]) & get(ins[1])); break;
                case op_t::inv_gate: put(outs[0], !get(ins[0])); break;
                case op_t::eq_gate: put(outs[0], secure_bit(ins[0] == 1)); break;
                case op_t::eqw_gate: put(outs[0], get(ins[0])); break;
                case op_t::mand_gate:
                    for (std::size_t k = 0; k < outs.size(); ++k)
                        put(outs[k], get(ins[k]) & get(ins[outs.size() + k]));
                    break;
            }
            if (op != op_t::eq_gate)
                for (std::uint64_t w : ins)
                    if (last_use_[w] == g) live.erase(w);
            ++g;
        }
        // Outputs: the last wires, opened 64 bits at a time.
        std::uint64_t total_out = 0;
        for (auto width : head_.output_widths) total_out += width;
        std::vector<bool> bits;
        bool learnt = true;
        for (std::uint64_t first = head_.wires - total_out; first < head_.wires; first += 64) {
            std::array<secure_bit, 64> block;
            for (std::uint64_t k = 0; k < 64 && first + k < head_.wires; ++k) block[k] = get(first + k);
            const auto plain = tandem::open(block, who);
            learnt = plain.has_value();
            if (plain)
                for (std::uint64_t k = 0; k < 64 && first + k < head_.wires; ++k) bits.push_back((*plain)[k]);
        }
        if (!learnt) {
            outputs_.reset();
        } else {
            std::vector<std::vector<bool>> values;
            std::uint64_t at = 0;
            for (auto width : head_.output_widths) {
                values.emplace_back(bits.begin() + static_cast<std::ptrdiff_t>(at),
                                    bits.begin() + static_cast<std::ptrdiff_t>(at + width));
                at += width;
            }
            outputs_ = std::move(values);
        }
        return secure_bit(false);
    }

    std::string path_;
    tandem::bristol::format fmt_;
    std::vector<tandem::party> owners_;
    tandem::bristol::header head_;
    std::vector<std::uint32_t> last_use_;  ///< per wire: the last gate reading it, unused or never
    std::uint64_t ands_ = 0;
    std::uint64_t bits_of_[2] = {0, 0};
    std::optional<std::vector<std::vector<bool>>> outputs_;
};

}  // namespace tandem_run

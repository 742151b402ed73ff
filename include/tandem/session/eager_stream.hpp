// tandem/session/eager_stream.hpp — one streamed run garbled as it is made
// (streamed_function::eager; docs/DESIGN.md §11): this party's gate sink.
//
// The eager builder hands the function's gates over as they are made
// (circuit/builder.hpp, gate_sink); they go straight into this party's
// labels (gc/eager.hpp), whose windows run through the engine's core on the
// main link. After the run's start_run (the hash start), the messages are:
//
//   Bob            choose: OT extension columns for his input bits, when an
//                  input enters (a single value at the start, a sequence's
//                  chunk when it is first read)
//   both           enter: Bob's columns read, Alice's active labels sent
//   Alice → Bob    the garbled tables, window by window, as they are made
//   Alice → Bob    at each cut, after the segment's tables: the segment
//                  header, its digest chained over the run; Bob compares it
//                  with his own and stops with protocol_error at the first
//                  segment that differs — before anything it opens
//   both           open, where the segment opens values (engine::open)
//
// Unlike a levelled segment's, the header follows the segment's tables:
// its gates are known only once they have been garbled. A peer running
// another program is caught at the same cut as in a levelled run, before any
// value is opened; until then its evaluation is garbage it cannot read.
// Both parties run their windows at the same points (gc/eager.hpp), and
// also at every input and cut, so tweaks and tables agree. Alice sends what
// she has buffered before she waits for Bob (his columns, his labels), so
// neither waits for the other at once.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/gc/eager.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/session/engine.hpp>
#include <tandem/session/stream.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// The engine's core as eager_labels calls it. Each window with ANDs is
/// announced by the garbler (a tagged word with its AND count) before its
/// tables and checked by the evaluator, who reads no table before the count
/// matches his own: a peer running another program is named at its first
/// window that differs, not left waiting for tables that never come (the
/// segment digest at the cut catches programs whose counts agree). The
/// evaluator's table source is allowed exactly each level's tables.
struct eager_core {
    static constexpr std::uint64_t window_tag = std::uint64_t{0x57494e44} << 32;  // "WIND"
    std::unique_ptr<gc::core> core;
    gc::channel_source* source;  ///< the evaluator's; null for the garbler
    garbling_scheme scheme;      ///< what its tables take (gc/scheme.hpp)
    net::channel& ch;
    const std::uint64_t& segment;  ///< the segment now running, for the message

    void begin_window(std::uint64_t ands) {
        const std::uint64_t word = window_tag | ands;
        if (source == nullptr) return ch.send_value(word);
        const auto peer = ch.recv_value<std::uint64_t>();
        if (peer != word)
            throw protocol_error(
                "streamed run: the parties run different functions (or sizes, or segment_ands): in segment " +
                std::to_string(segment) + " this party runs a window of " + std::to_string(ands) + " ANDs, " +
                ((peer & ~std::uint64_t{0xFFFFFFFF}) == window_tag ? "the peer one of " + std::to_string(peer & 0xFFFFFFFF)
                                                                   : std::string("the peer none")) +
                "; both must call session::run with the same streamed function and options");
    }
    void ands(const gate* gates, gc::detail::label_array& label, std::uint32_t begin, std::uint32_t end,
              std::uint64_t first_and) {
        if (source != nullptr) source->allow(gc::tables_of(scheme, end - begin));
        core->ands(gates, label, begin, end, first_and);
    }
};

/// This party's side of a streamed run garbled as it is made.
class eager_stream_runner final : public gate_sink {
public:
    /// Starts the run (the engine's start_run: Alice sends the hash start, Bob reads it).
    eager_stream_runner(engine& e, const progress_callback& progress, std::uint64_t expected_ands)
        : e_((e.start_run(), e)),  // the hash start first: the cores are made under it
          ch_(e.main_link()), sink_(ch_), parts_(e.eager_parts(sink_)),
          core_{std::move(parts_.core), parts_.source, parts_.scheme, ch_, index_},
          labels_(core_, parts_.not_mask, e.first_and()),
          log(ch_, progress, expected_ands) {}
    eager_stream_runner(const eager_stream_runner&) = delete;
    eager_stream_runner& operator=(const eager_stream_runner&) = delete;
    ~eager_stream_runner() { wipe(&parts_.not_mask, sizeof parts_.not_mask); }

    void gates(std::span<const gate> made) override {
        labels_.run(made);
        made_ += made.size();
    }

    void inputs(std::uint32_t first, party owner, std::uint32_t bits, const std::uint8_t* values) override {
        labels_.flush();  // both parties, at the same point: Alice's tables so far can then all be sent
        std::vector<stream_input_bit> in(bits);
        for (std::uint32_t k = 0; k < bits; ++k)
            in[k] = {first + k, owner, values != nullptr ? values[k] : std::uint8_t{0}};
        (owner == party::alice ? alice_bits_ : bob_bits_) += bits;
        std::vector<block> t;  // Bob's labels of his bits
        if (e_.garbler()) {
            sink_.flush();  // Bob has read every table before he sends his columns
        } else {
            std::vector<std::uint8_t> choices;
            if (owner == party::bob)
                for (const stream_input_bit& b : in) choices.push_back(b.value);
            t = e_.choose(choices);
        }
        e_.enter(in, labels_.array(first + bits - 1), t);
    }

    std::optional<std::vector<bool>> end_segment(std::span<const std::uint32_t> carried,
                                                 std::span<const std::uint32_t> opened, std::optional<reveal> who,
                                                 const gate_sum& gates) override {
        labels_.flush();
        const segment_header mine = header_of(carried.size(), who ? opened.size() : 0, who, gates);
        if (e_.garbler()) {
            mine.send(ch_);
            ch_.flush();
        } else {
            segment_log::compare(ch_, mine);
        }
        std::optional<std::vector<bool>> result;
        if (who)
            result = e_.open(*who, opened, labels_.array(0), [&](std::size_t k) {
                return "opened bit " + std::to_string(k) + " of segment " + std::to_string(mine.index);
            });
        labels_.carry(carried);
        ch_.flush();
        log.done(mine.and_gates, labels_.slots());
        alice_bits_ = bob_bits_ = 0;
        made_ = 0;
        segment_first_and_ = labels_.next_and();
        return result;
    }

    /// ANDs garbled or evaluated so far (tweaks used).
    std::uint64_t and_gates() const noexcept { return labels_.next_and() - run_first_and_; }

private:
    /// This segment's header, its digest chained over the run: the gates
    /// as made (the builder's gate_chain), the input bits, what is carried
    /// and opened.
    segment_header header_of(std::size_t carried, std::size_t opened, std::optional<reveal> who,
                             const gate_sum& gates) {
        fingerprint_mixer m;
        m.add(digest_.hi);
        m.add(digest_.lo);
        m.add(index_);
        m.add(gates.a);
        m.add(gates.b);
        m.add(made_);
        m.add2(alice_bits_, bob_bits_);
        m.add2(static_cast<std::uint32_t>(carried), static_cast<std::uint32_t>(opened));
        m.add(who ? 1 + static_cast<std::uint64_t>(*who) : 0);
        digest_ = m.finish();
        segment_header h;
        h.index = index_++;
        h.digest_hi = digest_.hi;
        h.digest_lo = digest_.lo;
        h.and_gates = labels_.next_and() - segment_first_and_;
        h.gates = made_;
        h.alice_bits = alice_bits_;
        h.bob_bits = bob_bits_;
        h.carried = static_cast<std::uint32_t>(carried);
        h.opened = static_cast<std::uint32_t>(opened);
        return h;
    }

    engine& e_;
    net::channel& ch_;
    gc::channel_sink sink_;
    std::uint64_t index_ = 0;  // the segment running
    engine::eager_parts_t parts_;
    eager_core core_;
    gc::eager_labels<eager_core> labels_;
    circuit_fingerprint digest_;
    std::uint64_t made_ = 0;
    std::uint32_t alice_bits_ = 0, bob_bits_ = 0;
    std::uint64_t run_first_and_ = labels_.next_and();
    std::uint64_t segment_first_and_ = labels_.next_and();

public:
    segment_log log;
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END

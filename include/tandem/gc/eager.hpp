// tandem/gc/eager.hpp — garbling or evaluating gates as the function makes
// them (garble as you go).
//
// An eager builder (circuit/builder.hpp, gate_sink) hands its gates over as
// the DSL makes them: nothing is recorded, deduplicated or laid out. This is
// EMP's model — a gate is garbled as the C++ runs — except that the ANDs are
// batched as tandem's levelled runs batch them. Gates wait in a small window
// levelled as they arrive: a gate's level is the longest chain of window ANDs
// it waits for (0: its operands' labels are known, and an XOR or NOT on them
// is computed at once). The window runs level by level — a level's ANDs
// hashed as one batch through the half-gates kernels (gc/half_gates.hpp: the
// core's ands(), one tweak pair per AND, in the level's order), then its XORs
// and NOTs in the order made — when it holds `window_ands` ANDs, when a gate
// would be deeper than `window_levels`, or before a label is read (an opened
// value, a cut). Made in order alone, a window would batch little: a
// comparison is a chain of single ANDs, and the next comparison of a tree of
// minima, independent of it, is made only after it; levelled, the
// comparisons of one window share their levels (bench_record --eager: 5,500
// ANDs per window on the streamed minimum, against 2 in made order).
//
// Both parties see the same gates in the same order and run their windows at
// the same points, so their levels — and tweaks and tables — agree. A core
// that has begin_window(ands) hears of each window with ANDs before it runs
// (the session's: the garbler announces the count, the evaluator checks it).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/gate.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/gc/half_gates.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// One party's labels in an eager run, indexed by the builder's wire ids,
/// and its window of pending gates. Core is garbler_core or evaluator_core
/// (its ands() hashes one level of the window); not_mask is what a NOT adds
/// to its operand's label: Δ for the garbler (zero labels), zero for the
/// evaluator.
template <class Core>
class eager_labels {
public:
    /// ANDs a window holds at most, and its levels: wide enough that
    /// independent chains made one after another (a tree of comparisons,
    /// products' adders) share levels, small enough to stay in L2.
    static constexpr std::size_t window_ands = 8192;
    static constexpr std::uint32_t window_levels = 255;

    eager_labels(Core& core, block not_mask, std::uint64_t first_and = 0)
        : core_(core), not_mask_(not_mask), next_and_(first_and), ands_(window_levels + 1), linear_(window_levels + 1) {}
    eager_labels(const eager_labels&) = delete;
    eager_labels& operator=(const eager_labels&) = delete;
    ~eager_labels() {
        tandem::detail::wipe_all(label_);
        tandem::detail::wipe_all(moved_);
        tandem::detail::wipe(&not_mask_, sizeof not_mask_);
    }

    /// Gates in the order made (gate_sink::gates).
    void run(std::span<const gate> made) {
        if (made.empty()) return;
        room_for(made.back().out);  // outputs are fresh ids, increasing: the last is the largest
        // The arrays and the epoch in locals: a label is a vector type, whose
        // stores may alias anything, so members would be loaded again after each.
        std::uint32_t* const tag = tag_.data();
        block* const label = label_.data();
        const block not_mask = not_mask_;
        std::uint32_t epoch = epoch_base_;
        for (const gate& g : made) {
            const bool is_and = g.kind == gate_kind::and_gate;
            std::uint32_t l = std::max(level_in(tag, epoch, g.in0), level_in(tag, epoch, g.in1)) + (is_and ? 1u : 0u);
            if (l > window_levels) [[unlikely]] {  // too deep: run the window, the operands are known then
                flush();
                epoch = epoch_base_;
                l = is_and ? 1u : 0u;
            }
            if (l == 0) {  // linear in known labels: now
                label[g.out] = linear_value(label, not_mask, g);
                continue;
            }
            (is_and ? ands_ : linear_)[l].push_back(g);
            tag[g.out] = epoch | l;
            if (is_and && ++window_and_count_ == window_ands) {
                flush();
                epoch = epoch_base_;
            }
        }
    }

    /// Sets wire w's label (an input bit's).
    void set(std::uint32_t w, const block& label) {
        room_for(w);
        label_[w] = label;
    }
    /// The label array, holding wires 0 .. top at least (inputs are entered
    /// into it, opened labels read from it: flush first).
    detail::label_array& array(std::uint32_t top) {
        room_for(top);
        return label_;
    }
    /// Wire w's label, the window flushed first if w is pending.
    const block& get(std::uint32_t w) {
        if (level_in(tag_.data(), epoch_base_, w) != 0) flush();
        return label_[w];
    }

    /// Ends a segment: flushes, then moves wire carried[c] to wire c + 1.
    void carry(std::span<const std::uint32_t> carried) {
        flush();
        moved_.clear();  // (kept, not wiped, between segments: wiped with the labels)
        for (const std::uint32_t w : carried) moved_.push_back(label_[w]);
        room_for(static_cast<std::uint32_t>(carried.size()));
        std::copy(moved_.begin(), moved_.end(), label_.begin() + 1);
    }

    /// Runs the window level by level: each level's ANDs hashed as one batch
    /// (their tweaks in that order), then the XORs and NOTs that read them.
    void flush() {
        if constexpr (requires { core_.begin_window(window_and_count_); })
            if (window_and_count_ != 0) core_.begin_window(window_and_count_);
        bool any = false;
        block* const label = label_.data();  // (the core writes labels, never reallocates them)
        const block not_mask = not_mask_;
        for (std::uint32_t l = 1; l <= window_levels; ++l) {
            if (linear_[l].empty() && ands_[l].empty()) continue;
            any = true;
            std::vector<gate>& a = ands_[l];
            if (!a.empty()) {
                core_.ands(a.data(), label_, 0, static_cast<std::uint32_t>(a.size()), next_and_);
                next_and_ += a.size();
                a.clear();
            }
            for (const gate& g : linear_[l]) label[g.out] = linear_value(label, not_mask, g);
            linear_[l].clear();
        }
        windows_ += any ? 1 : 0;
        window_and_count_ = 0;
        epoch_base_ += 1u << 8;
        if (epoch_base_ == 0) {  // after 2^24 windows: no stale tag may fall in the new epoch
            std::fill(tag_.begin(), tag_.end(), 0u);
            epoch_base_ = 1u << 8;
        }
    }

    /// The tweak index of the next AND (ANDs so far plus first_and).
    std::uint64_t next_and() const noexcept { return next_and_; }
    /// Windows run so far (ANDs over windows: the average window).
    std::uint64_t windows() const noexcept { return windows_; }
    /// Labels held: the largest segment's wires.
    std::size_t slots() const noexcept { return label_.size(); }

private:
    /// A wire's level in the window: 0 if its label is known (made before
    /// the window, or linear in known labels), else the length of the chain
    /// of window ANDs it waits for. Tagged epoch << 8 | level when set: a
    /// tag from an earlier window (a smaller epoch) reads as level 0, so
    /// nothing is cleared between windows.
    static std::uint32_t level_in(const std::uint32_t* tag, std::uint32_t epoch, std::uint32_t w) noexcept {
        const std::uint32_t t = tag[w] - epoch;
        return t <= window_levels ? t : 0u;
    }

    static block linear_value(const block* label, const block& not_mask, const gate& g) noexcept {
        static_assert(tandem::detail::free_kinds_are_xor_and_not, "give the new free kind its label here");
        return label[g.in0] ^ (g.kind == gate_kind::xor_gate ? label[g.in1] : not_mask);
    }

    void room_for(std::uint32_t w) {
        if (w >= label_.size()) [[unlikely]]
            grow(w);
    }
    [[gnu::noinline]] void grow(std::uint32_t w) {
        const std::size_t n = std::max<std::size_t>({std::size_t{w} + 1, 2 * label_.size(), 4096});
        detail::label_array bigger(n);
        std::copy(label_.begin(), label_.end(), bigger.begin());
        tandem::detail::wipe_all(label_);
        label_.swap(bigger);
        tag_.resize(n, 0u);
    }

    Core& core_;
    block not_mask_;
    std::uint64_t next_and_;
    detail::label_array label_;
    std::vector<std::uint32_t> tag_;     // epoch << 8 | level, as of the window the wire's level was set in
    std::uint32_t epoch_base_ = 1u << 8;  // the current window's epoch << 8
    std::vector<std::vector<gate>> ands_;    // the window's ANDs, by level (1..window_levels)
    std::vector<std::vector<gate>> linear_;  // its XORs and NOTs that wait, by level
    std::size_t window_and_count_ = 0;
    std::uint64_t windows_ = 0;
    std::vector<block> moved_;  // carry()'s scratch
};

}  // namespace tandem::gc

TANDEM_CRYPTO_END

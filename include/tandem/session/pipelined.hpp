// tandem/session/pipelined.hpp — a streamed run's segments (or, eager, its
// gates) garbled or evaluated on a thread of their own while the function
// makes the next (session_options::pipeline_streams; docs/DESIGN.md §11).
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/detail/handoff.hpp>
#include <tandem/error.hpp>

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

namespace tandem::detail {

/// The CPUs this process may run on: its affinity mask where the OS gives
/// one (taskset, a container's cpuset), else the machine's count; at least 1.
inline unsigned usable_cpus() noexcept {
#if defined(__linux__) && defined(CPU_COUNT)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

/// session_options::pipeline_streams left unset: pipeline where each party
/// has two cores of its own — `cpus` of this process's, shared with the
/// peer where it runs on this host. (With one core per party the recorder
/// and the runner take turns, and gain nothing: bench/RESULTS.md, issue 28.)
constexpr bool pipelining_pays(unsigned cpus, bool peer_on_this_host) noexcept {
    return cpus >= (peer_on_this_host ? 4u : 2u);
}

/// Runs another runner's segments on a thread of its own, so that segment
/// k + 1 is recorded while segment k is garbled or evaluated (docs/DESIGN.md §11).
/// At most one segment waits; a segment that opens values is run after the
/// ones before it, on the caller's thread, since the caller needs its bits.
/// A failure on the thread is rethrown by the next run() or by finish().
/// The inner runner is used by one thread at a time (handed over under the
/// handoff's mutex), and it owns everything a segment touches (labels,
/// links), so the recorder and the runner share nothing else.
class pipelined_runner final : public segment_runner {
public:
    /// `interrupt` stops the inner runner's blocking calls (its links): called
    /// when this runner is destroyed with a segment still running, e.g. when
    /// the function failed, so that the thread ends now, not at a deadline.
    pipelined_runner(segment_runner& inner, std::function<void()> interrupt)
        : inner_(inner), worker_(1, [this](stream_segment& s) { (void)inner_.run(std::move(s)); }, std::move(interrupt)) {}

    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        if (s.open) return worker_.run_here([&] { return inner_.run(std::move(s)); });
        worker_.post(std::move(s));
        return std::nullopt;
    }

    /// Waits until every segment handed over has run; rethrows a failure.
    void finish() { worker_.finish(); }

private:
    segment_runner& inner_;
    handoff<stream_segment> worker_;
};

/// An eager run's gate sink (gc/eager.hpp, session/eager_stream.hpp) on a
/// thread of its own: the function makes the next gates while the last
/// ones are garbled or evaluated and sent. Gates are handed over in batches
/// of `batch_gates`, each with what follows it (an input, a segment's end);
/// at most `depth` batches wait (a few MiB at most). A segment that opens
/// values ends on the caller's thread once everything before it has run. The
/// inner sink sees the same calls in the same order as without the thread,
/// so a pipelined party and one that is not run the same protocol.
class pipelined_sink final : public gate_sink {
public:
    static constexpr std::size_t batch_gates = 8192;
    static constexpr std::size_t depth = 8;

    /// `interrupt` as pipelined_runner's.
    pipelined_sink(gate_sink& inner, std::function<void()> interrupt)
        : inner_(inner), worker_(depth, [this](job& j) { run(j); }, std::move(interrupt), true),
          next_(worker_.recycled()) {}

    void gates(std::span<const gate> made) override {
        next_.gates.insert(next_.gates.end(), made.begin(), made.end());
        if (next_.gates.size() >= batch_gates) hand_over();
    }

    void inputs(std::uint32_t first, party owner, std::uint32_t bits, const std::uint8_t* values) override {
        next_.then = job::input;
        next_.first = first;
        next_.owner = owner;
        next_.bits = bits;
        if (values != nullptr) next_.values.assign(values, values + bits);  // the caller's buffer is reused
        else next_.values.clear();  // (bits > 0: empty means this party does not know them)
        hand_over();
    }

    std::optional<std::vector<bool>> end_segment(std::span<const std::uint32_t> carried,
                                                 std::span<const std::uint32_t> opened, std::optional<reveal> who,
                                                 const gate_sum& sum) override {
        if (who) {  // the caller needs the bits: run it here once everything before it has run
            hand_over();
            return worker_.run_here([&] { return inner_.end_segment(carried, opened, who, sum); });
        }
        next_.then = job::segment_end;
        next_.carried.assign(carried.begin(), carried.end());
        next_.sum = sum;
        hand_over();
        return std::nullopt;
    }

    /// Hands over the gates made since the last batch and waits until
    /// everything has run; rethrows a failure on the thread.
    void finish() {
        hand_over();
        worker_.finish();
    }

private:
    /// Gates made, then what follows them.
    struct job {
        enum event : std::uint8_t { none, input, segment_end };
        std::vector<gate> gates;
        event then = none;
        std::uint32_t first = 0, bits = 0;
        party owner = party::alice;
        std::vector<std::uint8_t> values;  ///< the input bits where this party knows them, else empty
        std::vector<std::uint32_t> carried;
        gate_sum sum;
    };

    void hand_over() {
        if (next_.gates.empty() && next_.then == job::none) return;
        worker_.post(std::move(next_));
        next_ = worker_.recycled();
        next_.gates.clear();
        next_.then = job::none;
    }

    void run(job& j) {
        if (!j.gates.empty()) inner_.gates(j.gates);
        if (j.then == job::input) inner_.inputs(j.first, j.owner, j.bits, j.values.empty() ? nullptr : j.values.data());
        if (j.then == job::segment_end) (void)inner_.end_segment(j.carried, {}, std::nullopt, j.sum);
    }

    gate_sink& inner_;
    handoff<job> worker_;
    job next_;  // filled by the caller
};

}  // namespace tandem::detail

// tandem/circuit/circuit.hpp — tandem::circuit, the recorded function.
//
// A circuit is immutable once built and shares its data: copying one is a
// reference-count increment, and one circuit may be read from many threads.
// `circuit<>` (circuit<void>) is the untyped form — what Bristol import gives
// and what the engines consume; `tandem::compile` returns a typed
// `circuit<R(input<...>...)>` (dsl/compile.hpp) that also knows the C++ types
// of its inputs and outputs, and converts to circuit<>.
//
// Building a circuit from a circuit_data validates it (circuit/validate.hpp):
// the engines trust every index it holds, so a malformed one is refused here
// with a usage_error naming the first problem. Two producers skip the check
// with the detail::trusted_layout tag: tandem::compile, whose layout is
// valid by construction and for which the check would add ~10 % to every
// compile (bench/RESULTS.md, "Validated circuits"), and the segments of a
// streamed run, whose inputs sit in the run's slots rather than in
// [0, input_bits). Bristol import and flatten are checked: next to parsing
// or replaying the gates the check costs little.
#pragma once

#include <tandem/circuit/circuit_data.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/circuit/validate.hpp>
#include <tandem/error.hpp>

#include <memory>
#include <mutex>
#include <utility>

namespace tandem {

template <class Signature = void>
class circuit;

namespace detail {
/// Tag of the constructors that skip validation: for circuit_data that
/// tandem's own layout made (compile, streamed segments), never for data
/// from elsewhere.
struct trusted_layout_t {
    explicit trusted_layout_t() = default;
};
inline constexpr trusted_layout_t trusted_layout{};
}  // namespace detail

/// An untyped circuit: an immutable, validated circuit_data behind a shared
/// pointer, so copies are cheap and threads may share one. Bristol import
/// gives this form and sessions and engines run it; tandem::compile returns
/// the typed form `circuit<R(input_t<P, T>...)>`, which converts to it.
template <>
class circuit<void> {
public:
    /// An empty circuit: no inputs, no outputs, no gates.
    circuit() : circuit(circuit_data{}, detail::trusted_layout) {}
    /// Validates data (circuit/validate.hpp): throws usage_error naming the
    /// first problem if the engines could not run it safely.
    explicit circuit(circuit_data data)
        : circuit((detail::validate_circuit(data), std::move(data)), detail::trusted_layout) {}
    /// For tandem's own use: data laid out by tandem, not validated again.
    circuit(circuit_data data, detail::trusted_layout_t) : impl_(std::make_shared<const impl>(std::move(data))) {}

    /// The IR itself: gates, levels, steps, regions, input and output layouts
    /// (circuit/circuit_data.hpp, docs/DESIGN.md §3).
    const circuit_data& data() const noexcept { return impl_->data; }
    /// Gate counts, levels, working set, bytes a garbled run sends. Computed
    /// on first use (a pass over the gates), then cached; thread-safe.
    const circuit_stats& stats() const {
        std::call_once(impl_->stats_once, [this] { impl_->stats = compute_stats(impl_->data); });
        return impl_->stats;
    }
    /// Digest of the structure, compared by the parties before a run. Cached; thread-safe.
    const circuit_fingerprint& fingerprint() const {
        std::call_once(impl_->fingerprint_once, [this] { impl_->fingerprint = compute_fingerprint(impl_->data); });
        return impl_->fingerprint;
    }

private:
    struct impl {
        explicit impl(circuit_data d) : data(std::move(d)) {}
        circuit_data data;
        mutable std::once_flag stats_once;
        mutable circuit_stats stats;
        mutable std::once_flag fingerprint_once;
        mutable circuit_fingerprint fingerprint;
    };
    std::shared_ptr<const impl> impl_;
};

}  // namespace tandem

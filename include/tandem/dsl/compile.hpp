// tandem/dsl/compile.hpp — tandem::compile and the typed circuit it returns.
//
//   auto c = tandem::compile(
//       [](tandem::secure_int<32> a, tandem::secure_int<32> b) { return a < b; },
//       tandem::input<tandem::party::alice, tandem::secure_int<32>>,
//       tandem::input<tandem::party::bob, tandem::secure_int<32>>);
//   bool r = c.eval_plain(3, 5);
//
// compile calls the function once with fresh secure inputs, recording every
// operation into a builder of its own. The recording is laid out as a
// levelled circuit segment by segment while the function runs (every 2^18
// ANDs, as a streamed run is: docs/DESIGN.md §11), and the segments are joined, so
// the peak memory is the stored circuit plus one segment rather than a whole
// recording and its laid-out copy. Nothing is shared between compile calls,
// so threads may compile concurrently.
#pragma once

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/layout.hpp>
#include <tandem/dsl/context.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/party.hpp>
#include <tandem/plain/eval.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tandem {

/// Tag naming one input of a secure function: who supplies it and its type.
template <party P, class T>
struct input_t {
    static constexpr party owner = P;
    using type = T;
};

/// `tandem::input<tandem::party::alice, secure_int<32>>`: an argument of compile.
template <party P, class T>
inline constexpr input_t<P, T> input{};

/// The circuit of a secure function R f(T...), with typed plaintext evaluation.
template <class R, party... Ps, class... Ts>
class circuit<R(input_t<Ps, Ts>...)> : public circuit<> {
public:
    using output_type = plain_type_t<R>;
    using input_tuple = std::tuple<plain_type_t<Ts>...>;

    /// Validates data as circuit<> does, and that its inputs and outputs
    /// have the bits, owners and count this signature says.
    explicit circuit(circuit_data data) : circuit<>(std::move(data)) { check_signature(); }
    /// For tandem's own use: what compile laid out, not validated again.
    circuit(circuit_data data, detail::trusted_layout_t t) : circuit<>(std::move(data), t) {}

    /// Evaluates the recorded gates on plain inputs.
    output_type eval_plain(const plain_type_t<Ts>&... inputs) const {
        // Encoded straight from the arguments: a copy of big input arrays
        // would go on the stack.
        std::vector<output_type> results = eval_sets(1, [&](std::size_t, detail::lane_cursor& cur) {
            (value_traits<Ts>::encode(inputs, cur), ...);
        });
        return std::move(results.front());
    }

    /// Evaluates many input sets, 64 per pass over the gates.
    std::vector<output_type> eval_plain_batch(std::span<const input_tuple> sets) const {
        return eval_sets(sets.size(), [&](std::size_t k, detail::lane_cursor& cur) {
            std::apply([&](const auto&... v) { (value_traits<Ts>::encode(v, cur), ...); }, sets[k]);
        });
    }

private:
    /// Evaluates n input sets, encode(k, cursor) writing the bits of set k;
    /// the results are decoded in place, on the heap.
    template <class Encode>
    std::vector<output_type> eval_sets(std::size_t n, Encode&& encode) const {
        const circuit_data& d = data();
        std::vector<output_type> results(n);
        std::vector<std::uint64_t> in(d.input_bits), out(d.output_slots.size());
        for (std::size_t base = 0; base < n; base += 64) {
            const std::size_t lanes = std::min<std::size_t>(64, n - base);
            std::fill(in.begin(), in.end(), 0);
            for (std::size_t l = 0; l < lanes; ++l) {
                detail::lane_cursor cur{in.data(), static_cast<unsigned>(l)};
                encode(base + l, cur);
            }
            detail::eval_lanes(d, in, out);
            for (std::size_t l = 0; l < lanes; ++l) {
                detail::const_lane_cursor cur{out.data(), static_cast<unsigned>(l)};
                if constexpr (std::is_same_v<output_type, bool>) {  // std::vector<bool> has no bool&
                    bool b = false;
                    value_traits<R>::decode_into(b, cur);
                    results[base + l] = b;
                } else {
                    value_traits<R>::decode_into(results[base + l], cur);
                }
            }
        }
        return results;
    }

    /// The typed evaluation encodes value_traits<T>::bits bits per input and
    /// decodes value_traits<R>::bits output bits: a circuit_data of another
    /// shape would make it read or write past its arrays.
    void check_signature() const {
        const circuit_data& d = data();
        constexpr std::size_t n = sizeof...(Ts);
        constexpr std::array<std::size_t, n> bits{value_traits<Ts>::bits...};
        constexpr std::array<party, n> owners{Ps...};
        const auto fail = [](const std::string& what) {
            throw usage_error("circuit: the circuit_data does not fit the circuit's signature: " + what);
        };
        if (d.inputs.size() != n)
            fail("it has " + std::to_string(d.inputs.size()) + " input values, the signature " + std::to_string(n));
        for (std::size_t i = 0; i < n; ++i) {
            if (d.inputs[i].bits != bits[i])
                fail("input value " + std::to_string(i) + " has " + std::to_string(d.inputs[i].bits) +
                     " bits, its type " + std::to_string(bits[i]));
            if (d.inputs[i].owner != owners[i])
                fail("input value " + std::to_string(i) + " is " + std::string(to_string(d.inputs[i].owner)) +
                     "'s, the signature says " + std::string(to_string(owners[i])) + "'s");
        }
        if (d.output_slots.size() != value_traits<R>::bits)
            fail("it has " + std::to_string(d.output_slots.size()) + " output bits, the result type " +
                 std::to_string(value_traits<R>::bits));
    }
};

namespace detail {

/// Declares one output value (any secure value type, a tuple included) from v's bits.
template <class V>
void add_output(builder& bld, const V& v) {
    std::vector<wire_ref> refs(value_traits<V>::bits);
    ref_cursor cur{refs.data(), 0};
    value_traits<V>::collect(v, cur);
    if (cur.owner != 0 && !bld.accepts(cur.owner)) bld.reject(cur.owner);
    bld.add_output_value(refs.data(), static_cast<std::uint32_t>(refs.size()));
}

/// Joins the segments of a compile (builder::record_compile) into one
/// circuit as they are cut: gates, levels, steps and regions are appended,
/// their slots already the circuit's. Peak memory is the circuit so far plus
/// one segment's recording, instead of a whole recording and its laid-out
/// copy at once (bench_record).
class segment_joiner final : public segment_runner {
public:
    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        append(std::move(s.data));
        return std::nullopt;
    }

    /// Appends the last segment and returns the circuit.
    circuit_data finish(circuit_data&& last) &&;

private:
    void append(circuit_data&& d);

    bool started_ = false;
    circuit_data all_;
};

/// Declares the next input value, owned by P, and makes v its secure value.
template <party P, class T>
void enter_input(builder& bld, T& v) {
    const wire_ref first = bld.add_input_value(P, static_cast<std::uint32_t>(value_traits<T>::bits));
    std::vector<wire_ref> refs(value_traits<T>::bits);
    for (std::uint32_t k = 0; k < refs.size(); ++k) refs[k] = builder::input_bit(first, k);
    ref_cursor cur{refs.data(), bld.serial()};
    value_traits<T>::assign(v, cur);
}

template <class R>
struct output_values {  // a single output value
    static void add(builder& bld, const R& r) { add_output(bld, r); }
};
template <class... Vs>
struct output_values<std::tuple<Vs...>> {  // a tuple: one output value per element
    static void add(builder& bld, const std::tuple<Vs...>& t) {
        std::apply([&](const auto&... v) { (add_output(bld, v), ...); }, t);
    }
};

}  // namespace detail

/// Records `f` into a levelled circuit. Each `input<party, T>` tag declares one
/// argument of f, in order; f returns a secure value, a std::tuple, a std::array
/// or a Hana struct of them.
///
/// tandem keeps the input values and the result on the heap, but a parameter
/// that f takes by value is a copy on f's stack: take big inputs (arrays of
/// thousands of values) by const reference, `const std::array<T, N>&`. Two
/// arrays of 500,000 secure_uint<20> taken by value need about 120 MB of
/// stack, far more than a thread's default 8 MB.
template <class F, party... Ps, class... Ts>
auto compile(F&& f, input_t<Ps, Ts>...) {
    static_assert(std::is_invocable_v<F&, Ts...>,
                  "tandem::compile: the function cannot be called with the declared input types");
    using R = std::remove_cvref_t<std::invoke_result_t<F&, Ts...>>;
    static_assert(!std::is_void_v<R>, "tandem::compile: the secure function must return its outputs");

    // Laid out segment by segment as it is recorded (builder::record_compile):
    // the values the function holds tell which wires later gates may read.
    detail::segment_joiner joiner;
    circuit_data last;
    {
        detail::builder bld(detail::builder::compile_segment_ands, joiner);
        detail::active_builder_scope scope(bld);
        // The input values and the result live on the heap: inputs of 10^6
        // values take tens of MB, more than a thread's stack (issue 13).
        const auto args = std::make_unique<std::tuple<Ts...>>();
        std::apply([&](Ts&... a) { (detail::enter_input<Ps>(bld, a), ...); }, *args);  // in order
        bld.record_compile();
        // new R(prvalue) builds the result in place: make_unique would take
        // it by reference, i.e. as a temporary on the stack.
        const std::unique_ptr<const R> result(new R(std::apply(f, std::move(*args))));
        detail::output_values<R>::add(bld, *result);
        last = bld.finish_compile();
    }
    return circuit<R(input_t<Ps, Ts>...)>(std::move(joiner).finish(std::move(last)), detail::trusted_layout);
}

}  // namespace tandem

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/dsl/compile_impl.hpp>
#endif

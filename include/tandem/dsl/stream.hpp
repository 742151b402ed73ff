// tandem/dsl/stream.hpp — secure functions run as they are recorded, in
// bounded memory (docs/DESIGN.md §11).
//
//   auto fn = tandem::stream(
//       [](const tandem::sequence<tandem::secure_uint<20>>& xs) { ... return best; },
//       tandem::sequence_input<tandem::party::alice, tandem::secure_uint<20>>(1'000'000));
//   auto r = fn.eval_plain(values);          // plaintext, segment by segment
//   auto r = session.run(fn, values);        // two parties (session.hpp)
//
// Where tandem::compile records the whole function first, a streamed
// function is called anew by each run on each party: its gates go into a
// segment of about `segment_ands` ANDs, which is cut at the next safe point,
// laid out (levelled, given slots from the run's pool) and handed to a runner
// (plaintext here, garbled or evaluated in a session) before the function
// goes on. Only the wires that a live C++ value still names are carried into
// the next segment: every secure value of a streamed run sits in its
// builder's live list (dsl/bit.hpp, dsl/integer.hpp). Memory is O(segment +
// live values), whatever the function's size.
//
// Inputs are single values (tandem::input<P, T>, entered at the start) or
// sequences of public length (tandem::sequence_input<P, T>(n)), which the
// function reads through a tandem::sequence<T>: reading element i enters the
// chunk holding it (its labels are made then: a PRG draw for the garbler, a
// chunk of OT extension for the evaluator), and the chunk's values live until
// the next chunk is read. Read sequences in increasing order; reading back
// enters that chunk again (correct, but it costs the labels again).
//
// tandem::open(x) reveals an intermediate value in the middle of the
// function: both parties get the plain value and the function goes on with
// it (open(x, reveal::alice) gives the other party nullopt; only values
// opened to both may steer control flow, which must stay the same on both).
//
// The function must do the same on both parties: same operations in the
// same order, whatever the secret values (they cannot steer it anyway). A
// digest chained over the segments catches a mismatch at the first segment
// that differs (session/stream.hpp).
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/layout.hpp>
#include <tandem/circuit/steps.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/context.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>
#include <tandem/party.hpp>
#include <tandem/plain/eval.hpp>

#include <algorithm>
#include <concepts>
#include <exception>
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

/// Default segment size of streamed runs, in ANDs (bench/RESULTS.md, bench_scale).
inline constexpr std::uint64_t default_segment_ands = std::uint64_t{1} << 14;

/// Tag of a streamed input: `length` values of T supplied by P (the length is public).
template <party P, class T>
struct sequence_input_t {
    static constexpr party owner = P;
    using type = T;
    std::uint64_t length;
};

/// `tandem::sequence_input<tandem::party::alice, secure_uint<20>>(n)`: an argument of tandem::stream.
template <party P, class T>
constexpr sequence_input_t<P, T> sequence_input(std::uint64_t length) noexcept {
    return {length};
}

namespace detail {

/// Supplies the bits of elements [first, first + count) of one input, each
/// element's value_traits<T>::bits bits in a row (one byte per bit).
using input_feed = std::function<void(std::uint64_t first, std::size_t count, std::uint8_t* bits)>;

/// What a streamed run's inputs read from: this party's feeds (empty where
/// the other party owns the input and this one does not know it).
struct stream_inputs {
    std::vector<input_feed> feeds;
};

/// Bits per chunk of a sequence: one OT extension of this many bits at most.
inline constexpr std::size_t sequence_chunk_bits = std::size_t{1} << 15;

/// Writes v's value_traits<T>::bits bits to `out`, one byte per bit;
/// `words` is scratch of as many words (a feed reuses it for every value).
template <class T>
void encode_plain_to(const plain_type_t<T>& v, std::uint64_t* words, std::uint8_t* out) {
    constexpr std::size_t bits = value_traits<T>::bits;
    std::fill_n(words, bits, std::uint64_t{0});
    lane_cursor cur{words, 0};
    value_traits<T>::encode(v, cur);
    for (std::size_t k = 0; k < bits; ++k) out[k] = static_cast<std::uint8_t>(words[k]);
}

template <class T>
std::vector<std::uint8_t> encode_plain(const plain_type_t<T>& v) {
    std::vector<std::uint64_t> words(value_traits<T>::bits);
    std::vector<std::uint8_t> out(value_traits<T>::bits);
    encode_plain_to<T>(v, words.data(), out.data());
    return out;
}

/// Enters `count` values of T of `owner` (bits from `feed` if this party has
/// it) into the active streaming builder; returns the first bit's reference
/// (the values' bits follow in order).
template <class T>
wire_ref enter_bits(party owner, const input_feed* feed, std::uint64_t first, std::size_t count) {
    builder* b = active_builder;
    if (b == nullptr || !b->streamed_run()) internal_error("a streamed input was entered outside its streamed run");
    constexpr std::size_t bits = value_traits<T>::bits;
    std::vector<std::uint8_t> plain;
    if (feed != nullptr && *feed) {
        plain.resize(count * bits);
        (*feed)(first, count, plain.data());
    }
    return b->add_stream_input(owner, static_cast<std::uint32_t>(count * bits), plain.empty() ? nullptr : plain.data());
}

/// Makes one value of T from its bits' references (cuts deferred meanwhile).
template <class T>
T make_value(wire_ref* refs) {
    builder* b = active_builder;
    const builder::cut_hold hold(b);
    ref_cursor cur{refs, b->serial()};
    return value_traits<T>::make(cur);
}

}  // namespace detail

/// A streamed input as the secure function sees it: `size()` values of T,
/// read by index. Element i is entered with the chunk holding it; the chunk's
/// bits stay live only from the element last read on, so what was read
/// before it is freed unless the function keeps it. Reading an element below
/// the one read last enters its chunk again (correct, but the labels cost
/// again). Copies share one reader.
template <class T>
class sequence {
public:
    using value_type = T;

    /// The number of values (public).
    std::size_t size() const noexcept { return static_cast<std::size_t>(s_->length); }

    /// Element i, entering its chunk first if needed (see the class comment).
    T operator[](std::size_t i) const {
        state& s = *s_;
        if (detail::active_builder == nullptr || !detail::active_builder->streamed_run() || s.run_serial != detail::active_builder->serial())
            throw usage_error("tandem::sequence: read outside the streamed run it belongs to (was it kept after the "
                              "function returned, or passed to another thread?)");
        if (i >= s.length)
            throw usage_error("tandem::sequence: index " + std::to_string(i) + " is out of range for a sequence of " +
                              std::to_string(s.length) + " values");
        if (i < s.chunk_begin + s.first_live || i >= s.chunk_begin + s.chunk_len) s.enter(i);
        const std::size_t k = static_cast<std::size_t>(i - s.chunk_begin);
        if (k > s.first_live) {  // what was read before element k is no longer held here
            s.first_live = k;
            detail::builder::repoint(s.link, s.refs.data() + k * bits, static_cast<std::uint32_t>((s.chunk_len - k) * bits));
        }
        return detail::make_value<T>(s.refs.data() + k * bits);
    }

    /// For tandem's own use.
    sequence(party owner, std::uint64_t length, const detail::input_feed* feed)
        : s_(std::make_shared<state>(owner, length, feed)) {}

private:
    static constexpr std::size_t bits = value_traits<T>::bits;

    struct state {
        state(party o, std::uint64_t n, const detail::input_feed* f)
            : owner(o), length(n), feed(f), chunk_size(std::max<std::size_t>(1, detail::sequence_chunk_bits / bits)),
              run_serial(detail::active_builder != nullptr ? detail::active_builder->serial() : 0) {}

        /// Enters the chunk holding element i, from i on.
        void enter(std::uint64_t i) {
            link.unlink();  // the old chunk's bits die first: they are not carried on
            refs.clear();
            chunk_begin = i;
            chunk_len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_size - i % chunk_size, length - i));
            first_live = 0;
            const detail::wire_ref w0 = detail::enter_bits<T>(owner, feed, chunk_begin, chunk_len);
            refs.resize(chunk_len * bits);
            for (std::size_t k = 0; k < refs.size(); ++k)
                refs[k] = detail::builder::input_bit(w0, static_cast<std::uint32_t>(k));
            detail::active_builder->track(link, refs.data(), static_cast<std::uint32_t>(refs.size()));
        }

        party owner;
        std::uint64_t length;
        const detail::input_feed* feed;
        std::size_t chunk_size;
        std::uint32_t run_serial;  // the builder of the run it belongs to
        std::uint64_t chunk_begin = 0;
        std::size_t chunk_len = 0;
        std::size_t first_live = 0;  // elements of the chunk before it are no longer held
        std::vector<detail::wire_ref> refs;
        detail::live_link link;
    };
    std::shared_ptr<state> s_;
};

namespace detail {

template <class In>
struct stream_arg;
template <party P, class T>
struct stream_arg<input_t<P, T>> {
    using type = T;
    static constexpr bool is_sequence = false;
    static std::uint64_t length(const input_t<P, T>&) { return 1; }
    /// On the heap: a single input may be an array of a million values.
    static std::unique_ptr<T> make(const input_t<P, T>&, const input_feed* feed) {
        const wire_ref w0 = enter_bits<T>(P, feed, 0, 1);
        std::vector<wire_ref> refs(value_traits<T>::bits);
        for (std::size_t k = 0; k < refs.size(); ++k) refs[k] = builder::input_bit(w0, static_cast<std::uint32_t>(k));
        auto v = std::make_unique<T>();
        builder* b = active_builder;
        const builder::cut_hold hold(b);  // as in make_value
        ref_cursor cur{refs.data(), b->serial()};
        value_traits<T>::assign(*v, cur);
        return v;
    }
};
template <party P, class T>
struct stream_arg<sequence_input_t<P, T>> {
    using type = sequence<T>;
    static constexpr bool is_sequence = true;
    static std::uint64_t length(const sequence_input_t<P, T>& in) { return in.length; }
    static std::unique_ptr<sequence<T>> make(const sequence_input_t<P, T>& in, const input_feed* feed) {
        return std::make_unique<sequence<T>>(P, in.length, feed);
    }
};

/// Whether Arg can supply input In (see make_feed): a sequence's container
/// or generator must give values of its element's plain type (a container of
/// another type, say a party's single array passed where the party's
/// sequence would go, is refused here rather than failing to compile).
template <class In, class Arg>
concept feed_fits =
    (!stream_arg<In>::is_sequence && std::is_convertible_v<const Arg&, plain_type_t<typename In::type>>) ||
    (stream_arg<In>::is_sequence &&
     (std::is_invocable_r_v<plain_type_t<typename In::type>, const Arg&, std::uint64_t> ||
      requires(const Arg& a) {
          a.size();
          { a[std::size_t{0}] } -> std::convertible_to<plain_type_t<typename In::type>>;
      }));

/// The plain value(s) a party passes for one input: a plain value for a
/// single input; for a sequence a container (size() and operator[]) or a
/// generator value(i).
template <class In, class Arg>
input_feed make_feed(const In& in, const Arg& arg) {
    using T = typename In::type;
    using plain = plain_type_t<T>;
    constexpr std::size_t bits = value_traits<T>::bits;
    if constexpr (!stream_arg<In>::is_sequence) {
        static_assert(std::is_convertible_v<const Arg&, plain>, "tandem::stream: an input value has the wrong type");
        // A conversion is made on the heap: the value may be a big array.
        std::vector<std::uint8_t> bits;
        if constexpr (std::is_same_v<Arg, plain>) bits = encode_plain<T>(arg);
        else bits = encode_plain<T>(*std::make_unique<plain>(arg));
        return [v = std::move(bits)](std::uint64_t, std::size_t, std::uint8_t* out) {
            std::copy(v.begin(), v.end(), out);
        };
    } else if constexpr (std::is_invocable_v<const Arg&, std::uint64_t>) {
        return [&arg](std::uint64_t first, std::size_t count, std::uint8_t* out) {
            std::vector<std::uint64_t> words(bits);
            for (std::size_t i = 0; i < count; ++i, out += bits)
                encode_plain_to<T>(static_cast<plain>(arg(first + i)), words.data(), out);
        };
    } else {
        static_assert(requires { arg.size(); arg[std::size_t{0}]; },
                      "tandem::stream: pass a sequence input as a container (size() and operator[]) or as a "
                      "generator value(i)");
        if (static_cast<std::uint64_t>(arg.size()) != in.length)
            throw usage_error("tandem::stream: a sequence input has " + std::to_string(in.length) +
                              " values, but the container given holds " + std::to_string(arg.size()));
        return [&arg](std::uint64_t first, std::size_t count, std::uint8_t* out) {
            std::vector<std::uint64_t> words(bits);
            for (std::size_t i = 0; i < count; ++i, out += bits)
                encode_plain_to<T>(static_cast<plain>(arg[static_cast<std::size_t>(first + i)]), words.data(), out);
        };
    }
}

/// Runs segments on plain bits: one word per slot, in two arrays used in
/// turn (stream_segment: a segment's carried wires move into slots 1..C).
class plain_segment_runner final : public segment_runner {
public:
    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        const circuit_data& d = s.data;
        if (next_.size() < d.slot_count) next_.resize(d.slot_count, 0);
        for (std::size_t c = 0; c < carried_from_.size(); ++c) next_[c + 1] = slots_[carried_from_[c]];
        slots_.swap(next_);
        for (const stream_input_bit& in : s.inputs) slots_[in.slot] = in.value != 0 ? ~std::uint64_t{0} : 0;
        walk_steps(d, slots_.data(), std::uint64_t{0}, run_levels);
        carried_from_.assign(d.output_slots.begin(), d.output_slots.begin() + s.carried);
        and_gates += s.and_gates;
        ++segments;
        max_slots = std::max<std::uint64_t>(max_slots, d.slot_count);
        if (!s.open) return std::nullopt;
        std::vector<bool> bits;
        for (std::size_t k = s.carried; k < d.output_slots.size(); ++k) {
            const std::uint32_t w = d.output_slots[k];
            bits.push_back(w == output_true || (w != output_false && (slots_[w] & 1u) != 0));
        }
        return bits;
    }

    std::uint64_t and_gates = 0;
    std::uint64_t segments = 0;
    std::uint64_t max_slots = 0;

private:
    std::vector<std::uint64_t> slots_, next_;
    std::vector<std::uint32_t> carried_from_;  // the last segment's carried wires, in its slots
};

/// Decodes a value of type V from opened bits.
template <class V>
plain_type_t<V> decode_bits(const std::vector<bool>& bits) {
    std::vector<std::uint64_t> words(bits.begin(), bits.end());
    const_lane_cursor cur{words.data(), 0};
    return value_traits<V>::decode(cur);
}

/// Decodes a value of type V from opened bits into `out`, in place.
template <class V>
void decode_bits_into(const std::vector<bool>& bits, plain_type_t<V>& out) {
    std::vector<std::uint64_t> words(bits.begin(), bits.end());
    const_lane_cursor cur{words.data(), 0};
    value_traits<V>::decode_into(out, cur);
}

/// The bits of a value, as references (its owner checked against the builder).
template <class V>
std::vector<wire_ref> refs_of(builder& b, const V& v) {
    std::vector<wire_ref> refs(value_traits<V>::bits);
    ref_cursor cur{refs.data(), 0};
    value_traits<V>::collect(v, cur);
    if (cur.owner != 0 && !b.accepts(cur.owner)) b.reject(cur.owner);
    return refs;
}

}  // namespace detail

/// Counts of the last streamed run.
struct stream_stats {
    std::uint64_t and_gates = 0;
    std::uint64_t segments = 0;
    std::uint64_t max_slots = 0;  ///< the largest label array the run needed, in slots
};

/// A secure function that runs as it is recorded (see the top of this
/// header). Made by tandem::stream; run by eval_plain here or session::run.
template <class F, class... Ins>
class streamed_function {
public:
    using result_type = std::remove_cvref_t<std::invoke_result_t<F&, typename detail::stream_arg<Ins>::type&...>>;
    using output_type = plain_type_t<result_type>;

    streamed_function(F f, Ins... ins) : f_(std::move(f)), ins_(ins...) {}

    /// ANDs per segment (both parties must use the same; the session checks).
    std::uint64_t segment_ands = default_segment_ands;
    /// The run's ANDs if known (0 if not): progress reports then give an ETA.
    std::uint64_t expected_ands = 0;
    /// Garble as you go (session::run; docs/DESIGN.md §11): each gate is
    /// garbled or evaluated as the function makes it, in small levelled
    /// windows, instead of segments being recorded, laid out and then run.
    /// Nothing is recorded, so twin gates are not merged (a stream then runs
    /// the ANDs its program makes; a compile merges them), and parallel
    /// regions run inline. The function runs on one thread and the gates on
    /// another where the session pipelines streams
    /// (session_options::pipeline_streams). Unset (the default): eager in
    /// semi-honest sessions without IPP on one thread, levelled otherwise
    /// (where workers, IPP or authenticated garbling need each segment's
    /// gates first); true in a session with IPP or malicious security is a
    /// usage_error. Both parties must choose alike (the session checks).
    /// eval_plain runs levelled either way.
    std::optional<bool> eager;

    const std::tuple<Ins...>& inputs() const noexcept { return ins_; }

    /// Runs the function on plain bits, segment by segment, in bounded
    /// memory: all inputs, in declaration order (sequences as containers or
    /// generators).
    template <class... Args>
    output_type eval_plain(const Args&... args) {
        static_assert(sizeof...(Args) == sizeof...(Ins), "streamed_function::eval_plain: pass every input, in order");
        detail::stream_inputs feeds = make_feeds(std::index_sequence_for<Ins...>{}, args...);
        detail::plain_segment_runner runner;
        std::optional<output_type> out = run(runner, feeds, reveal::both);
        last_ = {runner.and_gates, runner.segments, runner.max_slots};
        return std::move(*out);
    }

    /// Counts of the last eval_plain.
    const stream_stats& last_run() const noexcept { return last_; }

    /// For tandem's own use: one run of the function on `runner`, this
    /// party's inputs from `feeds`; returns the result where this party learns it.
    std::optional<output_type> run(detail::segment_runner& runner, const detail::stream_inputs& feeds, reveal who) {
        return run_on(runner, feeds, who);
    }
    /// The same run gate by gate: each gate goes to `sink` as it is made
    /// (an eager builder, circuit/builder.hpp; gc/eager.hpp).
    std::optional<output_type> run(detail::gate_sink& sink, const detail::stream_inputs& feeds, reveal who) {
        return run_on(sink, feeds, who);
    }

private:
    template <class Target>
    std::optional<output_type> run_on(Target& target, const detail::stream_inputs& feeds, reveal who) {
        detail::builder bld(segment_ands, target);
        const detail::active_builder_scope scope(bld);
        std::optional<std::vector<bool>> bits;
        {
            // Inputs and result on the heap, as in compile: a single input may
            // be an array of a million values.
            const auto args = make_args(std::index_sequence_for<Ins...>{}, feeds);
            const std::unique_ptr<const result_type> result(
                new result_type(std::apply([&](const auto&... a) -> result_type { return f_(*a...); }, args)));
            const std::vector<detail::wire_ref> refs = detail::refs_of(bld, *result);
            bits = bld.cut(refs, who);
        }
        if (!bits) return std::nullopt;
        std::optional<output_type> out(std::in_place);
        detail::decode_bits_into<result_type>(*bits, *out);
        return out;
    }

public:
    /// For tandem's own use: two words per input for the run header —
    /// owner << 62 | is a sequence << 61 | bits per value << 40, then the
    /// number of values.
    std::vector<std::uint64_t> signature() const {
        std::vector<std::uint64_t> words;
        std::apply(
            [&](const auto&... in) {
                ((words.push_back(std::uint64_t{std::remove_cvref_t<decltype(in)>::owner == party::bob} << 62 |
                                  std::uint64_t{detail::stream_arg<std::remove_cvref_t<decltype(in)>>::is_sequence} << 61 |
                                  std::uint64_t{value_traits<typename std::remove_cvref_t<decltype(in)>::type>::bits} << 40),
                  words.push_back(detail::stream_arg<std::remove_cvref_t<decltype(in)>>::length(in))),
                 ...);
            },
            ins_);
        return words;
    }

    /// For tandem's own use: feeds from one party's inputs, in declaration
    /// order (the other party's are skipped).
    template <class... Args>
    detail::stream_inputs feeds_for(party me, const Args&... mine) const {
        detail::stream_inputs feeds;
        feeds.feeds.resize(sizeof...(Ins));
        std::vector<std::size_t> owned;  // this party's inputs
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((std::tuple_element_t<I, std::tuple<Ins...>>::owner == me ? owned.push_back(I) : void()), ...);
        }(std::index_sequence_for<Ins...>{});
        if (owned.size() != sizeof...(Args))
            throw usage_error("session::run: " + std::string(to_string(me)) + " owns " + std::to_string(owned.size()) +
                              " input(s) of this streamed function but " + std::to_string(sizeof...(Args)) +
                              " were given (pass this party's inputs only, in declaration order)");
        std::size_t j = 0;
        (assign_feed(feeds, owned[j++], mine, std::index_sequence_for<Ins...>{}), ...);
        return feeds;
    }

private:
    template <class Arg, std::size_t... I>
    void assign_feed(detail::stream_inputs& feeds, std::size_t input, const Arg& arg, std::index_sequence<I...>) const {
        const auto one = [&]<std::size_t i>(std::integral_constant<std::size_t, i>) {
            if (i != input) return;
            using In = std::tuple_element_t<i, std::tuple<Ins...>>;
            if constexpr (detail::feed_fits<In, Arg>) feeds.feeds[i] = detail::make_feed(std::get<i>(ins_), arg);
            else
                throw usage_error("session::run: input " + std::to_string(i) +
                                  " of this streamed function does not take the value given for it (pass this "
                                  "party's inputs only, in declaration order)");
        };
        (one(std::integral_constant<std::size_t, I>{}), ...);
    }

    template <std::size_t... I, class... Args>
    detail::stream_inputs make_feeds(std::index_sequence<I...>, const Args&... args) const {
        detail::stream_inputs feeds;
        (feeds.feeds.push_back(detail::make_feed(std::get<I>(ins_), args)), ...);
        return feeds;
    }

    /// One heap object per argument, passed to f as *p.
    template <std::size_t... I>
    auto make_args(std::index_sequence<I...>, const detail::stream_inputs& feeds) {
        // Braced initialisation enters the inputs in declaration order.
        return std::tuple<std::unique_ptr<typename detail::stream_arg<Ins>::type>...>{
            detail::stream_arg<Ins>::make(std::get<I>(ins_), &feeds.feeds[I])...};
    }

    F f_;
    std::tuple<Ins...> ins_;
    stream_stats last_;
};

/// Makes a streamed function: `f` takes one argument per tag, in order — T
/// for tandem::input<P, T>, const tandem::sequence<T>& for
/// tandem::sequence_input<P, T>(n) — and returns its outputs like a function
/// given to tandem::compile.
template <class F, class... Ins>
auto stream(F f, Ins... ins) {
    return streamed_function<F, Ins...>(std::move(f), ins...);
}

/// Reveals x to both parties in the middle of a streamed run; the function
/// goes on with the plain value.
template <class V>
plain_type_t<V> open(const V& x) {
    return *open(x, reveal::both);
}

/// Reveals x to `who`; the other party gets nullopt.
template <class V>
std::optional<plain_type_t<V>> open(const V& x, reveal who) {
    detail::builder* b = detail::active_builder;
    if (b == nullptr || !b->streamed_run())
        throw usage_error("tandem::open: values can be opened only inside a streamed function (tandem::stream); a "
                          "compiled circuit reveals its outputs at the end");
    if (b->in_instance())
        throw usage_error("tandem::open: a value was opened inside a parallel region; open it after the region");
    const std::vector<detail::wire_ref> refs = detail::refs_of(*b, x);
    const std::optional<std::vector<bool>> bits = b->cut(refs, who);
    if (!bits) return std::nullopt;
    return detail::decode_bits<V>(*bits);
}

}  // namespace tandem

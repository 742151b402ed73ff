// tandem/session.hpp — one party's end of a secure two-party computation.
//
//   // Alice (garbler)                         // Bob (evaluator)
//   auto s = tandem::session::listen(           auto s = tandem::session::connect(
//       tandem::party::alice, 7766);                tandem::party::bob, "alice.example", 7766);
//   bool r = s.run(circ, my_wealth);            bool r = s.run(circ, my_wealth);
//
// A session connects once, agrees on the protocol (version, roles, garbling
// hash), and sets up oblivious transfer once: Alice draws the free-XOR Δ that
// stays fixed for the session, and 128 base OTs seed an IKNP extension whose
// correlation is that Δ (ot/iknp.hpp). Each run() then
//   1. exchanges a run header (session/run_header.hpp: the circuit's
//      fingerprint and sizes, who learns the output, the run's number) and
//      stops with protocol_error naming what differs if the sides disagree
//      (Bob's OT extension columns follow his header without waiting);
//   2. runs one garbler/evaluator exchange (session/yao.hpp): Bob's input
//      labels by OT extension, Alice's labels, the tables streamed as they are
//      produced, and outputs opened to whoever learns them — checked, so that
//      damage in transit is a protocol_error, never a wrong answer.
// Tweaks continue across runs (every AND under the session's Δ gets its own),
// and each run draws a fresh hash start. run_batch() runs one circuit on
// many input sets as one such run (circuit/batch.hpp): one header, one OT
// extension for all of Bob's inputs, the sets side by side as one wide circuit.
//
// With session_options::threads = W > 1 the session opens W - 1 more
// connections after the handshake (worker links, each introduced by the
// session's id and its index); a run's parallel regions and wide levels are
// garbled and evaluated by W workers per party (exec/executor.hpp), each
// streaming its tables over its own link (exec/). Inputs, OT and outputs stay
// on the main connection.
//
// With session_options::ipp (inter-party parallelization, paper 001 §5) Bob
// draws a Δ of his own and a second set of base OTs runs the other way; W
// more connections carry the tables of Bob's world. Each run then cuts its
// large parallel regions between Alice's world (she garbles, Bob evaluates)
// and Bob's (the other way round), both running at once, and re-shares every
// wire that crosses between them by OT without revealing it
// (exec/ipp_plan.hpp, session/ipp.hpp). Inputs and outputs stay in Alice's
// world, so the protocol around the run is unchanged.
//
// With session_options::security = security::malicious both parties set up
// authenticated bits instead (auth/bits.hpp), and each compiled run or batch
// is one run of authenticated garbling (auth/garble.hpp) after the same run
// header: a peer that deviates is caught with security_error before any
// output is opened; last_run() reports the preprocessing and online phases.
// Such a session needs sealed links (session_options::encrypt_links) or an
// explicit allow_plain_links.
//
// Security: semi-honest by default, malicious as above (docs/DESIGN.md §9). A session is used by one thread at a
// time. A failed run closes the connection at once (so the peer fails too,
// without waiting for its deadline) and leaves the session unusable; open a
// new one.
#pragma once

// Compiled once or header-only. By default (CMake's tandem::tandem, option
// TANDEM_HEADER_ONLY off) TANDEM_SEPARATE_COMPILATION is defined and this
// header only declares the session: its definitions — and with them the
// engine, the garbling kernels, OT and the sockets — are compiled once, in
// the library (src/session.cpp), and a program that runs a session parses and
// compiles none of them. Without the macro (tandem::headers, or a bare -I)
// the definitions come inline from session/session_impl.hpp at the end of
// this header. Both give the same bytes on the wire (tests/header_only.cpp).
#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/stream.hpp>
#include <tandem/dsl/typed_inputs.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/tickets.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <utility>
#include <vector>

namespace tandem::net {
class tcp_listener;
}
namespace tandem::detail {
struct session_state;
struct batch_context;
class remote_workers;
}  // namespace tandem::detail

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// One party's end of a secure two-party computation: the connections, the
/// agreed options, Δ and the OT set-up, kept for many runs (see the top of
/// this header; the protocol message by message is in docs/DESIGN.md §7).
class session {
public:
    /// Opens one more connection to the peer (a worker link, named by its
    /// session id and index): one party's accepts, the other's connects.
    /// Called once per worker link while the session is set up.
    using link_opener = detail::link_opener;
    using link_id = detail::link_id;

    /// Runs the handshake and the OT set-up over an open channel to the peer;
    /// with options.threads > 1, `open_link` provides the worker links.
    session(party me, std::unique_ptr<net::channel> channel, session_options options = {},
            link_opener open_link = {});
    /// A session whose workers 1 .. options.threads-1 run in other processes,
    /// each on links of its own to the peer's worker of its number:
    /// tandem::mpi::run (mpi/session.hpp) makes them the party's MPI ranks.
    /// With IPP, `open_link` provides this party's link 0 of Bob's world.
    session(party me, std::unique_ptr<net::channel> channel, session_options options, link_opener open_link,
            std::shared_ptr<detail::remote_workers> workers);
    session(session&&) noexcept;
    session& operator=(session&&) noexcept;
    ~session();

    /// Waits on `port` for the peer to connect, then sets the session up.
    /// To learn the port first (port 0: the system picks a free one), use
    /// tandem::listener.
    static session listen(party me, std::uint16_t port, session_options options = {},
                          const std::string& address = "0.0.0.0");

    /// Takes the next connection of an existing listener (e.g. one bound to
    /// port 0 whose port was handed to the peer), then sets the session up;
    /// worker links are accepted from the same listener.
    static session accept(party me, net::tcp_listener& listener, session_options options = {});

    /// Connects to a listening peer (retrying until options.connect_timeout).
    static session connect(party me, const std::string& host, std::uint16_t port, session_options options = {});

    /// This party.
    party me() const noexcept;
    /// Handshake + base OTs + IKNP set-up, in seconds.
    double setup_seconds() const noexcept;
    /// Whether the set-up resumed a ticket instead of running the base OTs
    /// (session_options::ticket and ticket_store; session/tickets.hpp).
    bool resumed() const noexcept;
    /// What the last run did, as seen by this party: ANDs, bytes, seconds.
    const run_stats& last_run() const noexcept;
    /// The main connection (link 0).
    net::channel& channel() noexcept;
    /// Frees what the session holds only while it runs — its links'
    /// buffers, OT extension's and the tables' chunk buffers, ~300 KiB with
    /// sealed links — until the next run allocates them again (a few µs).
    /// For a session that waits long between runs; an asynchronous session
    /// (tandem/async.hpp) does it after each operation. What stays is the
    /// OT set-up (~50 KiB) and the sockets.
    void trim() noexcept;
    /// Workers per party (session_options::threads).
    std::uint32_t threads() const noexcept;
    /// Whether runs use inter-party parallelization (session_options::ipp).
    bool ipp() const noexcept;

    /// Malicious sessions: prepares `runs` executions of c ahead of their
    /// inputs — the function-independent preprocessing (authenticated bits,
    /// AND triples) and the function-dependent one (masks, garbled circuits),
    /// in bulk. The next `runs` calls of run() on c each use one and do only
    /// the online phase (inputs, evaluation, the AND check, outputs); a run
    /// with none prepared does all three. Both parties call it with the same
    /// circuit and count, at the same place among their runs (else both get a
    /// protocol_error). Prepared executions hold about 130 B per AND until run.
    /// last_run() then reports the preparation (ANDs of all `runs`, both
    /// preprocessing phases). Semi-honest sessions refuse it with a
    /// usage_error: their runs garble as they send, there is nothing to
    /// prepare yet (docs/DESIGN.md §9.2).
    void prepare(const circuit<>& c, std::size_t runs = 1);

    /// Executions of c prepared and not yet run.
    std::size_t prepared(const circuit<>& c) const;

    /// Runs a typed circuit; `mine` are this party's inputs, in the order the
    /// circuit declares them (the other party's are skipped). Both parties
    /// learn the output.
    template <class R, party... Ps, class... Ts, class... Args>
    plain_type_t<R> run(const circuit<R(input_t<Ps, Ts>...)>& c, const Args&... mine) {
        return *run(reveal::both, c, mine...);
    }

    /// The same, choosing who learns the output; the other party gets nullopt.
    template <class R, party... Ps, class... Ts, class... Args>
    std::optional<plain_type_t<R>> run(reveal who, const circuit<R(input_t<Ps, Ts>...)>& c, const Args&... mine) {
        using alice_t = detail::owned_inputs<party::alice, input_t<Ps, Ts>...>;
        using bob_t = detail::owned_inputs<party::bob, input_t<Ps, Ts>...>;
        constexpr bool fits_alice = detail::inputs_fit<alice_t, Args...>::value;
        constexpr bool fits_bob = detail::inputs_fit<bob_t, Args...>::value;
        static_assert(fits_alice || fits_bob,
                      "session::run: the arguments match neither party's inputs of this circuit (pass this "
                      "party's inputs only, in the order the circuit declares them)");
        // The converted inputs go on the heap: they may be arrays of a million values.
        std::vector<detail::input_bits> bits;
        if (me() == party::alice) {
            if constexpr (fits_alice) {
                const auto values = std::make_unique<alice_t>(mine...);
                bits = detail::encode_inputs<party::alice, input_t<Ps, Ts>...>(*values);
            } else {
                throw usage_error(wrong_inputs_message(sizeof...(Args)));
            }
        } else {
            if constexpr (fits_bob) {
                const auto values = std::make_unique<bob_t>(mine...);
                bits = detail::encode_inputs<party::bob, input_t<Ps, Ts>...>(*values);
            } else {
                throw usage_error(wrong_inputs_message(sizeof...(Args)));
            }
        }
        const std::optional<std::vector<std::vector<bool>>> out = run_checked(who, c, check_inputs(c, bits));
        if (!out) return std::nullopt;
        return detail::decode_outputs<R>(*out);
    }

    /// Runs a typed circuit on many input sets in one run: one run header,
    /// one OT extension for all of Bob's input bits, and the sets' runs
    /// garbled side by side as one wide circuit (circuit/batch.hpp). Returns
    /// the result of each set, in order. Both parties must pass the same
    /// number of sets (else both get a protocol_error saying so).
    ///
    /// `sets` is a sized range with one element per set: this party's inputs
    /// of that set as a std::tuple in the order the circuit declares them,
    /// or the value itself when this party owns one input. A party that owns
    /// no input passes the number of sets instead.
    ///
    ///   auto c = compile([](secure_int<32> a, secure_int<32> b) { return a > b; },
    ///                    input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    ///   std::vector<std::int32_t> mine{10, 20, 30};          // Bob: {15, 15, 15}
    ///   std::vector<bool> r = s.run_batch(c, mine);          // {false, true, true}
    ///   // two inputs of Alice's per set: std::vector<std::tuple<std::int32_t, bool>> sets{...};
    ///
    /// An empty batch returns an empty vector after exchanging a run header
    /// (so both parties stay in step: a peer that passed sets fails at once).
    /// The batched circuit is made once per circuit and size and kept by the
    /// session (the last few), so repeating a batch does not rebuild it.
    template <class R, party... Ps, class... Ts, class Sets>
        requires std::ranges::sized_range<const Sets>
    std::vector<plain_type_t<R>> run_batch(const circuit<R(input_t<Ps, Ts>...)>& c, const Sets& sets) {
        return *run_batch(reveal::both, c, sets);
    }

    /// The same, choosing who learns the results; the other party gets nullopt.
    template <class R, party... Ps, class... Ts, class Sets>
        requires std::ranges::sized_range<const Sets>
    std::optional<std::vector<plain_type_t<R>>> run_batch(reveal who, const circuit<R(input_t<Ps, Ts>...)>& c,
                                                          const Sets& sets) {
        using set_t = std::ranges::range_reference_t<const Sets>;
        using alice_t = detail::owned_inputs<party::alice, input_t<Ps, Ts>...>;
        using bob_t = detail::owned_inputs<party::bob, input_t<Ps, Ts>...>;
        constexpr bool fits_alice = detail::set_fits<alice_t, set_t>;
        constexpr bool fits_bob = detail::set_fits<bob_t, set_t>;
        static_assert(fits_alice || fits_bob,
                      "session::run_batch: the sets' elements match neither party's inputs of this circuit (each "
                      "must be a std::tuple of this party's inputs in the order the circuit declares them, or the "
                      "value itself when this party owns one input)");
        const std::size_t n = static_cast<std::size_t>(std::ranges::size(sets));
        std::vector<std::uint8_t> bits;
        std::size_t k = 0;
        const auto add = [&]<party P, class Owned>(const auto& set) {
            std::unique_ptr<Owned> values;  // on the heap, as in run(): a set may hold large arrays
            if constexpr (detail::set_as_tuple<Owned, set_t>)
                values = std::apply([](const auto&... v) { return std::make_unique<Owned>(v...); }, set);
            else
                values = std::make_unique<Owned>(set);
            const std::vector<std::uint8_t> b =
                batch_set_inputs(c, k++, detail::encode_inputs<P, input_t<Ps, Ts>...>(*values));
            bits.insert(bits.end(), b.begin(), b.end());
        };
        if (me() == party::alice) {
            if constexpr (fits_alice) {
                for (const auto& set : sets) add.template operator()<party::alice, alice_t>(set);
            } else {
                throw usage_error(wrong_sets_message());
            }
        } else {
            if constexpr (fits_bob) {
                for (const auto& set : sets) add.template operator()<party::bob, bob_t>(set);
            } else {
                throw usage_error(wrong_sets_message());
            }
        }
        if (k != n)
            throw usage_error("session::run_batch: the range of sets gave " + std::to_string(k) +
                              " elements but its size() is " + std::to_string(n));
        return decode_batch<R>(run_batch_checked(who, c, n, bits), c.data().outputs.size(), n);
    }

    /// run_batch for a party that owns no input of c: `sets` is the number of
    /// input sets (the peer's).
    template <class R, party... Ps, class... Ts>
    std::vector<plain_type_t<R>> run_batch(const circuit<R(input_t<Ps, Ts>...)>& c, std::size_t sets) {
        return *run_batch(reveal::both, c, sets);
    }

    /// The same, choosing who learns the results; the other party gets nullopt.
    template <class R, party... Ps, class... Ts>
    std::optional<std::vector<plain_type_t<R>>> run_batch(reveal who, const circuit<R(input_t<Ps, Ts>...)>& c,
                                                          std::size_t sets) {
        for (const value_layout& in : c.data().inputs)
            if (in.owner == me())
                throw usage_error("session::run_batch: " + std::string(to_string(me())) +
                                  " owns inputs of this circuit; pass its input sets, not their number");
        return decode_batch<R>(run_batch_checked(who, c, sets, {}), c.data().outputs.size(), sets);
    }

    /// Untyped run_batch: `sets[b]` holds this party's input values of set b,
    /// as run_bits takes them. Returns the output values of each set, in
    /// order, or nullopt if this party does not learn them.
    std::optional<std::vector<std::vector<std::vector<bool>>>> run_bits_batch(
        reveal who, const circuit<>& c, const std::vector<std::vector<std::vector<bool>>>& sets) {
        std::vector<std::uint8_t> bits;
        for (std::size_t k = 0; k < sets.size(); ++k) {
            const std::vector<std::uint8_t> b = batch_set_inputs(c, k, sets[k]);
            bits.insert(bits.end(), b.begin(), b.end());
        }
        std::optional<std::vector<std::vector<bool>>> out = run_batch_checked(who, c, sets.size(), bits);
        if (!out) return std::nullopt;
        const std::size_t per_set = c.data().outputs.size();
        std::vector<std::vector<std::vector<bool>>> values(sets.size());
        for (std::size_t k = 0; k < sets.size(); ++k)
            for (std::size_t v = 0; v < per_set; ++v) values[k].push_back(std::move((*out)[k * per_set + v]));
        return values;
    }

    /// Runs a streamed function (dsl/stream.hpp) as it is recorded, in
    /// bounded memory; `mine` are this party's inputs in declaration order
    /// (sequences as containers or generators value(i)). Both parties learn
    /// the result.
    template <class F, class... Ins, class... Args>
    typename streamed_function<F, Ins...>::output_type run(streamed_function<F, Ins...>& fn, const Args&... mine) {
        return *run(reveal::both, fn, mine...);
    }

    /// The same, choosing who learns the result; the other party gets nullopt.
    template <class F, class... Ins, class... Args>
    std::optional<typename streamed_function<F, Ins...>::output_type> run(reveal who, streamed_function<F, Ins...>& fn,
                                                                          const Args&... mine) {
        const detail::stream_inputs feeds = fn.feeds_for(me(), mine...);  // before anything is sent
        std::optional<typename streamed_function<F, Ins...>::output_type> out;
        run_stream(who, fn.segment_ands, fn.signature(), fn.expected_ands, fn.eager,
                   [&](detail::segment_runner* runner, detail::gate_sink* sink) {
                       out = runner != nullptr ? fn.run(*runner, feeds, who) : fn.run(*sink, feeds, who);
                   });
        return out;
    }

    /// Untyped run: `mine` holds the bits of each of this party's input values
    /// (least significant first, in circuit order); unlike eval_plain_bits,
    /// which takes every party's, only this party's (circuit::inputs_of).
    /// Returns the bits of every output value, or nullopt if this party does
    /// not learn them.
    std::optional<std::vector<std::vector<bool>>> run_bits(reveal who, const circuit<>& c,
                                                           const std::vector<std::vector<bool>>& mine) {
        return run_checked(who, c, check_inputs(c, mine));  // checked before anything is sent
    }

    /// Untyped run in which both parties learn the output: `mine` holds this
    /// party's input values only (c.input_widths(me()) gives their widths;
    /// c.inputs_of(me(), all_values) picks them from all of the circuit's
    /// values, as eval_plain_bits takes them). Returns every output value.
    std::vector<std::vector<bool>> run_bits(const circuit<>& c, const std::vector<std::vector<bool>>& mine) {
        return *run_bits(reveal::both, c, mine);
    }

private:
    /// run_bits after the inputs are checked: `my_bits` holds this party's
    /// input bits in circuit order, a byte (0 or 1) each.
    std::optional<std::vector<std::vector<bool>>> run_checked(reveal who, const circuit<>& c,
                                                              const std::vector<std::uint8_t>& my_bits,
                                                              const detail::batch_context* batch = nullptr);

    /// Set k's inputs checked against c and flattened (check_inputs), the
    /// message naming the set.
    template <class Bits>
    std::vector<std::uint8_t> batch_set_inputs(const circuit<>& c, std::size_t k, const std::vector<Bits>& mine) const {
        try {
            return check_inputs(c, mine);
        } catch (const usage_error& e) {
            throw usage_error("session::run_batch: input set " + std::to_string(k) + ": " + e.what());
        }
    }

    std::string wrong_sets_message() const {
        return "session::run_batch: the sets given are not " + std::string(to_string(me())) +
               "'s inputs of this circuit (each set must hold this party's inputs only, in the order the circuit "
               "declares them)";
    }

    /// Each set's result from the output values of a batch (set k's values
    /// after set k - 1's).
    template <class R>
    static std::optional<std::vector<plain_type_t<R>>> decode_batch(
        const std::optional<std::vector<std::vector<bool>>>& out, std::size_t per_set, std::size_t sets) {
        if (!out) return std::nullopt;
        std::vector<plain_type_t<R>> results;
        results.reserve(sets);
        for (std::size_t k = 0; k < sets; ++k) {
            const std::vector<std::vector<bool>> values(out->begin() + static_cast<std::ptrdiff_t>(k * per_set),
                                                        out->begin() + static_cast<std::ptrdiff_t>((k + 1) * per_set));
            results.push_back(detail::decode_outputs<R>(values));
        }
        return results;
    }

    /// The batched circuit of c for `sets` sets, from the session's cache.
    const circuit<>& batched_circuit(const circuit<>& c, std::uint64_t sets);

    /// run_batch after the inputs are checked: my_bits holds this party's
    /// input bits of every set, set after set. Returns every output value of
    /// the batch, set after set.
    std::optional<std::vector<std::vector<bool>>> run_batch_checked(reveal who, const circuit<>& c,
                                                                    std::uint64_t sets,
                                                                    const std::vector<std::uint8_t>& my_bits);

    void guard_broken() const;

    /// A run failed: the session is unusable, and the peer fails now instead of at its deadline.
    void fail(const std::exception& e);

    using state = detail::session_state;
    std::unique_ptr<state> s_;  // one allocation: sessions move cheaply

    std::optional<std::vector<bool>> run_protocol(reveal who, const circuit<>& c,
                                                  const std::vector<std::uint8_t>& my_bits,
                                                  const detail::batch_context* batch);

    /// A streamed run's protocol around `body`, which runs the function and
    /// hands its segments to the runner it is given (the session's engine,
    /// pipelined or not), or, eager, its gates to the sink it is given (the
    /// other pointer is null): the run header, the statistics, and on
    /// failure the session closed.
    void run_stream(reveal who, std::uint64_t segment_ands, const std::vector<std::uint64_t>& signature,
                    std::uint64_t expected_ands, std::optional<bool> eager,
                    const std::function<void(detail::segment_runner*, detail::gate_sink*)>& body);

    std::string wrong_inputs_message(std::size_t given) const {
        return "session::run: the " + std::to_string(given) + " value(s) given are not " +
               std::string(to_string(me())) +
               "'s inputs of this circuit (pass this party's inputs only, in the order the circuit declares them)";
    }

    /// Checks this party's input values (each a vector<bool>, or
    /// detail::input_bits) against the circuit and flattens them, a byte per
    /// bit: they are secret, and bytes are copied without a branch on them
    /// (detail::input_bits).
    template <class Bits>
    std::vector<std::uint8_t> check_inputs(const circuit<>& c, const std::vector<Bits>& mine) const {
        const std::string who(to_string(me()));
        const std::size_t owned = c.input_widths(me()).size();
        const std::size_t all = c.inputs().size();
        // Passing every party's values (as eval_plain_bits takes them) is the usual slip: say so.
        const std::string hint =
            mine.size() == all && owned != all
                ? " (" + std::to_string(all) + " is the number of all the circuit's input values; pass " + who +
                      "'s only: circuit::inputs_of(party::" + who + ", all_values) picks them)"
                : " (pass " + who + "'s input values only, in circuit order; circuit::input_widths(party::" + who +
                      ") lists their widths)";
        std::vector<std::uint8_t> bits;
        std::size_t v = 0;
        for (std::size_t i = 0; i < all; ++i) {
            const value_layout& in = c.inputs()[i];
            if (in.owner != me()) continue;
            const std::string which = who + "'s input value " + std::to_string(v) + " (input " + std::to_string(i) +
                                      " of the circuit, " + std::to_string(in.bits) + " bits)";
            if (v >= mine.size())
                throw usage_error("session::run: " + which + " is missing: " + who + " owns " + std::to_string(owned) +
                                  " input value(s) of this circuit but " + std::to_string(mine.size()) +
                                  " were given" + hint);
            if (mine[v].size() != in.bits)
                throw usage_error("session::run: " + which + " must have " + std::to_string(in.bits) + " bits, got " +
                                  std::to_string(mine[v].size()) + hint);
            bits.insert(bits.end(), mine[v].begin(), mine[v].end());
            ++v;
        }
        if (v != mine.size())
            throw usage_error("session::run: " + who + " owns " + std::to_string(v) + " input value(s) of this circuit but " +
                              std::to_string(mine.size()) + " were given" + hint);
        return bits;
    }
};

/// A TCP port that is bound and listening as soon as it is constructed, for
/// a party that must tell its peer the port before the session starts;
/// typically port 0, where the system picks a free port:
///
///   tandem::listener l(0);                          // bound and listening now
///   tell_the_peer(l.port());                        // a file, a message, argv...
///   tandem::session s = l.accept(party::alice);     // the peer calls session::connect
///
/// Each accept() sets up one session (its worker links come from the same
/// port). session::listen(me, port) does both steps in one call when the port
/// is fixed in advance.
class listener {
public:
    /// Binds `address`:`port` and listens; port 0 picks a free port. Throws
    /// network_error if the port is taken, usage_error if `address` is not an
    /// IP address.
    explicit listener(std::uint16_t port = 0, const std::string& address = "0.0.0.0");
    listener(listener&&) noexcept;
    listener& operator=(listener&&) noexcept;
    ~listener();

    /// The port listened on (the one the system picked, for port 0).
    std::uint16_t port() const;

    /// Waits for the peer's session::connect (up to options.connect_timeout),
    /// then sets the session up as session::listen does.
    session accept(party me, session_options options = {});

    /// The underlying TCP listener (include <tandem/net/tcp.hpp> to use it),
    /// for channels of your own.
    net::tcp_listener& tcp() noexcept { return *tcp_; }

private:
    std::unique_ptr<net::tcp_listener> tcp_;  // a pointer: the sockets stay out of this header
};

}  // namespace tandem

TANDEM_CRYPTO_END

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/session/session_impl.hpp>
#endif

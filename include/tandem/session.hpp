// tandem/session.hpp — one party's end of a secure two-party computation.
//
//   // Alice (garbler)                         // Bob (evaluator)
//   auto s = tandem::session::listen(           auto s = tandem::session::connect(
//       tandem::party::alice, 7766);                tandem::party::bob, "alice.example", 7766);
//   bool r = s.run(circ, my_wealth);            bool r = s.run(circ, my_wealth);
//
// A session connects once, agrees on the protocol (version, roles, garbling
// hash), and sets
// up oblivious transfer once: Alice draws the free-XOR Δ that stays fixed for
// the session, and 128 base OTs seed an IKNP extension whose correlation is
// that Δ (ot/iknp.hpp). Each run() then
//   1. exchanges a run header (the circuit's fingerprint and sizes, who learns
//      the output, the run's number) and stops with protocol_error naming what
//      differs if the two sides disagree;
//   2. gives Bob the labels of his input bits by OT extension (one column per
//      bit: his label is the COT output, Alice's zero label its partner);
//   3. Alice sends the hash start and the labels of her own input bits, then
//      garbles while streaming the tables; Bob evaluates as they arrive;
//   4. opens the outputs: to Bob by hashes of both output labels (he decodes by
//      which one his label matches), to Alice by Bob's output labels (she
//      checks each is one of the two she made). Either way a label that fits
//      neither — tables or labels damaged in transit — is a protocol_error,
//      never a wrong answer.
// Tweaks continue across runs (every AND under the session's Δ gets its own),
// and each run draws a fresh hash start.
//
// Security: semi-honest (DESIGN §9). A session is used by one thread at a
// time. A failed run closes the connection at once (so the peer fails too,
// without waiting for its deadline) and leaves the session unusable; open a
// new one.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/error.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/stream.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/party.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// Who learns the outputs of a run.
enum class reveal : std::uint8_t { both = 0, alice = 1, bob = 2 };

constexpr std::string_view to_string(reveal r) noexcept {
    return r == reveal::both ? "both parties" : r == reveal::alice ? "alice only" : "bob only";
}

/// Which hash garbles the ANDs (crypto/hash.hpp, crypto/fixed_key_hash.hpp).
enum class garbling_hash : std::uint8_t {
    rekeyed = 0,    ///< default: the multi-instance tweakable CCR hash (no multi-instance degradation)
    fixed_key = 1,  ///< opt-in: faster, with the weaker multi-instance bound its header documents
};

constexpr std::string_view to_string(garbling_hash h) noexcept {
    return h == garbling_hash::rekeyed ? "rekeyed (default)" : "fixed-key (opt-in)";
}

struct session_options {
    /// Deadline of every blocking network call once connected (renewed while
    /// bytes move). A peer silent for this long is taken for dead.
    std::chrono::milliseconds timeout = net::default_timeout;
    /// How long listen()/accept()/connect() wait for the peer to show up.
    std::chrono::milliseconds connect_timeout = net::default_connect_timeout;
    /// The garbling hash; both parties must choose the same (checked in the handshake).
    garbling_hash hash = garbling_hash::rekeyed;
};

/// What one run did, as seen by this party.
struct run_stats {
    std::uint64_t and_gates = 0;
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
    double seconds = 0;     ///< the whole run, from the run header to the result
    double ot_seconds = 0;  ///< of which OT extension for Bob's input labels
};

/// Protocol version spoken in the handshake; changes with any wire-format change.
inline constexpr std::uint32_t protocol_version = 1;

class session {
public:
    /// Runs the handshake and the OT set-up over an open channel to the peer.
    session(party me, std::unique_ptr<net::channel> channel, session_options options = {})
        : s_(std::make_unique<state>(me, std::move(channel), options.hash)) {
        s_->ch->set_timeout(options.timeout);
        const auto t0 = net::clock::now();
        handshake();
        set_up_ot();
        s_->setup_seconds = std::chrono::duration<double>(net::clock::now() - t0).count();
    }

    /// Waits on `port` for the peer to connect, then sets the session up.
    static session listen(party me, std::uint16_t port, session_options options = {},
                          const std::string& address = "0.0.0.0") {
        net::tcp_listener listener(port, address);
        return session(me, listener.accept(options.connect_timeout), options);
    }

    /// Takes the next connection of an existing listener (e.g. one bound to
    /// port 0 whose port was handed to the peer), then sets the session up.
    static session accept(party me, net::tcp_listener& listener, session_options options = {}) {
        return session(me, listener.accept(options.connect_timeout), options);
    }

    /// Connects to a listening peer (retrying until options.connect_timeout).
    static session connect(party me, const std::string& host, std::uint16_t port, session_options options = {}) {
        return session(me, net::tcp_connect(host, port, options.connect_timeout), options);
    }

    party me() const noexcept { return s_->me; }
    /// Handshake + base OTs + IKNP set-up, in seconds.
    double setup_seconds() const noexcept { return s_->setup_seconds; }
    const run_stats& last_run() const noexcept { return s_->last; }
    net::channel& channel() noexcept { return *s_->ch; }

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
        using alice_t = owned_inputs<party::alice, input_t<Ps, Ts>...>;
        using bob_t = owned_inputs<party::bob, input_t<Ps, Ts>...>;
        constexpr bool fits_alice = inputs_fit<alice_t, Args...>::value;
        constexpr bool fits_bob = inputs_fit<bob_t, Args...>::value;
        static_assert(fits_alice || fits_bob,
                      "session::run: the arguments match neither party's inputs of this circuit (pass this "
                      "party's inputs only, in the order the circuit declares them)");
        std::vector<std::vector<bool>> bits;
        if (me() == party::alice) {
            if constexpr (fits_alice) bits = encode_inputs<party::alice, input_t<Ps, Ts>...>(alice_t(mine...));
            else throw usage_error(wrong_inputs_message(sizeof...(Args)));
        } else {
            if constexpr (fits_bob) bits = encode_inputs<party::bob, input_t<Ps, Ts>...>(bob_t(mine...));
            else throw usage_error(wrong_inputs_message(sizeof...(Args)));
        }
        std::optional<std::vector<std::vector<bool>>> out = run_bits(who, c, bits);
        if (!out) return std::nullopt;
        std::vector<std::uint64_t> words;
        for (const auto& value : *out)
            for (bool b : value) words.push_back(b ? 1 : 0);
        detail::const_lane_cursor cur{words.data(), 0};
        return value_traits<R>::decode(cur);
    }

    /// Untyped run: `mine` holds the bits of each of this party's input values
    /// (least significant first, in circuit order), as in eval_plain_bits.
    /// Returns the bits of every output value, or nullopt if this party does
    /// not learn them.
    std::optional<std::vector<std::vector<bool>>> run_bits(reveal who, const circuit<>& c,
                                                           const std::vector<std::vector<bool>>& mine) {
        const std::vector<bool> my_bits = check_inputs(c, mine);  // before anything is sent
        if (s_->broken)
            throw usage_error("session::run: an earlier run failed (" + s_->broken_why +
                              "); the link is in an unknown state, open a new session");
        try {
            std::optional<std::vector<bool>> bits =
                me() == party::alice ? run_as_garbler(who, c, my_bits) : run_as_evaluator(who, c, my_bits);
            if (!bits) return std::nullopt;
            std::vector<std::vector<bool>> values;
            for (const value_layout& v : c.data().outputs)
                values.emplace_back(bits->begin() + v.first_bit, bits->begin() + v.first_bit + v.bits);
            return values;
        } catch (const std::exception& e) {
            s_->broken = true;
            s_->broken_why = e.what();
            s_->ch->close();  // the peer fails now instead of at its deadline
            throw;
        }
    }

private:
    // ---- state ------------------------------------------------------------
    struct state {
        state(party p, std::unique_ptr<net::channel> c, garbling_hash h) : me(p), hash(h), ch(std::move(c)) {
            if (!ch) throw usage_error("session: no channel given");
        }
        party me;
        garbling_hash hash;
        std::unique_ptr<net::channel> ch;
        prg rng;
        block delta;  // alice: the session's free-XOR offset (wiped with the OT sender's copy)
        std::optional<ot::cot_sender> sender;      // alice
        std::optional<ot::cot_receiver> receiver;  // bob
        std::uint64_t next_gate = 0;               // tweak offset of the next run
        std::uint64_t runs = 0;
        double setup_seconds = 0;
        run_stats last;
        bool broken = false;
        std::string broken_why;
        ~state() { tandem::detail::wipe(&delta, sizeof delta); }
    };
    std::unique_ptr<state> s_;

    static constexpr std::uint64_t hello_magic = 0x3130484c4f444e54ull;  // "TNDOLH01"
    static constexpr std::uint64_t run_magic = 0x3130524e55444e54ull;    // "TNDUNR01"

    // ---- handshake and set-up -----------------------------------------------
    void handshake() {
        net::channel& ch = *s_->ch;
        ch.send_value(hello_magic);
        ch.send_value(protocol_version);
        ch.send_value(static_cast<std::uint8_t>(s_->me));
        ch.send_value(static_cast<std::uint8_t>(s_->hash));
        const auto magic = ch.recv_value<std::uint64_t>();
        if (magic != hello_magic)
            throw protocol_error("session handshake on " + ch.name() +
                                 ": the peer did not greet as a tandem session; check host and port");
        const auto version = ch.recv_value<std::uint32_t>();
        const auto peer = ch.recv_value<std::uint8_t>();
        const auto peer_hash = ch.recv_value<std::uint8_t>();
        if (version != protocol_version)
            throw protocol_error("session handshake: protocol versions differ (this party speaks " +
                                 std::to_string(protocol_version) + ", the peer " + std::to_string(version) +
                                 "); build both parties with the same tandem version");
        if (peer > 1 || static_cast<party>(peer) == s_->me)
            throw protocol_error("session handshake: both parties run as " + std::string(to_string(s_->me)) +
                                 "; one must be alice and the other bob");
        if (peer_hash != static_cast<std::uint8_t>(s_->hash))
            throw protocol_error(
                "session handshake: the parties chose different garbling hashes (this party " +
                std::string(to_string(s_->hash)) + ", the peer " +
                (peer_hash <= 1 ? std::string(to_string(static_cast<garbling_hash>(peer_hash))) : "unknown") +
                "); set session_options::hash alike on both sides");
    }

    void set_up_ot() {
        if (s_->me == party::alice) {
            s_->delta = s_->rng.next() | block(0, 1);
            s_->sender.emplace(*s_->ch, s_->delta);
        } else {
            s_->receiver.emplace(*s_->ch);
        }
        s_->ch->flush();
    }

    // ---- inputs -------------------------------------------------------------
    /// An argument fits an input if it converts implicitly, numbers without
    /// narrowing, and bools only fit bools: passing `true` for an integer (or
    /// 300 for a uint8_t) is a bug the caller should hear about.
    template <class Target, class Arg>
    static constexpr bool fits_input() {
        using A = std::remove_cvref_t<Arg>;
        if constexpr (std::is_same_v<A, bool> != std::is_same_v<Target, bool>) return false;
        else if constexpr (std::is_arithmetic_v<Target> && std::is_arithmetic_v<A>) return requires(const A& a) { Target{a}; };
        else return std::is_convertible_v<const A&, Target>;
    }
    template <class Target, class Arg>
    static constexpr bool input_fits = fits_input<Target, Arg>();
    template <class Tuple, class... Args>
    struct inputs_fit : std::false_type {};
    template <class... Targets, class... Args>
        requires(sizeof...(Targets) == sizeof...(Args))
    struct inputs_fit<std::tuple<Targets...>, Args...> : std::bool_constant<(input_fits<Targets, Args> && ...)> {};

    template <party P, class... Inputs>
    using owned_inputs = decltype(std::tuple_cat(
        std::declval<std::conditional_t<Inputs::owner == P, std::tuple<plain_type_t<typename Inputs::type>>,
                                        std::tuple<>>>()...));

    /// The bits of P's input values, from the tuple of P's plain inputs.
    template <party P, class... Inputs, class Tuple>
    static std::vector<std::vector<bool>> encode_inputs(const Tuple& values) {
        std::vector<std::vector<bool>> bits;
        encode_each<P, 0, Inputs...>(values, bits);
        return bits;
    }
    template <party P, std::size_t J, class First, class... Rest, class Tuple>
    static void encode_each(const Tuple& values, std::vector<std::vector<bool>>& bits) {
        if constexpr (First::owner == P) {
            using T = typename First::type;
            std::vector<std::uint64_t> words(value_traits<T>::bits);
            detail::lane_cursor cur{words.data(), 0};
            value_traits<T>::encode(std::get<J>(values), cur);
            bits.emplace_back(words.begin(), words.end());
            if constexpr (sizeof...(Rest) > 0) encode_each<P, J + 1, Rest...>(values, bits);
        } else if constexpr (sizeof...(Rest) > 0) {
            encode_each<P, J, Rest...>(values, bits);
        }
    }
    template <party P, std::size_t J, class Tuple>
    static void encode_each(const Tuple&, std::vector<std::vector<bool>>&) {}

    std::string wrong_inputs_message(std::size_t given) const {
        return "session::run: the " + std::to_string(given) + " value(s) given are not " +
               std::string(to_string(me())) +
               "'s inputs of this circuit (pass this party's inputs only, in the order the circuit declares them)";
    }

    /// Checks this party's input values against the circuit and flattens them.
    std::vector<bool> check_inputs(const circuit<>& c, const std::vector<std::vector<bool>>& mine) const {
        std::vector<bool> bits;
        std::size_t v = 0;
        for (const value_layout& in : c.data().inputs) {
            if (in.owner != me()) continue;
            if (v >= mine.size() || mine[v].size() != in.bits)
                throw usage_error("session::run: " + std::string(to_string(me())) + "'s input value " +
                                  std::to_string(v) + " must have " + std::to_string(in.bits) + " bits, " +
                                  (v >= mine.size() ? "but it is missing" : "got " + std::to_string(mine[v].size())));
            bits.insert(bits.end(), mine[v].begin(), mine[v].end());
            ++v;
        }
        if (v != mine.size())
            throw usage_error("session::run: " + std::string(to_string(me())) + " owns " + std::to_string(v) +
                              " input value(s) of this circuit but " + std::to_string(mine.size()) + " were given");
        return bits;
    }

    // ---- the run header -------------------------------------------------------
    struct run_header {
        std::uint64_t magic, run, fp_hi, fp_lo, gates, and_gates;
        std::uint32_t alice_bits, bob_bits, output_bits;
        std::uint8_t who, sender;
    };

    run_header header_of(reveal who, const circuit<>& c) const {
        const circuit_data& d = c.data();
        run_header h{run_magic, s_->runs, c.fingerprint().hi, c.fingerprint().lo, d.gates.size(),
                     c.stats().and_gates, 0, 0, static_cast<std::uint32_t>(d.output_slots.size()),
                     static_cast<std::uint8_t>(who), static_cast<std::uint8_t>(me())};
        for (const value_layout& in : d.inputs) (in.owner == party::alice ? h.alice_bits : h.bob_bits) += in.bits;
        return h;
    }

    static void send_header(net::channel& ch, const run_header& h) {
        for (std::uint64_t w : {h.magic, h.run, h.fp_hi, h.fp_lo, h.gates, h.and_gates}) ch.send_value(w);
        for (std::uint32_t w : {h.alice_bits, h.bob_bits, h.output_bits}) ch.send_value(w);
        ch.send_value(h.who);
        ch.send_value(h.sender);
    }
    static run_header recv_header(net::channel& ch) {
        run_header h{};
        for (std::uint64_t* w : {&h.magic, &h.run, &h.fp_hi, &h.fp_lo, &h.gates, &h.and_gates})
            *w = ch.recv_value<std::uint64_t>();
        for (std::uint32_t* w : {&h.alice_bits, &h.bob_bits, &h.output_bits}) *w = ch.recv_value<std::uint32_t>();
        h.who = ch.recv_value<std::uint8_t>();
        h.sender = ch.recv_value<std::uint8_t>();
        return h;
    }

    static std::string describe(const run_header& h) {
        return std::to_string(h.gates) + " gates (" + std::to_string(h.and_gates) + " AND), inputs " +
               std::to_string(h.alice_bits) + " bits alice / " + std::to_string(h.bob_bits) + " bits bob, " +
               std::to_string(h.output_bits) + " output bits";
    }

    /// Both sides send their header, then compare: one round trip.
    void agree_on_run(const run_header& mine) {
        net::channel& ch = *s_->ch;
        send_header(ch, mine);
        const run_header peer = recv_header(ch);
        if (peer.magic != run_magic)
            throw protocol_error("run: the peer's run header is malformed (stream out of step or corrupted)");
        if (peer.run != mine.run)
            throw protocol_error("run: the parties are out of step (this party starts run #" +
                                 std::to_string(mine.run) + ", the peer run #" + std::to_string(peer.run) +
                                 "); both must make the same sequence of run() calls");
        if (peer.fp_hi != mine.fp_hi || peer.fp_lo != mine.fp_lo)
            throw protocol_error("run: the parties hold different circuits (this party: " + describe(mine) +
                                 "; the peer: " + describe(peer) +
                                 "); both must compile the same function with the same tandem version");
        if (peer.who != mine.who)
            throw protocol_error("run: the parties disagree on who learns the output (this party asked for " +
                                 std::string(to_string(static_cast<reveal>(mine.who))) + ", the peer for " +
                                 std::string(to_string(static_cast<reveal>(peer.who & 3))) + ")");
        if (peer.sender == mine.sender) internal_mismatch();
    }
    [[noreturn]] static void internal_mismatch() {
        throw protocol_error("run: the peer claims this party's role (stream corrupted)");
    }

    // ---- output check hash ------------------------------------------------------
    /// H(label, k) under a key range disjoint from every AND's (high word set),
    /// truncated to 64 bits: enough to tell the two labels apart and to catch
    /// damage with probability 1 - 2^-64 per output bit.
    static void output_hashes(block hash_start, std::span<block> labels, std::size_t copies) {
        const mitccr_hash h(hash_start ^ block(std::uint64_t{1} << 63, 0));
        const std::size_t n = labels.size() / copies;
        if (n > 0) h.hash(0, n, copies, labels.data());
    }

    // ---- the garbler (alice) ----------------------------------------------------
    std::optional<std::vector<bool>> run_as_garbler(reveal who, const circuit<>& c, const std::vector<bool>& my_bits) {
        state& s = *s_;
        net::channel& ch = *s.ch;
        const circuit_data& d = c.data();
        const auto t0 = net::clock::now();
        const std::uint64_t sent0 = ch.bytes_sent(), received0 = ch.bytes_received();
        agree_on_run(header_of(who, c));

        // Bob's input labels: COT outputs q (his zero labels; he gets q ^ b·Δ).
        std::uint32_t bob_bits = 0;
        for (const value_layout& in : d.inputs) bob_bits += in.owner == party::bob ? in.bits : 0;
        std::vector<block> q(bob_bits);
        const auto t_ot = net::clock::now();
        if (bob_bits > 0) s.sender->extend(ch, q);
        const double ot_seconds = std::chrono::duration<double>(net::clock::now() - t_ot).count();

        gc::encoding enc{s.delta, std::vector<block>(d.input_bits)};
        s.rng.fill(enc.zero_labels.data(), d.input_bits);
        const block hash_start = s.rng.next();
        ch.send_value(hash_start);
        std::size_t mine = 0, theirs = 0;
        for (const value_layout& in : d.inputs)
            for (std::uint32_t k = 0; k < in.bits; ++k) {
                const std::uint32_t bit = in.first_bit + k;
                if (in.owner == party::alice) {
                    ch.send_value(enc.label(bit, my_bits[mine++]));
                } else {
                    enc.zero_labels[bit] = q[theirs++];
                }
            }
        tandem::detail::wipe_all(q);

        gc::channel_sink sink(ch);
        gc::garbled_outputs g = s.hash == garbling_hash::fixed_key
                                    ? gc::garble<fixed_key_hash>(c, enc, hash_start, sink, s.next_gate)
                                    : gc::garble<mitccr_hash>(c, enc, hash_start, sink, s.next_gate);
        s.next_gate += g.and_gates;

        // The live (non-constant) outputs, in order.
        std::vector<std::size_t> live;
        for (std::size_t k = 0; k < d.output_slots.size(); ++k)
            if (d.output_slots[k] != output_false && d.output_slots[k] != output_true) live.push_back(k);

        if (who != reveal::alice) {  // Bob decodes by matching H(label) against both hashes
            std::vector<block> x(2 * live.size());
            for (std::size_t m = 0; m < live.size(); ++m)
                x[m] = g.output_zero[live[m]], x[live.size() + m] = g.output_zero[live[m]] ^ s.delta;
            output_hashes(hash_start, x, 2);
            for (const block& b : x) ch.send_value(b.low());
        }
        ch.flush();

        std::optional<std::vector<bool>> result;
        if (who != reveal::bob) {  // Bob's output labels; each must be one of ours
            std::vector<bool> bits(d.output_slots.size());
            for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = g.output.bits[k] != 0;  // constants
            for (std::size_t m = 0; m < live.size(); ++m) {
                const block w = ch.recv_value<block>();
                const block z = g.output_zero[live[m]];
                if (w == z) bits[live[m]] = false;
                else if (w == (z ^ s.delta)) bits[live[m]] = true;
                else throw protocol_error(corrupted_message("the evaluator's output label " + std::to_string(live[m])));
            }
            result = std::move(bits);
        }
        tandem::detail::wipe_all(g.output_zero);  // with Δ they open the outputs
        finish_run(t0, sent0, received0, g.and_gates, ot_seconds);
        return result;
    }

    // ---- the evaluator (bob) ----------------------------------------------------
    std::optional<std::vector<bool>> run_as_evaluator(reveal who, const circuit<>& c, const std::vector<bool>& my_bits) {
        state& s = *s_;
        net::channel& ch = *s.ch;
        const circuit_data& d = c.data();
        const auto t0 = net::clock::now();
        const std::uint64_t sent0 = ch.bytes_sent(), received0 = ch.bytes_received();
        agree_on_run(header_of(who, c));

        std::vector<std::uint8_t> choices(my_bits.begin(), my_bits.end());
        std::vector<block> t(choices.size());
        const auto t_ot = net::clock::now();
        if (!choices.empty()) s.receiver->extend(ch, choices, t);
        ch.flush();
        const double ot_seconds = std::chrono::duration<double>(net::clock::now() - t_ot).count();

        const block hash_start = ch.recv_value<block>();
        std::vector<block> labels(d.input_bits);
        std::size_t mine = 0;
        for (const value_layout& in : d.inputs)
            for (std::uint32_t k = 0; k < in.bits; ++k)
                labels[in.first_bit + k] = in.owner == party::alice ? ch.recv_value<block>() : t[mine++];
        tandem::detail::wipe_all(t);

        const std::uint64_t and_gates = c.stats().and_gates;
        gc::channel_source source(ch, 2 * and_gates);
        std::vector<block> out = s.hash == garbling_hash::fixed_key
                                     ? gc::evaluate<fixed_key_hash>(c, hash_start, source, labels, s.next_gate)
                                     : gc::evaluate<mitccr_hash>(c, hash_start, source, labels, s.next_gate);
        tandem::detail::wipe_all(labels);
        s.next_gate += and_gates;

        std::vector<std::size_t> live;
        for (std::size_t k = 0; k < d.output_slots.size(); ++k)
            if (d.output_slots[k] != output_false && d.output_slots[k] != output_true) live.push_back(k);

        std::optional<std::vector<bool>> result;
        if (who != reveal::alice) {
            std::vector<bool> bits(d.output_slots.size());
            for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = d.output_slots[k] == output_true;
            std::vector<std::uint64_t> hashes(2 * live.size());  // H(zero label)s, then H(one label)s
            if (!hashes.empty()) ch.recv(hashes.data(), hashes.size() * sizeof(std::uint64_t));
            std::vector<block> x(live.size());
            for (std::size_t m = 0; m < live.size(); ++m) x[m] = out[live[m]];
            output_hashes(hash_start, x, 1);
            for (std::size_t m = 0; m < live.size(); ++m) {
                const std::uint64_t h = x[m].low();
                if (h == hashes[m]) bits[live[m]] = false;
                else if (h == hashes[live.size() + m]) bits[live[m]] = true;
                else throw protocol_error(corrupted_message("output label " + std::to_string(live[m])));
            }
            tandem::detail::wipe_all(x);
            result = std::move(bits);
        }
        if (who != reveal::bob) {
            for (std::size_t k : live) ch.send_value(out[k]);
            ch.flush();
        }
        finish_run(t0, sent0, received0, and_gates, ot_seconds);
        return result;
    }

    static std::string corrupted_message(const std::string& what) {
        return "run: " + what +
               " is neither of its two valid values: garbled tables or labels were damaged in transit (or the "
               "peer is not following the protocol); the result is discarded";
    }

    void finish_run(net::clock::time_point t0, std::uint64_t sent0, std::uint64_t received0, std::uint64_t and_gates,
                    double ot_seconds) {
        state& s = *s_;
        s.last.and_gates = and_gates;
        s.last.bytes_sent = s.ch->bytes_sent() - sent0;
        s.last.bytes_received = s.ch->bytes_received() - received0;
        s.last.seconds = std::chrono::duration<double>(net::clock::now() - t0).count();
        s.last.ot_seconds = ot_seconds;
        ++s.runs;
    }
};

}  // namespace tandem

TANDEM_CRYPTO_END

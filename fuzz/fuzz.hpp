// fuzz/fuzz.hpp — what the libFuzzer harnesses (fuzz/<name>.cpp) and the
// seed generator (fuzz/seeds.cpp) share: reading a fuzz input, a channel
// whose peer is the fuzz input, the fixed programs the session harnesses run,
// and the layout of inputs that carry several links.
//
// Outcomes a harness allows: a result (checked where it can be) or an
// exception derived from tandem::error. Anything else — another exception
// (std::logic_error is tandem's "internal error"), a crash, a sanitizer
// report, a leak, a hang past libFuzzer's -timeout, a wrong answer — is a
// finding. Harness code (not library code) may print and abort.
#pragma once

#include <tandem/tandem.hpp>
// The run headers' readers (the harnesses decode them): session internals,
// not in tandem.hpp.
#include <tandem/session/run_header.hpp>
#include <tandem/session/stream.hpp>
#include <tandem/ot/base_ot.hpp>
#include <tandem/ot/ferret.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/ot/softspoken.hpp>
#include <tandem/net/noise.hpp>
#include <tandem/net/secure_channel.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace tandem::fuzz {

/// Reads a fuzz input front to back; past its end every read gives zeros.
class byte_reader {
public:
    byte_reader(const std::uint8_t* data, std::size_t size) noexcept : p_(data), left_(size) {}

    std::uint8_t u8() noexcept {
        if (left_ == 0) return 0;
        --left_;
        return *p_++;
    }
    std::uint16_t u16() noexcept { return static_cast<std::uint16_t>(u8() | u8() << 8); }
    std::uint32_t u32() noexcept { return static_cast<std::uint32_t>(u16() | std::uint32_t{u16()} << 16); }
    /// The next n bytes (fewer at the end).
    std::span<const std::uint8_t> take(std::size_t n) noexcept {
        n = std::min(n, left_);
        const std::span<const std::uint8_t> s(p_, n);
        p_ += n;
        left_ -= n;
        return s;
    }
    std::span<const std::uint8_t> rest() noexcept { return take(left_); }
    std::size_t left() const noexcept { return left_; }

private:
    const std::uint8_t* p_;
    std::size_t left_;
};

/// A finding that no sanitizer sees (a wrong answer): say what, and abort so
/// that libFuzzer keeps the input.
[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "\n==fuzz== FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

/// With TANDEM_FUZZ_VERBOSE set, harnesses say how each input ended (to
/// see what a seed or a kept finding does: run the harness on its file).
inline bool verbose() {
    static const bool v = std::getenv("TANDEM_FUZZ_VERBOSE") != nullptr;
    return v;
}
inline void say(const std::string& what) {
    if (verbose()) std::fprintf(stderr, "==fuzz== %s\n", what.c_str());
}

/// What CTest's fuzz.<name> demands of an input (TANDEM_FUZZ_EXPECT, set by
/// fuzz/run_inputs.cmake). While fuzzing, and for kept findings, nothing: a
/// result or a tandem::error. The seeds of fuzz/corpus/ are an honest peer's
/// bytes, so each must *complete* (a tandem::error there means the seed no
/// longer speaks the protocol: it is stale) — except those whose file name
/// starts with "fails-", which must end in a tandem::error.
enum class expectation { anything, completes, fails };

inline expectation expected() {
    static const expectation e = [] {
        const char* v = std::getenv("TANDEM_FUZZ_EXPECT");
        const std::string s = v != nullptr ? v : "";
        return s == "completes" ? expectation::completes : s == "fails" ? expectation::fails : expectation::anything;
    }();
    return e;
}

/// True while running an honest seed: the harness may then check what no
/// fuzzed peer can be held to (the honest party's results on both sides).
inline bool honest_seed() { return expected() == expectation::completes; }

/// Runs f; a tandem::error is an allowed outcome, anything else escapes to
/// libFuzzer (an uncaught exception is reported as a crash). Under an
/// expectation (above), the other outcome is a finding.
template <class F>
void allow_tandem_errors(F&& f) {
    try {
        f();
    } catch (const tandem::error& e) {
        say(std::string("tandem error: ") + e.what());
        if (expected() == expectation::completes)
            finding(std::string("an honest seed ended in a tandem::error (") + e.what() +
                    ") — the seed is stale: the protocol or the harness changed since it was recorded. Write the "
                    "seeds again (fuzz/README.md, \"Seeds\")");
        return;
    }
    say("completed");
    if (expected() == expectation::fails)
        finding("a seed named fails-… completed; it must end in a tandem::error (rename it if it is now honest)");
}

/// The peer of this party is the fuzz input: what this party sends is
/// dropped, what it receives is served from `bytes`; at their end the peer
/// "hangs up" (network_error), so nothing can wait. The bytes are copied into
/// a buffer of exactly their size, so a read past them is an ASan report.
class fuzz_channel final : public net::channel {
public:
    fuzz_channel(std::string name, std::span<const std::uint8_t> bytes)
        : net::channel(std::move(name)), bytes_(std::make_unique<std::byte[]>(bytes.size())), size_(bytes.size()) {
        if (!bytes.empty()) std::memcpy(bytes_.get(), bytes.data(), bytes.size());
    }
    void close() noexcept override { closed_ = true; }
    void interrupt() noexcept override { closed_ = true; }

protected:
    void write_all(const std::byte*, std::size_t, const char* op) override {
        if (closed_) fail(op, "this end was closed");
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) override {
        if (closed_) fail("recv", "this end was closed");
        const std::size_t left = size_ - pos_;
        if (left < min) {
            pos_ = size_;
            fail_closed("recv");
        }
        const std::size_t n = std::min(max, left);
        std::memcpy(p, bytes_.get() + pos_, n);
        pos_ += n;
        return n;
    }

private:
    std::unique_ptr<std::byte[]> bytes_;
    std::size_t size_;
    std::size_t pos_ = 0;
    std::atomic<bool> closed_{false};
};

inline std::unique_ptr<net::channel> channel_of(std::span<const std::uint8_t> bytes, const std::string& name = "fuzz") {
    return std::make_unique<fuzz_channel>(name, bytes);
}

// ---- Inputs that feed several links -----------------------------------------
// Configuration bytes, then the bytes of each link: all but the last
// prefixed by their length (u32, little-endian; a length past the end takes
// what is left), the last taking the rest.

/// Splits the rest of r into n link streams.
inline std::vector<std::span<const std::uint8_t>> split_links(byte_reader& r, std::size_t n) {
    std::vector<std::span<const std::uint8_t>> links;
    for (std::size_t k = 0; k + 1 < n; ++k) links.push_back(r.take(r.u32()));
    links.push_back(r.rest());
    return links;
}

/// The inverse of split_links (the seed generator writes inputs with it).
inline std::vector<std::uint8_t> join_links(std::vector<std::uint8_t> config,
                                            const std::vector<std::vector<std::uint8_t>>& links) {
    std::vector<std::uint8_t> out = std::move(config);
    for (std::size_t k = 0; k < links.size(); ++k) {
        if (k + 1 < links.size()) {
            const auto n = static_cast<std::uint32_t>(links[k].size());
            for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(n >> (8 * b)));
        }
        out.insert(out.end(), links[k].begin(), links[k].end());
    }
    return out;
}

// ---- The sessions of the handshake and session harnesses ------------------------
// Two configuration bytes: which party this process plays (the fuzz input is
// the other), and the options both parties must agree on.

struct program;

struct session_config {
    party me = party::alice;
    bool streamed = false;      ///< run the streamed function, not the compiled circuit
    bool ipp = false;           ///< inter-party parallelization (compiled, semi-honest runs only)
    bool pipeline = false;      ///< session_options::pipeline_streams (streamed runs; the same bit as ipp)
    std::uint32_t threads = 1;  ///< 1 or 2
    reveal who = reveal::both;
    garbling_hash hash = garbling_hash::rekeyed;
    bool aesni = false;  ///< this process uses the AES-NI kernels, not VAES (not seen by the peer)
    tandem::security security = tandem::security::semi_honest;  ///< malicious: authenticated garbling over plain links
    bool eager = false;  ///< the streamed function garbled as it is made (streamed_function::eager; semi-honest)
    /// Resumption (session/tickets.hpp; semi-honest): Alice keeps an empty
    /// ticket_store and Bob an empty ticket slot, so the set-up carries the
    /// ticket's hello, the store's answer and a new ticket.
    bool tickets = false;
    /// Malicious sessions' authenticated bits from silent OT
    /// (session_options::malicious_ot = cot_extension::silent), not SoftSpoken.
    bool silent_ot = false;

    static constexpr std::size_t bytes = 2;

    static session_config decode(byte_reader& r) noexcept {
        const std::uint8_t b = r.u8(), b2 = r.u8();
        session_config c;
        c.security = (b2 & 1) != 0 ? tandem::security::malicious : tandem::security::semi_honest;
        const bool malicious = c.security == tandem::security::malicious;
        c.eager = (b2 & 2) != 0 && (b & 2) != 0 && !malicious;  // a streamed run's mode; malicious refuses it
        c.tickets = (b2 & 4) != 0 && !malicious;                  // malicious sessions refuse tickets
        c.silent_ot = (b2 & 8) != 0 && malicious;                 // semi-honest sessions refuse the option
        c.me = (b & 1) != 0 ? party::bob : party::alice;
        c.streamed = (b & 2) != 0;
        // Streamed and malicious runs refuse IPP (a usage error, before any byte)...
        c.ipp = (b & 4) != 0 && !c.streamed && !malicious;
        c.pipeline = (b & 4) != 0 && c.streamed;  // ...and pipelining is for streamed runs only
        c.threads = (b & 8) != 0 ? 2 : 1;
        const unsigned w = (b >> 4) & 3;
        c.who = w == 1 ? reveal::alice : w == 2 ? reveal::bob : reveal::both;
        c.hash = (b & 0x40) != 0 ? garbling_hash::fixed_key : garbling_hash::rekeyed;
        c.aesni = (b & 0x80) != 0;
        return c;
    }
    std::vector<std::uint8_t> encode() const {
        return {static_cast<std::uint8_t>((me == party::bob ? 1 : 0) | (streamed ? 2 : 0) | (ipp || pipeline ? 4 : 0) |
                                          (threads == 2 ? 8 : 0) | static_cast<unsigned>(who) << 4 |
                                          (hash == garbling_hash::fixed_key ? 0x40 : 0) | (aesni ? 0x80 : 0)),
                static_cast<std::uint8_t>((security == tandem::security::malicious ? 1 : 0) | (eager ? 2 : 0) |
                                          (tickets ? 4 : 0) | (silent_ot ? 8 : 0))};
    }
    /// Chooses this process's AES kernels as the configuration says.
    void use_kernels() const {
        use_aes_isa(aesni ? tandem::narrowest_aes_isa : tandem::detail::widest_aes_isa());
    }
    /// Links besides the main one (session.hpp, open_worker_links).
    std::size_t extra_links() const noexcept { return threads - 1 + (ipp ? threads : 0); }
    /// The compiled program this configuration runs (below).
    const program& compiled() const;
    /// Whether party p learns the run's output.
    bool learns(party p) const noexcept { return who == reveal::both || (who == reveal::alice) == (p == party::alice); }

    /// This party's options. The seed is fixed per party, so a recorded
    /// honest peer replays exactly, and a finding replays too. Malicious
    /// sessions run over plain links (allow_plain_links): a fuzzed peer
    /// behind a sealed link could not get past the first record's tag, and
    /// the sealed links have their own harness (secure_link).
    session_options options(party p) const {
        session_options o;
        o.threads = threads;
        o.ipp = ipp;
        o.ipp_min_ands = 1;  // split the small region between the worlds
        o.hash = hash;
        o.security = security;
        if (silent_ot) o.malicious_ot = cot_extension::silent;
        o.allow_plain_links = true;
        o.pipeline_streams = pipeline;
        o.timeout = std::chrono::milliseconds(200);
        o.insecure_seed = p == party::alice ? 0xA11CE : 0xB0B;
        if (tickets && p == party::alice) o.ticket_store = std::make_shared<ticket_store>();
        if (tickets && p == party::bob) o.ticket = std::make_shared<session_ticket>();
        return o;
    }
};

using u8 = secure_uint<8>;

/// A compiled program of the session harnesses, with fixed inputs.
struct program {
    circuit<> c;
    std::vector<std::vector<bool>> alice, bob;  ///< each party's input values, in circuit order
    std::vector<std::vector<bool>> expected;    ///< the outputs, from plaintext evaluation

    const std::vector<std::vector<bool>>& inputs_of(party p) const { return p == party::alice ? alice : bob; }
};

/// N products of W-bit numbers in a parallel region (so workers and IPP
/// have something to share), their sum and a comparison.
template <std::size_t N, std::size_t W>
program make_program() {
    using uw = secure_uint<W>;
    using row = std::array<uw, N>;
    program p;
    p.c = compile(
        [](const row& a, const row& b) {
            const auto products = parallel_for<N>([&](std::size_t i) { return a[i] * b[i]; });
            uw sum = 0;
            for (const uw& x : products) sum = sum + x;
            return std::make_tuple(sum, a[0] < b[0]);
        },
        input<party::alice, row>, input<party::bob, row>);
    std::uint32_t x = 2463534242u;  // xorshift: fixed input bits
    std::vector<std::vector<bool>> all;
    for (const value_layout& v : p.c.data().inputs) {
        std::vector<bool> bits(v.bits);
        for (std::size_t k = 0; k < bits.size(); ++k) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            bits[k] = (x & 1) != 0;
        }
        (v.owner == party::alice ? p.alice : p.bob).push_back(bits);
        all.push_back(std::move(bits));
    }
    p.expected = eval_plain_bits(p.c, all);
    return p;
}

/// The compiled program for a thread count. With one thread, four 8-bit
/// products (about 250 ANDs). With two, eight 24-bit products (about 4400
/// ANDs): enough that the planner gives the second worker a share
/// (exec/plan.hpp: a part has at least fgp_min_ands = 1024 ANDs), with IPP
/// in each world too. Made once: circuits are immutable.
inline const program& compiled_program(std::uint32_t threads) {
    static const program small = make_program<4, 8>();
    static const program wide = make_program<8, 24>();
    return threads > 1 ? wide : small;
}

/// Malicious runs take the small program with two threads too: their worker
/// links make AND triples, not tables, and the small program's 3,100 triples
/// (auth/triples.hpp: the least a batch makes) already keep them busy.
inline const program& session_config::compiled() const {
    return compiled_program(security == tandem::security::malicious ? 1 : threads);
}

/// The streamed program: a dot product over two sequences, cut into
/// segments of a few ANDs, with an intermediate value opened to both (and
/// steering what follows) and one to Alice only.
inline auto streamed_program() {
    auto fn = stream(
        [](const sequence<u8>& xs, const sequence<u8>& ys) {
            u8 acc = 0;
            for (std::size_t i = 0; i < 3; ++i) acc = acc + xs[i] * ys[i];
            if (open(acc) > 100) acc = acc ^ u8(1);
            (void)open(acc + ys[3], reveal::alice);
            for (std::size_t i = 3; i < xs.size(); ++i) acc = acc + xs[i] * ys[i];
            return std::make_tuple(acc, xs[0] < ys[0]);
        },
        sequence_input<party::alice, u8>(6), sequence_input<party::bob, u8>(6));
    fn.segment_ands = 48;
    return fn;
}
inline const std::vector<std::uint8_t> alice_sequence{3, 141, 59, 26, 53, 58};
inline const std::vector<std::uint8_t> bob_sequence{97, 93, 23, 84, 62, 64};

// ---- The fixed inputs of the other harnesses -------------------------------------

/// fuzz_tables: a 16-bit product and comparison.
inline const circuit<>& tables_circuit() {
    static const circuit<> c = compile(
        [](secure_uint<16> a, secure_uint<16> b) { return std::make_tuple(a * b, a < b); },
        input<party::alice, secure_uint<16>>, input<party::bob, secure_uint<16>>);
    return c;
}

/// fuzz_ot: what the configuration bytes choose.
struct ot_config {
    /// Which OT runs: IKNP (semi-honest sessions), SoftSpoken K = 4 without
    /// or with its consistency check (malicious sessions' authenticated bits,
    /// auth/bits.hpp), the endemic base OTs alone (malicious mode's base OTs),
    /// or silent OT (ot/ferret.hpp, with ferret_small()): semi-honest or
    /// malicious with chosen choices, or malicious with random choices
    /// carried in bit 0 or bit 1 of each COT (auth/bits.hpp's Alice and Bob).
    enum class kind : std::uint8_t {
        iknp = 0,
        softspoken = 1,
        softspoken_malicious = 2,
        endemic_base = 3,
        ferret = 4,
        ferret_malicious = 5,
        ferret_random = 6,
        ferret_random_bit1 = 7,
    };

    bool receiver = false;  ///< this party is the COT receiver (the fuzz input the sender)
    bool packed = false;    ///< the receiver extends with packed choice bits
    std::size_t extends = 0;
    kind which = kind::iknp;
    std::array<std::size_t, 3> sizes{};  ///< OTs per extend; for endemic_base, sizes[0] base OTs

    static ot_config read(byte_reader& r) noexcept {
        ot_config c;
        const std::uint8_t b = r.u8();
        c.receiver = (b & 1) != 0;
        c.packed = (b & 2) != 0;
        c.extends = (b >> 2) & 3;
        c.which = static_cast<kind>((b >> 4) & 7);
        for (std::size_t& m : c.sizes) m = r.u16() & 0x3FFF;
        if (c.which == kind::endemic_base) c.sizes[0] %= 257;
        return c;
    }
    std::vector<std::uint8_t> encode() const {
        std::vector<std::uint8_t> out{static_cast<std::uint8_t>((receiver ? 1 : 0) | (packed ? 2 : 0) | extends << 2 |
                                                                static_cast<unsigned>(which) << 4)};
        for (std::size_t m : sizes) out.push_back(static_cast<std::uint8_t>(m)), out.push_back(static_cast<std::uint8_t>(m >> 8));
        return out;
    }
};
/// The silent OT's rounds at a size a fuzz input can cross: a set-up round of
/// 4,096 COTs (32 trees of depth 7), main rounds of 16,384 (64 trees of
/// depth 8; 12,848 handed out each, the rest the next round's base and the
/// checks' masks), checked in batches of 8 trees.
inline ot::ferret_config ferret_small(unsigned choice_bit = 0) {
    ot::ferret_config c{{4096, 1000, 32, 7}, {16384, 2000, 64, 8}, 2048};
    c.choice_bit = choice_bit;
    return c;
}
/// Fixed seeds of each side's base OTs, so a recorded peer replays.
inline block ot_seed(bool receiver) { return block(0x6f74, receiver ? 2 : 1); }
inline block ot_delta() { return block(0x0123456789abcdefu, 0xfedcba9876543211u); }
inline std::vector<std::uint8_t> ot_choices(std::size_t m) {
    std::vector<std::uint8_t> c(m);
    for (std::size_t i = 0; i < m; ++i) c[i] = static_cast<std::uint8_t>((i * 7 + i / 5) % 3 == 0);
    return c;
}

namespace detail {
template <class Sender>
void extend_as_sender(Sender& sender, net::channel& ch, const ot_config& cfg) {
    for (std::size_t k = 0; k < cfg.extends; ++k) {
        std::vector<block> q(cfg.sizes[k]);
        sender.extend(ch, q);
    }
}
template <class Receiver>
void extend_as_receiver(Receiver& receiver, net::channel& ch, const ot_config& cfg) {
    for (std::size_t k = 0; k < cfg.extends; ++k) {
        const std::vector<std::uint8_t> choices = ot_choices(cfg.sizes[k]);
        std::vector<block> t(cfg.sizes[k]);
        if (cfg.packed) {
            std::vector<std::uint8_t> bits((t.size() + 7) / 8);
            for (std::size_t i = 0; i < choices.size(); ++i) bits[i / 8] |= static_cast<std::uint8_t>(choices[i] << (i % 8));
            receiver.extend_packed(ch, bits, t);
        } else {
            receiver.extend(ch, choices, t);
        }
    }
}
}  // namespace detail

/// One side of cfg's OT on ch — the COT receiver (with endemic_base: the base
/// OTs' receiver, whose choices are the bits of Δ) if `receiver`, else the
/// sender — exactly as the harness runs it; the seed generator runs both.
inline void run_ot_party(const ot_config& cfg, bool receiver, net::channel& ch) {
    using kind = ot_config::kind;
    prg rng(ot_seed(receiver));
    const security mode = cfg.which == kind::softspoken_malicious || cfg.which == kind::ferret_malicious ||
                                  cfg.which == kind::ferret_random || cfg.which == kind::ferret_random_bit1
                              ? security::malicious
                              : security::semi_honest;
    switch (cfg.which) {
        case ot_config::kind::iknp:
            if (receiver) {
                ot::cot_receiver r(ch, &rng);
                detail::extend_as_receiver(r, ch, cfg);
            } else {
                ot::cot_sender s(ch, ot_delta(), &rng);
                detail::extend_as_sender(s, ch, cfg);
            }
            return;
        case ot_config::kind::softspoken:
        case ot_config::kind::softspoken_malicious:
            if (receiver) {
                ot::softspoken_receiver<4> r(ch, mode, &rng);
                detail::extend_as_receiver(r, ch, cfg);
            } else {
                ot::softspoken_sender<4> s(ch, ot_delta(), mode, &rng);
                detail::extend_as_sender(s, ch, cfg);
            }
            return;
        case ot_config::kind::endemic_base: {
            const std::size_t n = cfg.sizes[0];
            if (receiver) {
                std::vector<std::uint8_t> choices = ot_choices(n);
                std::vector<block> keys(n);
                ot::base_ot_receive(ch, choices, keys, &rng, security::malicious);
            } else {
                std::vector<std::array<block, 2>> keys(n);
                ot::base_ot_send(ch, keys, &rng, security::malicious);
            }
            ch.flush();
            return;
        }
        case ot_config::kind::ferret:
        case ot_config::kind::ferret_malicious:
            if (receiver) {
                ot::ferret_receiver r(ch, mode, &rng, ferret_small());
                detail::extend_as_receiver(r, ch, cfg);
            } else {
                ot::ferret_sender s(ch, ot_delta(), mode, &rng, ferret_small());
                detail::extend_as_sender(s, ch, cfg);
            }
            return;
        case ot_config::kind::ferret_random:
        case ot_config::kind::ferret_random_bit1: {
            const unsigned bit = cfg.which == kind::ferret_random ? 0 : 1;
            if (receiver) {
                ot::ferret_receiver r(ch, mode, &rng, ferret_small(bit));
                for (std::size_t k = 0; k < cfg.extends; ++k) {
                    std::vector<std::uint8_t> bits(cfg.sizes[k]);
                    std::vector<block> t(cfg.sizes[k]);
                    r.extend_random(ch, bits, t);
                }
            } else {
                ot::ferret_sender s(ch, ot_delta() | block(0, 2), mode, &rng, ferret_small(bit));
                for (std::size_t k = 0; k < cfg.extends; ++k) {
                    std::vector<block> q(cfg.sizes[k]);
                    s.extend_random(ch, q);
                }
            }
            return;
        }
    }
}

// ---- fuzz_secure_link's links from their start -------------------------------------

/// A fixed test key (never use one like it).
inline net::noise::key32 fixed_key(std::uint8_t tag) {
    net::noise::key32 k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(tag + 7 * i);
    return k;
}
/// The credentials of the side `initiator` for a configuration byte (bit 3: a
/// pre-shared key, else pinned keys).
inline net::link_credentials link_credentials_of(std::uint8_t config, bool initiator) {
    if ((config & 8) != 0) return net::link_credentials::pre_shared(net::pre_shared_key(fixed_key(3)));
    return net::link_credentials::pinned(net::key_pair::from_secret(fixed_key(initiator ? 4 : 5)),
                                         net::key_pair::from_secret(fixed_key(initiator ? 5 : 4)).public_part());
}
/// Each side's fixed ephemeral secret (secure_link's insecure_ephemeral).
inline net::noise::key32 link_ephemeral(bool initiator) { return fixed_key(initiator ? 6 : 7); }
/// Byte i of an honest peer's message of n bytes over a sealed link.
inline std::uint8_t message_byte(std::size_t n, std::size_t i) noexcept {
    return static_cast<std::uint8_t>(n * 13 + i * 31);
}

}  // namespace tandem::fuzz

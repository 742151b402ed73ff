// tandem::session between two threads over the in-memory channel pair: the
// garbled two-party result equals plaintext mode (laws circuits, AES-128,
// typed values), who learns the output, handshake mismatches, bad inputs,
// and damaged or cut streams.
#include "exception_text.hpp"
#include "hex_bits.hpp"
#include "laws.hpp"

#include <tandem/net/memory.hpp>
#include <tandem/session.hpp>

#include <array>
#include <exception>
#include <functional>
#include <random>
#include <thread>

namespace session_tests {

using namespace tandem;
using namespace std::chrono_literals;

namespace {

using bits_t = std::vector<std::vector<bool>>;
using result_t = std::optional<bits_t>;

/// Runs alice(session&) and bob(session&) in two threads over a memory pair;
/// rethrows nothing, returns each side's exception (if any).
struct outcome {
    std::exception_ptr alice, bob;
};
outcome two_party(const std::function<void(session&)>& alice, const std::function<void(session&)>& bob,
                  std::unique_ptr<net::channel> a_end = nullptr, std::unique_ptr<net::channel> b_end = nullptr,
                  garbling_hash alice_hash = garbling_hash::rekeyed, garbling_hash bob_hash = garbling_hash::rekeyed) {
    if (!a_end) {
        auto [a, b] = net::memory_pair();
        a_end = std::move(a);
        b_end = std::move(b);
    }
    outcome out;
    auto side = [](party p, std::unique_ptr<net::channel> ch, const std::function<void(session&)>& f,
                   std::exception_ptr& err, garbling_hash hash) {
        try {
            session_options options;
            options.timeout = 10s;
            options.hash = hash;
            session s(p, std::move(ch), options);
            f(s);
        } catch (...) {
            err = std::current_exception();
        }
    };
    std::thread tb(side, party::bob, std::move(b_end), std::cref(bob), std::ref(out.bob), bob_hash);
    side(party::alice, std::move(a_end), alice, out.alice, alice_hash);
    tb.join();
    return out;
}

void rethrow(const outcome& o) {
    if (o.alice) std::rethrow_exception(o.alice);
    if (o.bob) std::rethrow_exception(o.bob);
}


/// The input values owned by p, from all input values.
bits_t owned(const circuit<>& c, const bits_t& all, party p) {
    bits_t r;
    for (std::size_t v = 0; v < all.size(); ++v)
        if (c.data().inputs[v].owner == p) r.push_back(all[v]);
    return r;
}

/// One session, several runs: each run's result on both sides equals plaintext.
void check_runs(const circuit<>& c, const std::vector<bits_t>& input_sets, reveal who,
                garbling_hash hash = garbling_hash::rekeyed) {
    std::vector<result_t> got_a, got_b;
    rethrow(two_party(
        [&](session& s) {
            for (const auto& in : input_sets) got_a.push_back(s.run_bits(who, c, owned(c, in, party::alice)));
        },
        [&](session& s) {
            for (const auto& in : input_sets) got_b.push_back(s.run_bits(who, c, owned(c, in, party::bob)));
        },
        nullptr, nullptr, hash, hash));
    REQUIRE(got_a.size() == input_sets.size());
    REQUIRE(got_b.size() == input_sets.size());
    for (std::size_t t = 0; t < input_sets.size(); ++t) {
        INFO("run " << t);
        const bits_t expected = eval_plain_bits(c, input_sets[t]);
        CHECK(got_a[t].has_value() == (who != reveal::bob));
        CHECK(got_b[t].has_value() == (who != reveal::alice));
        if (got_a[t]) CHECK(*got_a[t] == expected);
        if (got_b[t]) CHECK(*got_b[t] == expected);
    }
}

template <std::size_t N, bool S>
void check_laws_two_party(int runs, std::uint64_t seed) {
    using A = laws::sint<N, S>;
    const circuit<> c = compile(laws::all_ops<N, S>, input<party::alice, A>, input<party::bob, A>);
    INFO("N=" << N << " signed=" << S << " seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<bits_t> sets;
    for (int t = 0; t < runs; ++t) {
        bits_t in(2, std::vector<bool>(N));
        for (auto& v : in)
            for (std::size_t k = 0; k < N; ++k) v[k] = (rng() & 1) != 0;
        if (t == 0) std::fill(in[1].begin(), in[1].end(), false);  // division by zero
        sets.push_back(in);
    }
    check_runs(c, sets, reveal::both);
}

const circuit<>& aes() {
    static const circuit<> c = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    return c;
}

auto millionaires() {
    return compile([](secure_int<32> a, secure_int<32> b) { return a > b; }, input<party::alice, secure_int<32>>,
                   input<party::bob, secure_int<32>>);
}

}  // namespace

TEST_CASE("session.laws_circuits_equal_plaintext") {
    check_laws_two_party<1, false>(4, 1);
    check_laws_two_party<3, true>(4, 2);
    check_laws_two_party<8, true>(4, 3);
    check_laws_two_party<16, false>(3, 4);
    check_laws_two_party<32, true>(3, 5);
    check_laws_two_party<33, false>(2, 6);
    check_laws_two_party<64, true>(2, 7);
    check_laws_two_party<128, false>(2, 8);
}

TEST_CASE("session.aes128_fips197_for_each_reveal") {
    const std::vector<bits_t> sets{
        {bits_of_hex("000102030405060708090a0b0c0d0e0f"), bits_of_hex("00112233445566778899aabbccddeeff")},
        {bits_of_hex("2b7e151628aed2a6abf7158809cf4f3c"), bits_of_hex("3243f6a8885a308d313198a2e0370734")}};
    CHECK(eval_plain_bits(aes(), sets[0])[0] == bits_of_hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
    CHECK(eval_plain_bits(aes(), sets[1])[0] == bits_of_hex("3925841d02dc09fbdc118597196a0b32"));
    for (reveal who : {reveal::both, reveal::alice, reveal::bob}) {
        INFO("reveal " << to_string(who));
        check_runs(aes(), sets, who);
    }
}

TEST_CASE("session.fixed_key_hash_opt_in") {
    const std::vector<bits_t> sets{
        {bits_of_hex("000102030405060708090a0b0c0d0e0f"), bits_of_hex("00112233445566778899aabbccddeeff")}};
    check_runs(aes(), sets, reveal::both, garbling_hash::fixed_key);
    using A = laws::sint<16, true>;
    const circuit<> c = compile(laws::all_ops<16, true>, input<party::alice, A>, input<party::bob, A>);
    check_runs(c, {{std::vector<bool>(16, true), std::vector<bool>(16, false)}}, reveal::both, garbling_hash::fixed_key);
}

TEST_CASE("session.typed_runs") {
    struct point {
        secure_int<16> x, y;
    };
    const auto c = compile(
        [](secure_int<32> a, std::array<secure_uint<8>, 3> v, secure_bit flip, secure_int<32> b) {
            secure_uint<8> sum = v[0] + v[1] + v[2];
            return std::make_tuple(select(flip, a, b), sum, a * b, a == b);
        },
        input<party::alice, secure_int<32>>, input<party::alice, std::array<secure_uint<8>, 3>>,
        input<party::bob, secure_bit>, input<party::bob, secure_int<32>>);
    const std::array<std::uint8_t, 3> v{200, 100, 7};
    using out_t = decltype(c)::output_type;
    out_t got_a{}, got_b{};
    std::optional<out_t> only_a, only_b;
    rethrow(two_party(
        [&](session& s) {
            got_a = s.run(c, std::int32_t{-123456}, v);
            only_a = s.run(reveal::bob, c, std::int32_t{5}, v);
        },
        [&](session& s) {
            got_b = s.run(c, true, std::int32_t{777});
            only_b = s.run(reveal::bob, c, false, std::int32_t{-9});
        }));
    CHECK(got_a == c.eval_plain(-123456, v, true, 777));
    CHECK(got_b == got_a);
    CHECK(std::get<0>(got_a) == -123456);
    CHECK(std::get<1>(got_a) == static_cast<std::uint8_t>(307));
    CHECK(!only_a.has_value());
    REQUIRE(only_b.has_value());
    CHECK(*only_b == c.eval_plain(5, v, false, -9));
}

TEST_CASE("session.one_sided_inputs_and_constant_outputs") {
    const auto alice_only = compile([](secure_uint<8> a) { return std::make_tuple(a * a, a ^ a, ~(a ^ a)); },
                                    input<party::alice, secure_uint<8>>);
    const auto bob_only = compile([](secure_uint<8> b) { return b + b; }, input<party::bob, secure_uint<8>>);
    std::tuple<std::uint8_t, std::uint8_t, std::uint8_t> ra{}, rb{};
    std::uint8_t sa = 0, sb = 0;
    rethrow(two_party(
        [&](session& s) {
            ra = s.run(alice_only, std::uint8_t{13});
            sa = s.run(bob_only);
        },
        [&](session& s) {
            rb = s.run(alice_only);
            sb = s.run(bob_only, std::uint8_t{100});
        }));
    CHECK(ra == std::make_tuple(std::uint8_t{169}, std::uint8_t{0}, std::uint8_t{255}));
    CHECK(rb == ra);
    CHECK(sa == 200);
    CHECK(sb == 200);
}

TEST_CASE("session.bytes_on_the_wire") {
    const auto c = millionaires();
    run_stats a{}, b{};
    rethrow(two_party(
        [&](session& s) {
            CHECK(s.run(c, 10) == true);
            a = s.last_run();
        },
        [&](session& s) {
            CHECK(s.run(c, 3) == true);
            b = s.last_run();
        }));
    const std::uint64_t header = 6 * 8 + 3 * 4 + 2;
    const std::uint64_t ands = c.stats().and_gates;
    CHECK(a.and_gates == ands);
    // alice: header, hash start, 32 labels, tables, 2 x 8-byte output hashes.
    CHECK(a.bytes_sent == header + 16 + 32 * 16 + 32 * ands + 16);
    // bob: header, the OT count, 128 extension columns of one bit per input bit (32 bits: 4 bytes each), his
    // output label.
    CHECK(b.bytes_sent == header + 8 + 128 * 4 + 16);
    CHECK(a.bytes_received == b.bytes_sent);
    // circuit::stats() predicts both directions exactly.
    CHECK(c.stats().bytes_garbler_to_evaluator == a.bytes_sent);
    CHECK(c.stats().bytes_evaluator_to_garbler == b.bytes_sent);
}

TEST_CASE("session.stats_predict_the_bytes_of_a_run") {
    // Bob's 8192 + 8 + 1 input bits take two OT chunks, the second rounded up
    // to whole bytes; some outputs are constants, which cost nothing.
    using big = std::array<secure_uint<8>, 1025>;
    const auto c = tandem::compile(
        [](const big& x, const secure_uint<1>& y, const secure_uint<16>& z) {
            secure_uint<8> acc = y.resize<8>();
            for (const auto& v : x) acc = acc + v;
            return std::tuple{acc ^ z.resize<8>(), secure_uint<4>(5), z < 7};
        },
        input<party::bob, big>, input<party::bob, secure_uint<1>>, input<party::alice, secure_uint<16>>);
    std::array<std::uint8_t, 1025> x{};
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 7);
    run_stats a{}, b{};
    rethrow(two_party(
        [&](session& s) {
            s.run(c, std::uint16_t{3});
            a = s.last_run();
        },
        [&](session& s) {
            s.run(c, x, std::uint8_t{1});
            b = s.last_run();
        }));
    CHECK(c.stats().input_bits_bob == 8201);
    CHECK(c.stats().bytes_garbler_to_evaluator == a.bytes_sent);
    CHECK(c.stats().bytes_evaluator_to_garbler == b.bytes_sent);
}

TEST_CASE("session.handshake_mismatches_say_what_differs") {
    SUBCASE("different circuits") {
        const auto c1 = millionaires();
        const auto c2 = compile([](secure_int<32> a, secure_int<32> b) { return a >= b; },
                                input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
        const outcome o = two_party([&](session& s) { s.run(c1, 1); }, [&](session& s) { s.run(c2, 2); });
        for (auto e : {o.alice, o.bob}) {
            CHECK_THROWS_WITH_AS(std::rethrow_exception(e), doctest::Contains("hold different circuits"),
                                 protocol_error);
        }
    }
    SUBCASE("who learns the output") {
        const auto c = millionaires();
        const outcome o = two_party([&](session& s) { (void)s.run(reveal::alice, c, 1); },
                                    [&](session& s) { (void)s.run(reveal::both, c, 2); });
        CHECK(message_of(o.alice).find("disagree on who learns the output") != std::string::npos);
        CHECK(message_of(o.bob).find("disagree on who learns the output") != std::string::npos);
    }
    SUBCASE("garbling hash") {
        const outcome o = two_party([](session&) {}, [](session&) {}, nullptr, nullptr, garbling_hash::fixed_key,
                                    garbling_hash::rekeyed);
        CHECK(message_of(o.alice).find("different garbling hashes") != std::string::npos);
        CHECK(message_of(o.bob).find("different garbling hashes") != std::string::npos);
    }
    SUBCASE("both parties claim the same role") {
        auto [a, b] = net::memory_pair();
        std::exception_ptr ea, eb;
        std::thread t([&, ch = std::move(b)]() mutable {
            try {
                session s(party::alice, std::move(ch));
            } catch (...) {
                eb = std::current_exception();
            }
        });
        try {
            session s(party::alice, std::move(a));
        } catch (...) {
            ea = std::current_exception();
        }
        t.join();
        CHECK(message_of(ea).find("both parties run as alice") != std::string::npos);
        CHECK(message_of(eb).find("both parties run as alice") != std::string::npos);
    }
}

TEST_CASE("session.wrong_inputs_fail_before_sending") {
    const auto c = millionaires();
    bool a_result = false, b_result = true;
    rethrow(two_party(
        [&](session& s) {
            const auto before = s.channel().bytes_sent();
            CHECK_THROWS_WITH_AS(s.run_bits(reveal::both, c, {std::vector<bool>(31)}),
                                 doctest::Contains("must have 32 bits"), usage_error);
            CHECK_THROWS_WITH_AS(s.run_bits(reveal::both, c, {}), doctest::Contains("missing"), usage_error);
            CHECK_THROWS_WITH_AS(s.run_bits(reveal::both, c, {std::vector<bool>(32), std::vector<bool>(32)}),
                                 doctest::Contains("owns 1 input value(s)"), usage_error);
            CHECK(s.channel().bytes_sent() == before);
            a_result = s.run(c, -5);
        },
        [&](session& s) {
            b_result = s.run(c, -6);
        }));
    CHECK(a_result == true);
    CHECK(b_result == true);

    // Arguments that fit only the other party's inputs (a bool is not an int32).
    const auto mixed = compile([](secure_int<32> a, secure_bit b) { return select(b, a, -a); },
                               input<party::alice, secure_int<32>>, input<party::bob, secure_bit>);
    const outcome o = two_party([&](session& s) { (void)s.run(mixed, true); }, [&](session&) {});
    CHECK_THROWS_WITH_AS(std::rethrow_exception(o.alice), doctest::Contains("are not alice's inputs"), usage_error);
}

namespace {

/// Wraps a channel and damages what this end sends: flips one byte at
/// `corrupt_at` (counted from arm()), or cuts the link after `cut_after` bytes.
class faulty_channel final : public net::channel {
public:
    explicit faulty_channel(std::unique_ptr<net::channel> inner)
        : net::channel("faulty " + inner->name()), inner_(std::move(inner)) {}
    void arm(std::uint64_t corrupt_at, std::uint64_t cut_after) {
        corrupt_at_ = corrupt_at;
        cut_after_ = cut_after;
        written_ = 0;
        *flipped_ = 0;
        armed_ = true;
    }
    void close() noexcept override { inner_->close(); }
    void interrupt() noexcept override { inner_->interrupt(); }
    bool peer_on_this_host() const noexcept override { return inner_->peer_on_this_host(); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        std::vector<std::byte> copy(p, p + n);
        if (armed_) {
            if (corrupt_at_ >= written_ && corrupt_at_ < written_ + n) {
                copy[corrupt_at_ - written_] ^= std::byte{0x10};
                ++*flipped_;
            }
            if (written_ + n > cut_after_) {
                const std::size_t keep = cut_after_ > written_ ? cut_after_ - written_ : 0;
                inner_->send(copy.data(), keep);
                inner_->flush();
                inner_->close();
                written_ += n;
                throw network_error("faulty channel: link cut");
            }
            written_ += n;
        }
        inner_->send(copy.data(), n);
        inner_->flush();
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t) override {
        inner_->recv(p, min);
        return min;
    }

public:
    /// Counts the bytes actually flipped since arm() there (it outlives the
    /// channel, which the session owns): a test that accepts "no effect"
    /// checks the flip happened.
    void count_flips(std::shared_ptr<std::uint64_t> into) { flipped_ = std::move(into); }

private:
    std::shared_ptr<std::uint64_t> flipped_ = std::make_shared<std::uint64_t>(0);
    std::unique_ptr<net::channel> inner_;
    bool armed_ = false;
    std::uint64_t corrupt_at_ = ~std::uint64_t{0};
    std::uint64_t cut_after_ = ~std::uint64_t{0};
    std::uint64_t written_ = 0;
};

struct fault_result {
    outcome errors;
    std::optional<bool> alice, bob;
    std::uint64_t alice_run_bytes = 0, bob_run_bytes = 0;  // each side's bytes sent in the run
    std::uint64_t flipped = 0;                               // bytes the faulty side flipped
};

/// One millionaires run with the sender side `damaged` (alice or bob) faulty.
fault_result run_with_fault(party damaged, std::uint64_t corrupt_at, std::uint64_t cut_after, std::int32_t x,
                            std::int32_t y) {
    auto [a, b] = net::memory_pair();
    auto faulty = std::make_unique<faulty_channel>(damaged == party::alice ? std::move(a) : std::move(b));
    faulty_channel* f = faulty.get();
    auto flipped = std::make_shared<std::uint64_t>(0);
    f->count_flips(flipped);
    std::unique_ptr<net::channel> a_end, b_end;
    if (damaged == party::alice) a_end = std::move(faulty), b_end = std::move(b);
    else a_end = std::move(a), b_end = std::move(faulty);
    const auto c = millionaires();
    fault_result r;
    r.errors = two_party(
        [&](session& s) {
            if (damaged == party::alice) f->arm(corrupt_at, cut_after);
            r.alice = s.run(c, x);
            r.alice_run_bytes = s.last_run().bytes_sent;
        },
        [&](session& s) {
            if (damaged == party::bob) f->arm(corrupt_at, cut_after);
            r.bob = s.run(c, y);
            r.bob_run_bytes = s.last_run().bytes_sent;
        },
        std::move(a_end), std::move(b_end));
    r.flipped = *flipped;
    return r;
}

}  // namespace

TEST_CASE("session.corrupted_stream_never_gives_a_wrong_answer") {
    // Flip one byte at many offsets of each direction's run traffic. Each side
    // must either get the right answer or a tandem::error (which one depends
    // on where the damage lands), and damage to anything that matters must be
    // caught by someone.
    const std::int32_t x = 1000, y = 999;
    const fault_result clean = run_with_fault(party::alice, ~std::uint64_t{0}, ~std::uint64_t{0}, x, y);
    rethrow(clean.errors);
    REQUIRE(clean.alice == true);
    for (party damaged : {party::alice, party::bob}) {
        const std::uint64_t span = damaged == party::alice ? clean.alice_run_bytes : clean.bob_run_bytes;
        REQUIRE(span > 500);
        int caught = 0, trials = 0;
        for (std::uint64_t at = 0; at < span; at += 13) {
            INFO("damaged side " << to_string(damaged) << ", byte " << at);
            const fault_result r = run_with_fault(damaged, at, ~std::uint64_t{0}, x, y);
            CHECK(r.flipped == 1);  // the byte was altered: "no effect" below is a real outcome
            for (auto e : {r.errors.alice, r.errors.bob}) {
                if (!e) continue;
                try {
                    std::rethrow_exception(e);
                } catch (const tandem::error&) {
                } catch (const std::exception& other) {
                    FAIL("not a tandem::error: " << other.what());
                }
            }
            if (r.alice) CHECK(*r.alice == true);
            if (r.bob) CHECK(*r.bob == true);
            ++trials;
            caught += (r.errors.alice || r.errors.bob) ? 1 : 0;
        }
        // Headers, labels, hashes and the used half of each table matter; a
        // half-table the evaluator does not use does not, nor does OT column j
        // where bit j of Δ is 0 (the sender ignores it; about half of Bob's bytes).
        CHECK(caught > trials / 8);
    }
}

TEST_CASE("session.cut_stream_fails_both_sides") {
    const fault_result clean = run_with_fault(party::alice, ~std::uint64_t{0}, ~std::uint64_t{0}, 5, 6);
    rethrow(clean.errors);
    for (party damaged : {party::alice, party::bob}) {
        const std::uint64_t span = damaged == party::alice ? clean.alice_run_bytes : clean.bob_run_bytes;
        REQUIRE(span > 200);
        for (std::uint64_t cut : {std::uint64_t{0}, std::uint64_t{10}, std::uint64_t{100}, span / 2, span - 8}) {
            INFO("cut side " << to_string(damaged) << " after " << cut << " bytes");
            const auto t0 = net::clock::now();
            const fault_result r = run_with_fault(damaged, ~std::uint64_t{0}, cut, 5, 6);
            CHECK(net::clock::now() - t0 < 8s);
            CHECK(r.errors.alice);
            CHECK(r.errors.bob);
            CHECK(!r.alice.has_value());
            CHECK(!r.bob.has_value());
            CHECK(message_of(damaged == party::alice ? r.errors.bob : r.errors.alice).find("closed") !=
                  std::string::npos);
        }
    }
}

TEST_CASE("session.failed_run_breaks_the_session") {
    const auto c = millionaires();
    const outcome o = two_party(
        [&](session& s) {
            CHECK_THROWS_AS(s.run(c, 1), protocol_error);  // peer runs another circuit
            CHECK_THROWS_WITH_AS(s.run(c, 1), doctest::Contains("open a new session"), usage_error);
        },
        [&](session& s) {
            const auto other = compile([](secure_int<32> a, secure_int<32> b) { return a < b; },
                                       input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
            CHECK_THROWS_AS(s.run(other, 1), protocol_error);
        });
    rethrow(o);
}

}  // namespace session_tests

// Issue 16: what a new user trips over. A circuit's input and output widths
// without circuit_data, going from all input values (eval_plain_bits) to one
// party's (session::run_bits), error messages that count both ways, the
// untyped "both learn" run, and listening on port 0.
#include <doctest/doctest.h>

#include "exception_text.hpp"
#include <tandem/tandem.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace api_usability_tests {

using tandem::input, tandem::party, tandem::secure_int, tandem::secure_bit;
using bits_t = std::vector<std::vector<bool>>;

namespace {

/// Inputs: alice 32, bob 8, alice 1, bob 32 bits; outputs: 32 and 1 bits.
auto mixed() {
    return tandem::compile(
        [](secure_int<32> a, secure_int<8> b, secure_bit flip, secure_int<32> d) {
            auto s = a + d + b.resize<32>();
            return std::tuple{s, (a > d) ^ flip};
        },
        input<party::alice, secure_int<32>>, input<party::bob, secure_int<8>>, input<party::alice, secure_bit>,
        input<party::bob, secure_int<32>>);
}

bits_t random_inputs(const tandem::circuit<>& c, std::mt19937_64& rng) {
    bits_t all;
    for (std::size_t w : c.input_widths()) {
        std::vector<bool> v(w);
        for (std::size_t j = 0; j < w; ++j) v[j] = (rng() & 1u) != 0;
        all.push_back(v);
    }
    return all;
}

/// Runs `alice` here and `bob` on a second thread, over a tandem::listener
/// on port 0 of the loopback address; rethrows the first failure.
void two_party(const std::function<void(tandem::session&)>& alice, const std::function<void(tandem::session&)>& bob,
               tandem::session_options options = {}) {
    tandem::listener l(0, "127.0.0.1");
    REQUIRE(l.port() != 0);
    std::exception_ptr bob_error;
    std::thread t([&, port = l.port()] {
        try {
            auto s = tandem::session::connect(party::bob, "127.0.0.1", port, options);
            bob(s);
        } catch (...) {
            bob_error = std::current_exception();
        }
    });
    std::exception_ptr alice_error;
    try {
        auto s = l.accept(party::alice, options);
        alice(s);
    } catch (...) {
        alice_error = std::current_exception();
    }
    t.join();
    if (alice_error) std::rethrow_exception(alice_error);
    if (bob_error) std::rethrow_exception(bob_error);
}

}  // namespace

TEST_CASE("api_usability.widths") {
    const auto c = mixed();
    const tandem::circuit<>& u = c;  // the untyped view has them too
    REQUIRE(u.inputs().size() == 4);
    CHECK(u.inputs()[0].owner == party::alice);
    CHECK(u.inputs()[1].owner == party::bob);
    CHECK(u.inputs()[2].bits == 1);
    CHECK(u.inputs()[3].bits == 32);
    REQUIRE(u.outputs().size() == 2);
    CHECK(u.outputs()[0].bits == 32);
    CHECK(u.outputs()[1].bits == 1);
    CHECK(u.input_widths() == std::vector<std::size_t>{32, 8, 1, 32});
    CHECK(u.input_widths(party::alice) == std::vector<std::size_t>{32, 1});
    CHECK(u.input_widths(party::bob) == std::vector<std::size_t>{8, 32});
    CHECK(u.output_widths() == std::vector<std::size_t>{32, 1});
    CHECK(c.input_widths() == u.input_widths());

    // A Bristol import, and an empty circuit.
    std::stringstream file;
    tandem::bristol::write(file, c);
    const auto back = tandem::bristol::read(file, "mixed.txt", {party::alice, party::bob, party::alice, party::bob});
    CHECK(back.input_widths(party::bob) == std::vector<std::size_t>{8, 32});
    CHECK(back.output_widths() == u.output_widths());
    const tandem::circuit<> empty;
    CHECK(empty.inputs().empty());
    CHECK(empty.input_widths(party::alice).empty());
    CHECK(empty.output_widths().empty());
}

TEST_CASE("api_usability.inputs_of") {
    const auto c = mixed();
    const bits_t all{tandem::bits_from_string("5", 32), tandem::bits_from_string("-2", 8), {true},
                     tandem::bits_from_string("0x10", 32)};
    CHECK(c.inputs_of(party::alice, all) == bits_t{all[0], all[2]});
    CHECK(c.inputs_of(party::bob, all) == bits_t{all[1], all[3]});
    CHECK(tandem::circuit<>().inputs_of(party::bob, {}).empty());

    CHECK(error_of([&] { (void)c.inputs_of(party::bob, {all[1], all[3]}); }) ==
          "inputs_of: the circuit has 4 input value(s) (all parties') but 2 were given; pass every input value in "
          "circuit order (input_widths() lists their widths)");
    bits_t wrong = all;
    wrong[2] = {true, false};
    CHECK(error_of([&] { (void)c.inputs_of(party::bob, wrong); }) ==
          "inputs_of: input 2 of the circuit (alice's) must have 1 bits, got 2");
}

TEST_CASE("api_usability.eval_plain_bits_messages") {
    const auto c = mixed();
    bits_t all{std::vector<bool>(32), std::vector<bool>(8), {true}, std::vector<bool>(32)};
    CHECK(error_of([&] { (void)tandem::eval_plain_bits(c, c.inputs_of(party::bob, all)); }) ==
          "eval_plain_bits: the circuit has 4 input values but 2 were given (pass every party's values in circuit "
          "order; circuit::input_widths() lists their widths)");
    all[1].resize(16);
    CHECK(error_of([&] { (void)tandem::eval_plain_bits(c, all); }) ==
          "eval_plain_bits: input value 1 (bob's) has 8 bits but 16 were given");
}

TEST_CASE("api_usability.run_bits_both_learn_and_messages") {
    // Random inputs (fixed seed): each party passes its own values, picked
    // with inputs_of, to the run_bits that reveals to both and returns the
    // values directly; both get what eval_plain_bits gives on all of them.
    const auto c = mixed();
    const std::uint64_t seed = 1616;
    INFO("seed = " << seed);
    std::mt19937_64 rng(seed);
    std::vector<bits_t> sets;
    for (int k = 0; k < 4; ++k) sets.push_back(random_inputs(c, rng));
    std::vector<bits_t> at_alice, at_bob;
    std::string alice_missing, alice_wide, alice_all, bob_all, bob_extra;
    two_party(
        [&](tandem::session& s) {
            // Mistakes are refused before anything is sent; the session goes on.
            alice_missing = error_of([&] { (void)s.run_bits(c, {sets[0][0]}); });
            alice_wide = error_of([&] { (void)s.run_bits(c, {sets[0][0], {true, true}}); });
            alice_all = error_of([&] { (void)s.run_bits(c, sets[0]); });
            for (const bits_t& all : sets) at_alice.push_back(s.run_bits(c, c.inputs_of(s.me(), all)));
            CHECK(s.run_bits(tandem::reveal::bob, c, c.inputs_of(party::alice, sets[0])) == std::nullopt);
        },
        [&](tandem::session& s) {
            bob_all = error_of([&] { (void)s.run_bits(c, sets[0]); });
            bob_extra = error_of([&] { (void)s.run_bits(c, {sets[0][1], sets[0][3], sets[0][3]}); });
            for (const bits_t& all : sets) at_bob.push_back(s.run_bits(c, c.inputs_of(party::bob, all)));
            CHECK(s.run_bits(tandem::reveal::bob, c, c.inputs_of(party::bob, sets[0])) ==
                  tandem::eval_plain_bits(c, sets[0]));
        });
    REQUIRE(at_alice.size() == sets.size());
    REQUIRE(at_bob.size() == sets.size());
    for (std::size_t k = 0; k < sets.size(); ++k) {
        INFO("set " << k);
        const bits_t expected = tandem::eval_plain_bits(c, sets[k]);
        CHECK(at_alice[k] == expected);
        CHECK(at_bob[k] == expected);
    }
    const std::string alice_hint =
        " (pass alice's input values only, in circuit order; circuit::input_widths(party::alice) lists their widths)";
    CHECK(alice_missing ==
          "session::run: alice's input value 1 (input 2 of the circuit, 1 bits) is missing: alice owns 2 input "
          "value(s) of this circuit but 1 were given" + alice_hint);
    CHECK(alice_wide ==
          "session::run: alice's input value 1 (input 2 of the circuit, 1 bits) must have 1 bits, got 2" + alice_hint);
    CHECK(alice_all ==
          "session::run: alice's input value 1 (input 2 of the circuit, 1 bits) must have 1 bits, got 8 (4 is the "
          "number of all the circuit's input values; pass alice's only: circuit::inputs_of(party::alice, "
          "all_values) picks them)");
    CHECK(bob_all ==
          "session::run: bob's input value 0 (input 1 of the circuit, 8 bits) must have 8 bits, got 32 (4 is the "
          "number of all the circuit's input values; pass bob's only: circuit::inputs_of(party::bob, all_values) "
          "picks them)");
    CHECK(bob_extra ==
          "session::run: bob owns 2 input value(s) of this circuit but 3 were given (pass bob's input values only, in "
          "circuit order; circuit::input_widths(party::bob) lists their widths)");
}

TEST_CASE("api_usability.listener_port_zero") {
    // A listener on port 0 tells its port before anyone connects; a second
    // thread connects to that port; two sessions, one after the other, from
    // the same listener, the second with two workers per party.
    auto c = tandem::compile([](secure_int<32> a, secure_int<32> b) { return a * b; },
                             input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    tandem::listener l(0, "127.0.0.1");
    const std::uint16_t port = l.port();
    REQUIRE(port != 0);
    CHECK(l.tcp().port() == port);
    tandem::session_options two;
    two.threads = 2;
    std::int32_t at_bob[2] = {0, 0};
    std::exception_ptr bob_error;
    std::thread bob([&] {
        try {
            auto s1 = tandem::session::connect(party::bob, "127.0.0.1", port);
            at_bob[0] = s1.run(c, 6);
            auto s2 = tandem::session::connect(party::bob, "127.0.0.1", port, two);
            at_bob[1] = s2.run(c, -3);
        } catch (...) {
            bob_error = std::current_exception();
        }
    });
    std::int32_t at_alice[2] = {0, 0};
    try {
        auto s1 = l.accept(party::alice);
        at_alice[0] = s1.run(c, 7);
        auto s2 = l.accept(party::alice, two);
        CHECK(s2.threads() == 2);
        at_alice[1] = s2.run(c, 5);
    } catch (...) {
        bob.join();
        throw;
    }
    bob.join();
    if (bob_error) std::rethrow_exception(bob_error);
    CHECK(at_alice[0] == 42);
    CHECK(at_bob[0] == 42);
    CHECK(at_alice[1] == -15);
    CHECK(at_bob[1] == -15);
}

TEST_CASE("api_usability.listener_errors") {
    tandem::listener taken(0, "127.0.0.1");
    CHECK_THROWS_AS(tandem::listener(taken.port(), "127.0.0.1"), tandem::network_error);
    CHECK_THROWS_WITH_AS(tandem::listener(0, "not-an-address"), doctest::Contains("is not an IP address"),
                         tandem::usage_error);
}

}  // namespace api_usability_tests

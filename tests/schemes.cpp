// The garbling scheme as a session's choice (gc/scheme.hpp, session_options::
// scheme): three-halves sessions give what half-gates sessions and plaintext
// give — laws circuits, AES-128's FIPS-197 vector, the applications (parallel
// regions) and random inputs — on one worker and several, with and without
// IPP, under both hashes; their tables take the bytes gc/scheme.hpp says
// (circuit_stats predicts a run's exactly); the parties must agree on the
// scheme, and malicious sessions refuse three-halves. Batches, streamed,
// pipelined and eager runs take the scheme in their own tests (batch.cpp,
// stream_session.cpp, eager_session.cpp); damaged three-halves tables in the
// fault matrix (faults.cpp); MPI ranks in tests/mpi/session.cpp.
#include <doctest/doctest.h>

#include "exception_text.hpp"
#include "hex_bits.hpp"
#include "laws.hpp"
#include "memory_sessions.hpp"
#include "random_inputs.hpp"
#include "../examples/apps.hpp"

#include <tandem/tandem.hpp>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace schemes_tests {

using namespace tandem;
using namespace tandem::test;
using namespace std::chrono_literals;

namespace {

using bits_t = std::vector<std::vector<bool>>;

struct program {
    std::string name;
    circuit<> c;
    bits_t inputs;
};

const circuit<>& aes() {
    static const circuit<> c = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    return c;
}

/// AES-128's FIPS-197 appendix C.1 vector, then random inputs for each program.
std::vector<program> programs(std::uint64_t seed) {
    std::vector<program> p;
    p.push_back({"AES-128 FIPS-197",
                 aes(),
                 {bits_of_hex("000102030405060708090a0b0c0d0e0f"), bits_of_hex("00112233445566778899aabbccddeeff")}});
    using A = laws::sint<32, false>;
    p.push_back({"laws u32", compile(laws::all_ops<32, false>, input<party::alice, A>, input<party::bob, A>), {}});
    p.push_back({"biomatch 6x2", apps::biomatch_circuit<6, 2>(), {}});
    p.push_back({"mexp 2", apps::mexp_circuit<2>(), {}});
    p.push_back({"mvmul 3x3", apps::mvmul_circuit<3, 3>(), {}});
    std::mt19937_64 rng(seed);
    for (program& q : p)
        if (q.inputs.empty()) q.inputs = random_inputs(q.c, rng);
    return p;
}

struct mode {
    std::uint32_t threads;
    bool ipp;
    garbling_hash hash;
};

session_options options(const mode& m, garbling_scheme scheme) {
    session_options o = with_threads(m.threads);
    o.ipp = m.ipp;
    o.ipp_min_ands = 1;
    o.hash = m.hash;
    o.scheme = scheme;
    return o;
}

/// Every program run once in one session of `m` and `scheme`: each party's outputs.
std::vector<bits_t> run_all(const std::vector<program>& progs, const mode& m, garbling_scheme scheme) {
    std::vector<bits_t> got_a, got_b;
    const session_options o = options(m, scheme);
    rethrow(two_party(
        make_wiring(detail::worker_link_count(m.threads, m.ipp)), o, o,
        [&](session& s) {
            for (const program& p : progs)
                got_a.push_back(*s.run_bits(reveal::both, p.c, p.c.inputs_of(party::alice, p.inputs)));
        },
        [&](session& s) {
            for (const program& p : progs)
                got_b.push_back(*s.run_bits(reveal::both, p.c, p.c.inputs_of(party::bob, p.inputs)));
        }));
    REQUIRE(got_a == got_b);
    return got_a;
}

/// The bytes Alice sent in the last run `alice` makes, in a session of `scheme`.
std::uint64_t sent(const std::function<void(session&)>& alice, const std::function<void(session&)>& bob,
                   garbling_scheme scheme) {
    session_options o = with_threads(1);
    o.scheme = scheme;
    std::uint64_t bytes = 0;
    rethrow(two_party(
        make_wiring(0), o, o,
        [&](session& s) {
            alice(s);
            bytes = s.last_run().bytes_sent;
        },
        bob));
    return bytes;
}

}  // namespace

TEST_CASE("schemes.three_halves_equals_half_gates_and_plaintext_in_every_compiled_run_kind") {
    const std::uint64_t seed = 5601;
    const std::vector<program> progs = programs(seed);
    CHECK(eval_plain_bits(progs[0].c, progs[0].inputs)[0] == bits_of_hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
    const mode modes[] = {{1, false, garbling_hash::rekeyed}, {1, false, garbling_hash::fixed_key},
                          {2, false, garbling_hash::rekeyed}, {4, false, garbling_hash::rekeyed},
                          {1, true, garbling_hash::rekeyed},  {2, true, garbling_hash::fixed_key}};
    for (const mode& m : modes) {
        INFO("threads " << m.threads << ", ipp " << m.ipp << ", hash " << to_string(m.hash) << ", seed " << seed);
        const std::vector<bits_t> three = run_all(progs, m, garbling_scheme::three_halves);
        const std::vector<bits_t> half = run_all(progs, m, garbling_scheme::half_gates);
        REQUIRE(three.size() == progs.size());
        for (std::size_t k = 0; k < progs.size(); ++k) {
            INFO(progs[k].name);
            CHECK(three[k] == eval_plain_bits(progs[k].c, progs[k].inputs));
            CHECK(three[k] == half[k]);
        }
    }
}

TEST_CASE("schemes.three_halves_tables_take_the_bytes_the_stats_predict") {
    // AES-128, one worker: the level widths are the kernel calls, so the
    // prediction is exact; 24.625 bytes per AND in whole groups of 8.
    const circuit<> c = aes();
    const bits_t in = {bits_of_hex("000102030405060708090a0b0c0d0e0f"), bits_of_hex("00112233445566778899aabbccddeeff")};
    const auto alice = [&](session& s) { s.run_bits(reveal::both, c, c.inputs_of(party::alice, in)); };
    const auto bob = [&](session& s) { s.run_bits(reveal::both, c, c.inputs_of(party::bob, in)); };
    const std::uint64_t three = sent(alice, bob, garbling_scheme::three_halves);
    const std::uint64_t half = sent(alice, bob, garbling_scheme::half_gates);
    const circuit_stats& st = c.stats();
    CHECK(half == st.bytes_garbler_to_evaluator);
    CHECK(half == st.bytes_garbler_to_evaluator_with(garbling_scheme::half_gates));
    CHECK(three == st.bytes_garbler_to_evaluator_with(garbling_scheme::three_halves));
    const std::uint64_t tables = three - (half - 32 * st.and_gates);
    MESSAGE("AES-128: " << static_cast<double>(tables) / static_cast<double>(st.and_gates) << " bytes per AND");
    CHECK(tables >= gc::tables_of(garbling_scheme::three_halves, st.and_gates).least);
    CHECK(tables * 1000 <= 24'700 * st.and_gates);
}

TEST_CASE("schemes.parties_must_agree_and_malicious_sessions_refuse_three_halves") {
    session_options three = with_threads(1), half = with_threads(1);
    three.scheme = garbling_scheme::three_halves;
    const outcome o = two_party(make_wiring(0), three, half, [](session&) {}, [](session&) {});
    for (const std::exception_ptr& e : {o.alice, o.bob}) {
        REQUIRE(e);
        const std::string why = message_of(e);
        INFO(why);
        CHECK_THROWS_AS(std::rethrow_exception(e), protocol_error);
        CHECK(why.find("different garbling schemes") != std::string::npos);
        CHECK(why.find("session_options::scheme") != std::string::npos);
        CHECK(why.find("--scheme") != std::string::npos);
    }
    // Fixed-key three-halves against rekeyed three-halves: the hash is named.
    session_options fixed = three;
    fixed.hash = garbling_hash::fixed_key;
    const outcome h = two_party(make_wiring(0), fixed, three, [](session&) {}, [](session&) {});
    REQUIRE(h.alice);
    CHECK(message_of(h.alice).find("different garbling hashes") != std::string::npos);

    session_options malicious = three;
    malicious.security = security::malicious;
    malicious.allow_plain_links = true;
    auto ends = net::memory_pair();  // (Clang 14 cannot capture structured bindings)
    const std::string why = message_of([&] {
        try {
            session(party::alice, std::move(ends.first), malicious);
        } catch (...) {
            return std::current_exception();
        }
        return std::exception_ptr();
    }());
    INFO(why);
    CHECK(why.find("session_options::scheme") != std::string::npos);
    CHECK_THROWS_AS(session(party::alice, std::move(ends.second), malicious), usage_error);
}

}  // namespace schemes_tests

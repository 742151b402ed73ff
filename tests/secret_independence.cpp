// Secret independence (docs/DESIGN.md §9): no branch and no memory address in
// tandem's code depends on a secret. Built with TANDEM_VALGRIND_SECRETS, the
// library marks its secrets undefined for valgrind's memcheck where they are
// made (detail/secret.hpp: the PRG's key, so Δ and every label drawn; the
// IKNP column keys; the base OTs' secret scalars), and this test marks the
// parties' inputs. Memcheck follows every value computed from them and
// reports a conditional jump, or a load or store whose address, depends on
// one (as a use of an uninitialised value). What the protocol makes public is
// declassified where it does so (opened output bits, the hash start, the
// points of the base OTs, the session id). The test runs garbling,
// evaluation, OT extension (IKNP in the sessions; SoftSpoken with its malicious
// check on its own), IPP transfers and output opening over in-memory
// links (no syscalls see the secrets): compiled runs (arithmetic and
// comparison; a parallel region on two workers), IPP with one and two
// workers, a streamed run with values opened mid-run, results revealed to
// both and to either party, under both garbling hashes.
//
// CTest runs it under valgrind with --error-exitcode (tests/CMakeLists.txt,
// tests/cmake/memcheck.cmake): any memcheck error fails it. Outside valgrind
// it refuses to run (it would check nothing) unless given --plain, which
// runs the same cases as a functional test. --canary runs only a deliberate
// branch on a label garbled with tandem's PRG, which valgrind must report:
// CTest checks that it does (secret_independence.canary), so the check
// cannot pass by checking nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "memory_sessions.hpp"

#include <tandem/detail/secret.hpp>
#include <tandem/gc/three_halves.hpp>
#include <tandem/ot/softspoken.hpp>
#include <tandem/tandem.hpp>

#include <valgrind/valgrind.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#if !defined(TANDEM_VALGRIND_SECRETS)
#error "tests/secret_independence.cpp needs TANDEM_VALGRIND_SECRETS (tests/CMakeLists.txt defines it)"
#endif

namespace {

using namespace tandem;
using namespace tandem::test;
using u16 = secure_uint<16>;
using u32 = secure_uint<32>;

/// A copy of v that memcheck takes for secret: what a party passes to run().
template <class T>
T secret(T v) {
    detail::mark_secret(&v, sizeof v);
    return v;
}

session_options options(std::uint32_t threads, garbling_hash hash = garbling_hash::rekeyed, bool ipp = false) {
    session_options o = with_threads(threads);
    o.timeout = std::chrono::seconds(120);  // valgrind runs ~50 times slower and one thread at a time
    o.hash = hash;
    o.ipp = ipp;
    o.ipp_min_ands = 1;  // every region is split between the worlds
    return o;
}

// ---- three-halves kernels (gc/three_halves.hpp) ---------------------------------

TEST_CASE("secret_independence.three_halves_kernels") {
    // Δ, the zero labels and the dicing key come from tandem's PRG (secret),
    // so every row, control bit and label the kernels compute is secret for
    // memcheck; both hashes, groups of 8 and the narrow tails.
    const auto c = compile([](u16 x, u16 y) { return std::make_tuple(x * y, x < y); }, input<party::alice, u16>,
                           input<party::bob, u16>);
    const std::uint16_t x = 40503, y = 911;
    for (const bool fixed : {false, true}) {
        prg rng;
        const std::uint32_t n = c.data().input_bits;
        gc::encoding input{rng.next() | block(0, 1), std::vector<block>(n)};
        rng.fill(input.zero_labels.data(), n);
        const block hash_start = detail::declassified(rng.next());
        gc::byte_buffer tables;
        const gc::garbled_outputs g =
            fixed ? gc::three_halves::garble<fixed_key_hash>(c, input, hash_start, tables)
                  : gc::three_halves::garble<rekeyed_hash>(c, input, hash_start, tables);
        std::vector<block> active;
        const std::uint16_t xs = secret(x), ys = secret(y);
        for (std::uint32_t k = 0; k < 16; ++k) active.push_back(input.label(k, ((xs >> k) & 1) != 0));
        for (std::uint32_t k = 0; k < 16; ++k) active.push_back(input.label(16 + k, ((ys >> k) & 1) != 0));
        gc::byte_reader reader(tables.bytes());
        std::vector<block> out = fixed ? gc::three_halves::evaluate<fixed_key_hash>(c, hash_start, reader, active)
                                       : gc::three_halves::evaluate<rekeyed_hash>(c, hash_start, reader, active);
        for (block& b : out) b = detail::declassified(b);  // what opening the outputs makes public
        gc::decoding d = g.output;
        for (auto& bit : d.bits) bit = detail::declassified(bit);
        const std::vector<bool> bits = gc::decode(out, d);
        std::uint32_t product = 0;
        for (std::uint32_t k = 0; k < 16; ++k) product |= std::uint32_t{bits[k]} << k;
        CHECK(product == static_cast<std::uint16_t>(x * y));
        CHECK(bits[16] == (x < y));
    }
}

// ---- compiled: arithmetic and comparison ---------------------------------------

TEST_CASE("secret_independence.compiled_multiply_and_compare") {
    const auto c = compile([](u16 x, u16 y) { return std::make_tuple(x * y, x < y, max(x, y)); },
                           input<party::alice, u16>, input<party::bob, u16>);
    const std::uint16_t x = 51234, y = 777;
    const auto expected = std::make_tuple(static_cast<std::uint16_t>(x * y), x < y, std::max(x, y));
    for (const garbling_hash hash : {garbling_hash::rekeyed, garbling_hash::fixed_key}) {
        INFO("hash " << to_string(hash));
        std::optional<std::tuple<std::uint16_t, bool, std::uint16_t>> got[2][3];
        const reveal whos[3] = {reveal::both, reveal::alice, reveal::bob};
        rethrow(two_party(
            make_wiring(0), options(1, hash), options(1, hash),
            [&](session& s) {
                for (int k = 0; k < 3; ++k) got[0][k] = s.run(whos[k], c, secret(x));
            },
            [&](session& s) {
                for (int k = 0; k < 3; ++k) got[1][k] = s.run(whos[k], c, secret(y));
            }));
        for (int p = 0; p < 2; ++p) {
            CHECK(got[p][0] == expected);
            CHECK(got[p][1] == (p == 0 ? std::optional(expected) : std::nullopt));
            CHECK(got[p][2] == (p == 1 ? std::optional(expected) : std::nullopt));
        }
    }
}

// ---- compiled: a parallel region, on two workers and with IPP ------------------

constexpr std::size_t n = 4;
using vec = std::array<std::uint16_t, n>;

auto region_circuit() {
    return compile(
        [](const std::array<u16, n>& x, const std::array<u16, n>& y) {
            const auto d = parallel_for<n>([&](std::size_t i) { return x[i] * y[(i + 1) % n] + x[(i + 2) % n]; });
            return std::make_tuple(d, reduce(d, [](const u16& a, const u16& b) { return max(a, b); }));
        },
        input<party::alice, std::array<u16, n>>, input<party::bob, std::array<u16, n>>);
}

std::tuple<vec, std::uint16_t> region_plain(const vec& x, const vec& y) {
    vec d{};
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<std::uint16_t>(x[i] * y[(i + 1) % n] + x[(i + 2) % n]);
    std::uint16_t best = 0;
    for (const std::uint16_t v : d) best = std::max(best, v);
    return {d, best};
}

void run_region(std::uint32_t threads, bool ipp) {
    INFO("threads " << threads << (ipp ? ", ipp" : ""));
    const auto c = region_circuit();
    const vec x{40001, 3, 65535, 1234}, y{17, 60000, 2, 999};
    const auto expected = region_plain(x, y);
    using result = std::optional<std::tuple<vec, std::uint16_t>>;
    result got[2][2];
    std::uint64_t transfers[2] = {0, 0};  // IPP: wires re-shared between the worlds by OT
    rethrow(two_party(
        make_wiring(threads - 1 + (ipp ? threads : 0)), options(threads, garbling_hash::rekeyed, ipp),
        options(threads, garbling_hash::rekeyed, ipp),
        [&](session& s) {
            got[0][0] = s.run(reveal::both, c, secret(x));
            transfers[0] = s.last_run().transfer_ots;
            got[0][1] = s.run(reveal::alice, c, secret(x));
        },
        [&](session& s) {
            got[1][0] = s.run(reveal::both, c, secret(y));
            transfers[1] = s.last_run().transfer_ots;
            got[1][1] = s.run(reveal::alice, c, secret(y));
        }));
    for (int p = 0; p < 2; ++p) CHECK((transfers[p] > 0) == ipp);
    CHECK(got[0][0] == result(expected));
    CHECK(got[1][0] == result(expected));
    CHECK(got[0][1] == result(expected));
    CHECK(!got[1][1].has_value());
}

TEST_CASE("secret_independence.parallel_region_two_workers") { run_region(2, false); }
TEST_CASE("secret_independence.ipp_one_worker") { run_region(1, true); }
TEST_CASE("secret_independence.ipp_two_workers") { run_region(2, true); }

// ---- streamed: values opened mid-run -------------------------------------------

TEST_CASE("secret_independence.streamed_with_opened_values") {
    // The partial sums are opened to both and steer the loop; one value is
    // opened to Alice only; the result goes to both, then to each alone.
    static thread_local std::optional<std::uint32_t> seen;  // what this party's copy saw of the Alice-only open
    auto fn = stream(
        [](const sequence<u32>& xs, u32 y) {
            u32 sum = 0;
            std::size_t i = 0;
            while (i < xs.size() && open(sum) < 3000) sum = sum + xs[i++] * y;
            seen = open(sum ^ y, reveal::alice);
            return std::make_tuple(sum, u32(static_cast<std::uint32_t>(i)));
        },
        sequence_input<party::alice, u32>(8), input<party::bob, u32>);
    fn.segment_ands = 64;
    std::vector<std::uint32_t> xs{100, 7, 230, 45, 1000, 3, 99, 12};
    const std::uint32_t y = 9;
    std::uint32_t sum = 0, steps = 0;
    while (steps < xs.size() && sum < 3000) sum += xs[steps++] * y;
    const auto expected = std::make_tuple(sum, steps);

    std::vector<std::uint32_t> secret_xs = xs;
    detail::mark_secret(secret_xs.data(), secret_xs.size() * sizeof(std::uint32_t));
    using result = std::optional<std::tuple<std::uint32_t, std::uint32_t>>;
    result got[2][3];
    std::optional<std::uint32_t> seen_by[2];
    const reveal whos[3] = {reveal::both, reveal::alice, reveal::bob};
    rethrow(two_party(
        make_wiring(0), options(1), options(1),
        [&](session& s) {
            for (int k = 0; k < 3; ++k) got[0][k] = s.run(whos[k], fn, secret_xs);
            seen_by[0] = seen;
        },
        [&](session& s) {
            for (int k = 0; k < 3; ++k) got[1][k] = s.run(whos[k], fn, secret(y));
            seen_by[1] = seen;
        }));
    for (int p = 0; p < 2; ++p) {
        CHECK(got[p][0] == result(expected));
        CHECK(got[p][1] == (p == 0 ? result(expected) : std::nullopt));
        CHECK(got[p][2] == (p == 1 ? result(expected) : std::nullopt));
    }
    CHECK(seen_by[0] == std::optional<std::uint32_t>(sum ^ y));
    CHECK(!seen_by[1].has_value());
}

// ---- SoftSpoken OT extension with the malicious check ----------------------------

TEST_CASE("secret_independence.softspoken_malicious") {
    // Δ from tandem's PRG (secret), the receiver's choices marked secret: the
    // punctured trees, the leaf streams, the transpose and both sides' check
    // hashes must not branch on them; only the check's verdict is public.
    constexpr std::size_t m = 9000;  // two chunks: the lagged challenge path
    std::vector<block> q(m), t(m);
    std::vector<std::uint8_t> choices(m);
    for (std::size_t i = 0; i < m; ++i) choices[i] = static_cast<std::uint8_t>((i * 7 + i / 3) & 1);
    std::vector<std::uint8_t> secret_choices = choices;
    detail::mark_secret(secret_choices.data(), secret_choices.size());
    block delta;
    rethrow(two_party(
        make_wiring(0), options(1), options(1),
        [&](session& s) {
            prg rng;
            delta = rng.next() | block(0, 1);
            ot::softspoken_sender<4> sender(s.channel(), delta, security::malicious);
            sender.extend(s.channel(), q);
        },
        [&](session& s) {
            ot::softspoken_receiver<4> receiver(s.channel(), security::malicious);
            receiver.extend(s.channel(), secret_choices, t);
        }));
    detail::declassify(q.data(), q.size() * sizeof(block));  // the test's own look at the results
    detail::declassify(t.data(), t.size() * sizeof(block));
    detail::declassify(&delta, sizeof delta);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i) wrong += !(t[i] == (q[i] ^ (choices[i] ? delta : block())));
    CHECK(wrong == 0);
}

// ---- the canary: memcheck must catch this ----------------------------------------

/// Garbles a 16-bit multiply with Δ and labels from tandem's PRG, then
/// branches on, and indexes a table by, an output label (it went through the
/// AES-based hash). Under valgrind this must be reported: it shows that the
/// library's marks are compiled in and that memcheck follows them through
/// garbling.
[[gnu::noinline]] int canary_branch_on_a_secret_label() {
    const auto c = compile([](u16 x, u16 y) { return x * y; }, input<party::alice, u16>, input<party::bob, u16>);
    prg rng(block(0, 42));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble(c, rng, tables);
    const block label = g.output_zero.back();
    static volatile int table[16], ones, zeros;
    const int r = table[label.low() & 15];  // an address that depends on a secret
    if (label.lsb()) ones = ones + 1;       // a jump that depends on a secret
    else zeros = zeros + 1;
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    bool plain = false, canary = false;
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::strcmp(argv[i], "--plain") == 0) plain = true;
        else if (i > 0 && std::strcmp(argv[i], "--canary") == 0) canary = true;
        else rest.push_back(argv[i]);
    }
    // Valgrind 3.19 runs no AVX-512: the 128-bit kernels are the ones checked.
    use_aes_isa(narrowest_aes_isa);
    const bool under_valgrind = RUNNING_ON_VALGRIND != 0;
    if (canary) return canary_branch_on_a_secret_label() == 12345 ? 3 : 0;
    if (!under_valgrind && !plain) {
        std::fprintf(stderr,
                     "secret_independence: not running under valgrind, so nothing would be checked. Run it with "
                     "`ctest -R secret_independence` (valgrind memcheck), or pass --plain to run the same cases as "
                     "a plain functional test.\n");
        return 2;
    }
    doctest::Context context(static_cast<int>(rest.size()), rest.data());
    const int failed = context.run();
    if (!under_valgrind)
        std::fprintf(stderr, "secret_independence: not under valgrind, ran as a plain functional test only\n");
    return failed;
}

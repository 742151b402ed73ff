// Malicious sessions with worker links (threads > 1) on circuits with wide
// levels: the garbling, its rows on the worker links, the evaluation and the
// AND check's sums in parts on the session's pool
// (auth::garbler_evaluator::garble_on), equal to plaintext for compiled,
// prepared and streamed runs; a row altered on a worker link is caught or has
// no effect. A file of its own so that the ThreadSanitizer preset runs it
// (CMakePresets.json: tsan) without the rest of the malicious tests.
#include "exception_text.hpp"
#include "memory_sessions.hpp"
#include "tamper_channel.hpp"

#include <tandem/auth/garble.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/net/memory.hpp>
#include <tandem/session.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tandem;
using namespace std::chrono_literals;

namespace {

session_options wide_options(std::uint64_t seed) {
    session_options o;
    o.security = security::malicious;
    o.allow_plain_links = true;  // the tests alter the protocol's own bytes
    o.timeout = test::honest_deadline(10s);
    o.insecure_seed = seed;
    return o;
}

template <std::size_t W>
using wide_uint = secure_uint<W>;

}  // namespace

namespace {

constexpr std::size_t wide = 24;
using wide_values = std::array<std::uint32_t, wide>;

/// 24 products of 32-bit values side by side: levels of thousands of ANDs,
/// which sessions with worker links garble in parts (garble_on), and narrow
/// ones, which they do not.
auto wide_products() {
    using W = std::array<wide_uint<32>, wide>;
    return compile(
        [](const W& a, const W& b) {
            W p;
            for (std::size_t k = 0; k < wide; ++k) p[k] = a[k] * b[k];
            return p;
        },
        input<party::alice, W>, input<party::bob, W>);
}

/// The widest level's ANDs.
std::size_t widest_level(const circuit<>& c) {
    std::size_t most = 0;
    for (const level_range& l : flatten(c).data().levels) most = std::max<std::size_t>(most, l.xor_begin - l.and_begin);
    return most;
}

/// Σ x_i·y_i, 24 products at a time side by side then summed one by one:
/// streamed segments with wide levels and narrow ones.
auto wide_stream(std::size_t n) {
    auto fn = stream(
        [](const sequence<wide_uint<32>>& x, const sequence<wide_uint<32>>& y) {
            wide_uint<32> total = 0;
            for (std::size_t base = 0; base < x.size(); base += wide) {
                std::array<wide_uint<32>, wide> p;
                for (std::size_t k = 0; k < wide; ++k) p[k] = x[base + k] * y[base + k];
                for (const wide_uint<32>& v : p) total = total + v;
            }
            return total;
        },
        sequence_input<party::alice, wide_uint<32>>(n), sequence_input<party::bob, wide_uint<32>>(n));
    fn.segment_ands = 1 << 15;
    return fn;
}

}  // namespace

TEST_CASE("malicious.worker_links_garble_wide_levels") {
    // threads > 1: a level of at least 2,048 ANDs is garbled in parts, each
    // on a worker of the pool with its rows on that worker's link, evaluated
    // in the same parts, and the AND check summed in parts. Compiled,
    // prepared and streamed runs (segments of 2^15 ANDs: cut levels in
    // segments that carry wires in) equal plaintext for 2 and 3 threads
    // (parts of unequal lengths, levels cut and not).
    const auto c = wide_products();
    REQUIRE(widest_level(c) >= 3 * auth::garbler_evaluator::min_part_ands + 7);
    std::mt19937_64 rng(56);
    wide_values a[3], b[3];
    for (int r = 0; r < 3; ++r)
        for (std::size_t k = 0; k < wide; ++k) {
            a[r][k] = static_cast<std::uint32_t>(rng());
            b[r][k] = static_cast<std::uint32_t>(rng());
        }
    std::vector<std::uint32_t> xs(4 * wide), ys(4 * wide);
    std::uint32_t dot = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        xs[i] = static_cast<std::uint32_t>(rng());
        ys[i] = static_cast<std::uint32_t>(rng());
        dot += xs[i] * ys[i];
    }
    for (const std::uint32_t threads : {2u, 3u}) {
        INFO("threads " << threads << ", seed 56");
        session_options o = wide_options(56 + threads);
        o.threads = threads;
        std::vector<wide_values> got[2];
        std::optional<std::uint32_t> dot_got[2];
        const auto side = [&](party me) {
            return [&, me](session& s) {
                const int p = me == party::bob;
                const bool alice = me == party::alice;
                got[p].push_back(alice ? s.run(c, a[0]) : s.run(c, b[0]));
                s.prepare(c, 2);
                for (int r = 1; r < 3; ++r) got[p].push_back(alice ? s.run(c, a[r]) : s.run(c, b[r]));
                auto fn = wide_stream(xs.size());
                dot_got[p] = alice ? s.run(fn, xs) : s.run(fn, ys);
            };
        };
        test::rethrow(test::two_party(test::make_wiring(threads - 1), o, o, side(party::alice), side(party::bob)));
        for (int p = 0; p < 2; ++p) {
            REQUIRE(got[p].size() == 3);
            for (int r = 0; r < 3; ++r) CHECK(got[p][r] == c.eval_plain(a[r], b[r]));
            CHECK(dot_got[p] == dot);
        }
    }
}

TEST_CASE("malicious.a_row_altered_on_a_worker_link_is_caught") {
    // The last bytes Alice sends on a worker link in a run are the rows of
    // the parts of wide levels garbled there: one flipped bit of them makes
    // Bob's label of that AND wrong, which the AND check's first step names
    // at Alice (his masked values not backed by his labels) — or has no
    // effect, and never gives a wrong output. The honest run first measures
    // the bytes.
    const auto c = wide_products();
    wide_values a{}, b{};
    for (std::size_t k = 0; k < wide; ++k) {
        a[k] = static_cast<std::uint32_t>(3 * k + 1);
        b[k] = static_cast<std::uint32_t>(1000 - k);
    }
    const auto run = [&](std::optional<std::uint64_t> back, std::uint64_t& run_bytes) {
        test::wiring w = test::make_wiring(1);
        std::unique_ptr<net::channel>& raw = w.links_a[0];
        auto tampered = std::make_unique<test::tamper_channel>(*raw);
        test::tamper_channel* t = tampered.get();  // valid while the sessions run
        std::unique_ptr<net::channel> keep = std::move(raw);
        raw = std::move(tampered);
        session_options o = wide_options(57);
        o.threads = 2;
        o.timeout = 5s;
        std::optional<wide_values> got[2];
        const test::outcome out = test::two_party(
            std::move(w), o, o,
            [&](session& s) {
                const std::uint64_t from = t->bytes_sent();
                if (back) t->flip_ahead(run_bytes - *back, 0x04);
                got[0] = s.run(c, a);
                run_bytes = t->bytes_sent() - from;
            },
            [&](session& s) { got[1] = s.run(c, b); });
        for (int p = 0; p < 2; ++p)
            if (got[p]) CHECK(*got[p] == c.eval_plain(a, b));
        return out;
    };
    std::uint64_t run_bytes = 0;
    test::rethrow(run(std::nullopt, run_bytes));
    REQUIRE(run_bytes > 32 * auth::garbler_evaluator::min_part_ands);
    // Six rows (G0 or G1) of the worker's last 600 ANDs. The evaluator uses a
    // row only where the masked value of its AND's input is 1 (half-gates),
    // so a flipped row is caught or has no effect; most are caught.
    int caught = 0;
    for (std::uint64_t k = 0; k < 6; ++k) {
        const std::uint64_t back = 32 * 97 * k + 5 + 16 * (k % 2);
        INFO("byte " << back << " from the end of the run's " << run_bytes << " on the worker link");
        std::uint64_t bytes = run_bytes;
        const test::outcome out = run(back, bytes);
        if (!out.alice) continue;  // both returned the right outputs (checked in run)
        CHECK(message_of(out.alice).find(auth::garbler_evaluator::lambda_step) != std::string::npos);
        ++caught;
    }
    CHECK(caught >= 2);
}


// Garbling as you go (gc/eager.hpp through an eager builder,
// circuit/builder.hpp): both parties' labels kept in one process, each gate
// garbled and evaluated as the function makes it, the tables passed through
// memory, every opened bit decoded from the evaluator's label against the
// garbler's two. The answers must be plain C++'s and the levelled stream's,
// for every segment size; a damaged table is caught where a value is opened;
// parallel regions run inline.
#include <doctest/doctest.h>

#include "../examples/stream_apps.hpp"
#include "exception_text.hpp"

#include <tandem/tandem.hpp>
#include <tandem/gc/eager.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace eager_tests {

namespace {

using tandem::block;
using tandem::party;
template <std::size_t W>
using u = tandem::secure_uint<W>;

/// Tables in memory, read in the order written (the evaluator flushes at the
/// same gate as the garbler, just after it).
class table_queue {
public:
    void write(const block* p, std::size_t n) {
        if (read_ == tables_.size()) tables_.clear(), read_ = 0;
        tables_.insert(tables_.end(), p, p + n);
        written_ += n;
    }
    const block* read(std::size_t n) {
        if (read_ + n > tables_.size()) throw tandem::protocol_error("eager test: the evaluator read ahead of the garbler");
        const block* p = tables_.data() + read_;
        read_ += n;
        return p;
    }
    /// Flips a bit of every table not yet read (of one AND alone, the
    /// evaluator reads none where both its permute bits are 0).
    void damage_unread() {
        for (std::size_t k = read_; k < tables_.size(); ++k) tables_[k] = tables_[k] ^ block(0, 1u << 7);
    }
    std::size_t unread() const noexcept { return tables_.size() - read_; }
    std::uint64_t written() const noexcept { return written_; }

private:
    std::vector<block> tables_;
    std::size_t read_ = 0;
    std::uint64_t written_ = 0;
};

using garbler = tandem::gc::garbler_core<tandem::rekeyed_hash, table_queue>;
using evaluator = tandem::gc::evaluator_core<tandem::rekeyed_hash, table_queue>;

/// Both parties of an eager run in one process: every gate goes to the
/// garbler's labels, then to the evaluator's.
class eager_pair final : public tandem::detail::gate_sink {
public:
    explicit eager_pair(std::uint64_t seed)
        : rng_(tandem::block(seed, 0x7a11)), delta_(rng_.next() | block(0, 1)), start_(rng_.next()),
          gcore_(start_, delta_, queue_), ecore_(start_, queue_), g_(gcore_, delta_), e_(ecore_, block()) {}

    void gates(std::span<const tandem::gate> made) override {
        g_.run(made);
        damage_if_asked();
        e_.run(made);
        for (const tandem::gate& g : made) ands += g.kind == tandem::gate_kind::and_gate ? 1 : 0;
    }
    void inputs(std::uint32_t first, party, std::uint32_t bits, const std::uint8_t* values) override {
        REQUIRE(values != nullptr);  // this harness is both parties: it knows every input
        for (std::uint32_t k = 0; k < bits; ++k) {
            const block zero = rng_.next();
            g_.set(first + k, zero);
            e_.set(first + k, values[k] != 0 ? zero ^ delta_ : zero);
        }
    }
    std::optional<std::vector<bool>> end_segment(std::span<const std::uint32_t> carried,
                                                 std::span<const std::uint32_t> opened, std::optional<tandem::reveal> who,
                                                 const tandem::detail::gate_sum&) override {
        ++segments;
        std::optional<std::vector<bool>> bits;
        if (who) {
            bits.emplace();
            for (const std::uint32_t w : opened) {
                if (w == tandem::output_false || w == tandem::output_true) {
                    bits->push_back(w == tandem::output_true);
                    continue;
                }
                const block zero = g_.get(w);
                damage_if_asked();
                const block got = e_.get(w);
                if (got != zero && got != (zero ^ delta_))
                    throw tandem::protocol_error("eager test: an opened label is neither of its wire's two");
                bits->push_back(got != zero);
            }
        }
        g_.carry(carried);
        damage_if_asked();
        e_.carry(carried);
        max_slots = std::max(max_slots, g_.slots());
        CHECK(queue_.unread() == 0);  // every table written was read
        return bits;
    }

    std::uint64_t ands = 0;
    std::uint64_t segments = 0;
    std::size_t max_slots = 0;
    /// Set: the first table the garbler writes from now on reaches the evaluator with a bit flipped.
    bool damage = false;
    std::uint64_t tables_written() const noexcept { return queue_.written(); }

private:
    // Between the garbler's flush and the evaluator's: the tables just written are unread.
    void damage_if_asked() {
        if (damage && queue_.unread() > 0) {
            queue_.damage_unread();
            damage = false;
        }
    }

    tandem::prg rng_;
    block delta_, start_;
    table_queue queue_;
    garbler gcore_;
    evaluator ecore_;
    tandem::gc::eager_labels<garbler> g_;
    tandem::gc::eager_labels<evaluator> e_;
};

/// Runs streamed function fn eagerly on both parties' inputs (both known here).
template <class Fn, class... Args>
auto run_eager(Fn& fn, eager_pair& pair, const Args&... args) {
    tandem::detail::stream_inputs feeds;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (feeds.feeds.push_back(tandem::detail::make_feed(std::get<I>(fn.inputs()), args)), ...);
    }(std::index_sequence_for<Args...>{});
    return fn.run(static_cast<tandem::detail::gate_sink&>(pair), feeds, tandem::reveal::both);
}

/// Carried accumulators, two sequences, products and squares, a minimum,
/// comparisons, complemented bits, constants, and a value opened midway
/// that steers the rest (public control flow).
template <class SeqA, class SeqB>
std::tuple<u<16>, u<16>, tandem::secure_bit, u<32>> mix(const SeqA& a, const SeqB& b) {
    u<16> acc = 1, best = 0xFFFF;
    u<32> wide = 5;
    tandem::secure_bit any_equal = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const u<16> x = a[i], y = b[i];
        acc = acc * 3 + (x ^ y);
        best = tandem::min(best, x + y);
        any_equal = any_equal | !(x != y);
        const u<16> d = x - y;
        wide = wide + (d * d).resize<32>() * (~x).resize<32>();
        if (i == a.size() / 2 && tandem::open(acc) % 2 == 1) wide = wide ^ u<32>(0xF0F0F0F0u);
    }
    return {acc, best, any_equal, wide};
}

std::tuple<std::uint16_t, std::uint16_t, bool, std::uint32_t> mix_plain(std::span<const std::uint16_t> a,
                                                                       std::span<const std::uint16_t> b) {
    std::uint16_t acc = 1, best = 0xFFFF;
    std::uint32_t wide = 5;
    bool any_equal = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        acc = static_cast<std::uint16_t>(acc * 3 + (a[i] ^ b[i]));
        best = std::min<std::uint16_t>(best, static_cast<std::uint16_t>(a[i] + b[i]));
        any_equal = any_equal || a[i] == b[i];
        const auto d = static_cast<std::uint16_t>(a[i] - b[i]);
        const auto square = static_cast<std::uint16_t>(std::uint32_t{d} * d);
        wide = wide + std::uint32_t{square} * std::uint32_t{static_cast<std::uint16_t>(~a[i])};
        if (i == a.size() / 2 && acc % 2 == 1) wide ^= 0xF0F0F0F0u;
    }
    return {acc, best, any_equal, wide};
}

constexpr std::size_t n_values = 24;

auto mix_stream() {
    return tandem::stream([](const tandem::sequence<u<16>>& a, const tandem::sequence<u<16>>& b) { return mix(a, b); },
                          tandem::sequence_input<party::alice, u<16>>(n_values),
                          tandem::sequence_input<party::bob, u<16>>(n_values));
}

}  // namespace

TEST_CASE("eager.garbled_as_made_equals_plain_cpp_and_the_levelled_stream") {
    auto fn = mix_stream();
    for (const std::uint64_t seed : {1, 2, 20261205}) {
        std::mt19937_64 rng(seed);
        std::array<std::uint16_t, n_values> a{}, b{};
        for (std::size_t i = 0; i < n_values; ++i) {
            a[i] = static_cast<std::uint16_t>(rng() % (seed == 2 ? 4 : 65536));  // seed 2: many equal pairs
            b[i] = static_cast<std::uint16_t>(rng() % (seed == 2 ? 4 : 65536));
        }
        const auto expected = mix_plain(a, b);
        for (const std::uint64_t k : {std::uint64_t{1}, std::uint64_t{17}, std::uint64_t{1000}, tandem::default_segment_ands}) {
            INFO("seed " << seed << ", segment_ands " << k);
            fn.segment_ands = k;
            REQUIRE(fn.eval_plain(a, b) == expected);  // the levelled stream, in plaintext
            const std::uint64_t levelled_ands = fn.last_run().and_gates;
            eager_pair pair(seed);
            const auto got = run_eager(fn, pair, a, b);
            REQUIRE(got.has_value());
            CHECK(*got == expected);
            // Two tables per AND, every one read; no twin is merged, so at least the levelled ANDs.
            CHECK(pair.tables_written() == 2 * pair.ands);
            CHECK(pair.ands >= levelled_ands);
            if (k == 1) CHECK(pair.segments > n_values);  // a cut after (nearly) every AND
        }
    }
}

TEST_CASE("eager.the_minimum_of_both_parties_values") {
    // The application of bench_scale and bench_record: its windows are a
    // comparison's carry chain (one AND each) and a select's independent ANDs.
    for (const std::uint64_t k : {std::uint64_t{200}, tandem::default_segment_ands}) {
        INFO("segment_ands " << k);
        auto fn = apps::minimum_stream<20>(300, 200);
        fn.segment_ands = k;
        std::vector<std::uint32_t> a(300), b(200), all;
        std::mt19937_64 rng(20261205);
        for (auto& v : a) v = static_cast<std::uint32_t>(rng() & 0xFFFFF);
        for (auto& v : b) v = static_cast<std::uint32_t>(rng() & 0xFFFFF);
        all = a;
        all.insert(all.end(), b.begin(), b.end());
        const auto [value, index] = apps::minimum_plain(all);
        eager_pair pair(7);
        const auto got = run_eager(fn, pair, a, b);
        REQUIRE(got.has_value());
        CHECK(std::get<0>(*got) == value);
        CHECK(std::get<1>(*got) == index);
        CHECK(pair.ands == fn.expected_ands);  // the minimum makes no twins: the levelled ANDs exactly
    }
}

TEST_CASE("eager.memory_stays_bounded_by_the_segment") {
    // Ten times the values, the same segment size: the label array does not grow with the run.
    auto sizes = [](std::uint64_t n) {
        auto fn = apps::minimum_stream<20>(n, n);
        fn.segment_ands = 4096;
        std::vector<std::uint32_t> a(n, 3), b(n, 5);
        eager_pair pair(3);
        (void)run_eager(fn, pair, a, b);
        return pair.max_slots;
    };
    const std::size_t small = sizes(500), large = sizes(5000);
    CHECK(large <= small * 2);
    CHECK(large < 5000 * 20);  // far below one slot per wire of the whole run
}

TEST_CASE("eager.a_damaged_table_is_caught_where_a_value_is_opened") {
    // The garbler's tables of an AND are damaged between the parties: the
    // evaluator's label of every later wire is neither of its two valid ones,
    // and opening one stops the run with protocol_error, never a wrong answer.
    auto fn = tandem::stream([](u<16> x, u<16> y) { return x * y + x; }, tandem::input<party::alice, u<16>>,
                             tandem::input<party::bob, u<16>>);
    const std::uint16_t x = 40503, y = 9973;
    {
        eager_pair honest(5);
        const auto got = run_eager(fn, honest, x, y);
        REQUIRE(got.has_value());
        CHECK(*got == static_cast<std::uint16_t>(x * y + x));
    }
    eager_pair pair(5);
    pair.damage = true;
    std::string what;
    try {
        (void)run_eager(fn, pair, x, y);
    } catch (const tandem::protocol_error& e) {
        what = e.what();
    }
    CHECK(what.find("neither of its wire's two") != std::string::npos);
}

TEST_CASE("eager.regions_run_inline") {
    // Each instance's gates made one after another; the window levels the
    // four squares' ANDs together (one window, as few levels as one square).
    auto fn = tandem::stream(
        [](const std::array<u<8>, 4>& a) {
            const auto squares = tandem::parallel_for<4>([&](std::size_t k) { return a[k] * a[k]; });
            return squares[0] + squares[3];
        },
        tandem::input<party::alice, std::array<u<8>, 4>>);
    eager_pair pair(1);
    const std::array<std::uint8_t, 4> a{3, 2, 5, 7};
    const auto got = run_eager(fn, pair, a);
    REQUIRE(got.has_value());
    CHECK(*got == static_cast<std::uint8_t>(9 + 49));
    CHECK(pair.tables_written() == 2 * pair.ands);
    // Four 8-bit squares (dsl_gate_counts), dead ones too, and the sum: 6 ANDs, as bit 1 of a square is 0.
    CHECK(pair.ands == 4 * 21 + 6);
}

}  // namespace eager_tests

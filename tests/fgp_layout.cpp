// FGP without false sharing (issue 15, item 5). FGP cuts a level's ANDs into
// contiguous runs of gates, one per worker (exec::plan::level_part), and each
// worker writes the output labels of its run: 16-byte labels, 4 to a 64-byte
// cache line. The layout (circuit/layout.hpp, sort_slots) gives a level's
// ANDs increasing output slots in gate order. What is guaranteed, and checked
// here for every level and 2..8 parts:
//  * the AND outputs of a level are strictly increasing in gate position;
//  * so for parts j < k every line part j writes is at or below every line
//    part k writes: a line written by two parts is the last line of one
//    non-empty part and the first of the next — at most one shared line per
//    boundary between non-empty parts, whatever the number of parts.
// Checked on compiled circuits (levels of 4096 independent ANDs fed by the
// slot pool, 64-bit products, region bodies, the applications flattened),
// on the segments of a streamed run (slots from the run's pool), and on a
// compile laid out in many segments; the circuits still validate, and
// garbling with 2 workers (every level split) decodes to the plaintext result.
#include <doctest/doctest.h>

#include "random_inputs.hpp"

#include "../examples/apps.hpp"

#include <tandem/tandem.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace fgp_layout_tests {

using namespace tandem;
using namespace tandem::test;

namespace {

using u64 = secure_uint<64>;
using bits_t = std::vector<std::vector<bool>>;

constexpr std::uint32_t slots_per_line = 64 / sizeof(block);
static_assert(slots_per_line == 4);

std::uint32_t line_of(std::uint32_t slot) { return slot / slots_per_line; }

/// What the FGP parts of one level write, cut as exec::plan cuts it.
struct part_lines {
    bool empty = true;
    std::uint32_t first = 0, last = 0;  // lowest and highest line written
};

/// Levels of d checked; throws nothing, counts what it checked.
struct check_counts {
    std::uint64_t levels = 0;       // levels with at least 2 ANDs
    std::uint64_t shared_lines = 0; // lines written by two parts (boundaries), over all n
};

/// Checks the guarantee above for every level of d (not its region bodies).
void check_levels(const circuit_data& d, const std::string& name, check_counts& counts) {
    for (std::size_t l = 0; l < d.levels.size(); ++l) {
        const level_range lv = d.levels[l];
        if (lv.and_count() < 2) continue;
        ++counts.levels;
        bool increasing = true;
        for (std::uint32_t p = lv.and_begin + 1; p < lv.xor_begin; ++p)
            increasing = increasing && d.gates[p - 1].out < d.gates[p].out;
        INFO(name << ", level " << l << " (" << lv.and_count() << " ANDs)");
        CHECK(increasing);
        for (std::uint32_t n = 2; n <= 8; ++n) {
            std::vector<part_lines> parts(n);
            std::vector<std::vector<std::uint32_t>> lines(n);  // every line each part writes
            for (std::uint32_t k = 0; k < n; ++k) {
                const auto range = exec::plan::level_part(lv, k, n);
                const std::uint32_t b = range.first, e = range.second;
                for (std::uint32_t p = b; p < e; ++p) {
                    const std::uint32_t ln = line_of(d.gates[p].out);
                    part_lines& pl = parts[k];
                    pl.first = pl.empty ? ln : std::min(pl.first, ln);
                    pl.last = pl.empty ? ln : std::max(pl.last, ln);
                    pl.empty = false;
                    lines[k].push_back(ln);
                }
            }
            // Ordered: for non-empty parts j < k, part j's last line is at or
            // below part k's first. So a line written by two parts is the last
            // line of the earlier one and the first of the later one (a part
            // of fewer than 4 ANDs may lie inside one line with both of its
            // neighbours), and the shared lines are at most the boundaries.
            std::vector<std::uint32_t> order;  // the non-empty parts, in order
            for (std::uint32_t k = 0; k < n; ++k)
                if (!parts[k].empty) order.push_back(k);
            bool ordered = true;
            for (std::size_t i = 0; i + 1 < order.size(); ++i)
                ordered = ordered && parts[order[i]].last <= parts[order[i + 1]].first;
            // The same from the lines themselves, not from their bounds.
            std::vector<std::pair<std::uint32_t, std::uint32_t>> all;  // (line, part)
            for (std::uint32_t k = 0; k < n; ++k)
                for (const std::uint32_t ln : lines[k]) all.emplace_back(ln, k);
            std::sort(all.begin(), all.end());
            bool disjoint = true;
            std::uint64_t shared = 0;  // distinct lines written by more than one part
            for (std::size_t i = 1; i < all.size(); ++i) {
                if (all[i].first != all[i - 1].first || all[i].second == all[i - 1].second) continue;
                const std::uint32_t ln = all[i].first, ka = all[i - 1].second, kb = all[i].second;
                disjoint = disjoint && ln == parts[ka].last && ln == parts[kb].first;
            }
            for (std::size_t i = 0; i < all.size();) {  // count lines with two or more parts
                std::size_t j = i;
                bool many = false;
                for (; j < all.size() && all[j].first == all[i].first; ++j) many = many || all[j].second != all[i].second;
                shared += many ? 1 : 0;
                i = j;
            }
            INFO(n << " parts");
            CHECK(ordered);
            CHECK(disjoint);
            CHECK(shared <= order.size() - 1);
            counts.shared_lines += shared;
        }
    }
}

/// check_levels on c, its region bodies, and c flattened; and the circuits validate.
check_counts check_circuit(const circuit<>& c, const std::string& name) {
    check_counts counts;
    const circuit_data& d = c.data();
    CHECK_NOTHROW(detail::validate_circuit(d));
    check_levels(d, name, counts);
    for (std::size_t r = 0; r < d.regions.size(); ++r)
        for (std::size_t b = 0; b < d.regions[r].bodies.size(); ++b)
            check_levels(d.regions[r].bodies[b], name + ", region " + std::to_string(r) + " body " + std::to_string(b),
                         counts);
    if (!d.regions.empty()) {
        const circuit<> flat = flatten(c);
        CHECK_NOTHROW(detail::validate_circuit(flat.data()));
        check_levels(flat.data(), name + " flattened", counts);
    }
    return counts;
}

/// Garbles c with 2 workers, every level with 2+ ANDs split (fgp_min_ands 1),
/// evaluates, and decodes; must equal eval_plain on random inputs.
void check_garbled_two_workers(const circuit<>& c, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const bits_t in = random_inputs(c, rng);
    std::vector<bool> expected;
    for (const auto& v : eval_plain_bits(c, in)) expected.insert(expected.end(), v.begin(), v.end());
    const std::uint32_t workers = 2;
    const exec::plan p = exec::make_plan(c, workers, 1);
    prg g(block(seed, 11));
    gc::encoding enc{g.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
    g.fill(enc.zero_labels.data(), enc.zero_labels.size());
    const block hash_start = g.next();
    std::vector<gc::table_buffer> buffers(workers);
    std::vector<gc::table_buffer*> sinks;
    for (auto& b : buffers) sinks.push_back(&b);
    const gc::garbled_outputs out =
        exec::garble<rekeyed_hash>(p, c, enc, hash_start, std::span<gc::table_buffer* const>(sinks));
    std::vector<gc::table_reader> readers;
    for (auto& b : buffers) readers.emplace_back(b.tables());
    std::vector<gc::table_reader*> sources;
    for (auto& r : readers) sources.push_back(&r);
    std::vector<block> active;
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k)
            active.push_back(enc.label(c.data().inputs[v].first_bit + k, in[v][k]));
    const std::vector<block> labels =
        exec::evaluate<rekeyed_hash>(p, c, hash_start, std::span<gc::table_reader* const>(sources), active);
    INFO("seed " << seed);
    CHECK(gc::decode(labels, out.output) == expected);
}

// ---- circuits -----------------------------------------------------------------------

constexpr std::size_t wide = 4096;

/// One level of 4096 independent ANDs of input bits.
circuit<> independent_ands() {
    return compile(
        [](const std::array<secure_bit, 2 * wide>& in) {
            std::array<secure_bit, wide> r;
            for (std::size_t i = 0; i < wide; ++i) r[i] = in[2 * i] & in[2 * i + 1];
            return r;
        },
        input<party::alice, std::array<secure_bit, 2 * wide>>);
}

/// Levels of 4096 independent ANDs, each of a ring of bits with its
/// neighbours at a varying distance (as bench_cgp's tau case), so that from
/// the third level on the outputs take slots the pool releases in read order.
circuit<> wide_ring(std::size_t levels) {
    return compile(
        [levels](const std::array<secure_bit, wide>& in) {
            std::vector<secure_bit> x(in.begin(), in.end());
            for (std::size_t l = 0; l < levels; ++l) {
                std::vector<secure_bit> y(wide);
                for (std::size_t i = 0; i < wide; ++i) y[i] = x[i] & x[(i * 5 + 1 + 3 * l) % wide];
                x = std::move(y);
            }
            std::array<secure_bit, 64> r;
            for (std::size_t i = 0; i < wide; ++i) r[i % 64] ^= x[i];
            return r;
        },
        input<party::alice, std::array<secure_bit, wide>>);
}

/// A 64-bit product, and several side by side (wider levels).
template <std::size_t N>
circuit<> products() {
    return compile(
        [](const std::array<u64, N>& a, const std::array<u64, N>& b) {
            std::array<u64, N> r;
            for (std::size_t i = 0; i < N; ++i) r[i] = a[i] * b[i];
            return r;
        },
        input<party::alice, std::array<u64, N>>, input<party::bob, std::array<u64, N>>);
}

/// Products in a parallel region: bodies are laid out by the same pass.
template <std::size_t N>
circuit<> region_products() {
    return compile(
        [](const std::array<u64, N>& a, const std::array<u64, N>& b) {
            return parallel_for<N>([&](std::size_t i) { return a[i] * b[i] + (a[i] ^ b[(i + 1) % N]); });
        },
        input<party::alice, std::array<u64, N>>, input<party::bob, std::array<u64, N>>);
}

}  // namespace

TEST_CASE("fgp_layout.wide_levels_of_independent_ands") {
    const circuit<> one = independent_ands();
    const check_counts a = check_circuit(one, "4096 ANDs of inputs");
    CHECK(a.levels == 1);
    check_garbled_two_workers(one, 1501);

    const circuit<> ring = wide_ring(6);
    REQUIRE(ring.data().levels.size() >= 6);
    const check_counts b = check_circuit(ring, "ring of 4096 ANDs x6");
    CHECK(b.levels == 6);
    check_garbled_two_workers(ring, 1502);
}

TEST_CASE("fgp_layout.products_64_bit") {
    const circuit<> one = products<1>();
    check_circuit(one, "64-bit product");
    check_garbled_two_workers(one, 1601);
    const circuit<> many = products<16>();
    check_circuit(many, "16 64-bit products");
    check_garbled_two_workers(many, 1602);
}

TEST_CASE("fgp_layout.region_bodies_and_flattened_regions") {
    const circuit<> c = region_products<6>();
    REQUIRE(!c.data().regions.empty());
    const check_counts k = check_circuit(c, "region of 6 products");
    CHECK(k.levels > 0);
    check_garbled_two_workers(c, 1701);
    check_garbled_two_workers(flatten(c), 1702);
}

TEST_CASE("fgp_layout.applications") {
    check_circuit(apps::biomatch_circuit<16, 4>(), "biomatch 16x4");
    check_circuit(apps::mexp_circuit<2>(), "mexp 2");
    check_circuit(apps::mvmul_circuit<4, 8>(), "mvmul 4x8");
    check_garbled_two_workers(flatten(apps::mvmul_circuit<4, 8>()), 1801);
}

TEST_CASE("fgp_layout.compile_in_many_segments") {
    // More than 2^18 ANDs: compile lays the circuit out segment by segment on
    // one pool of slots (dsl/compile.hpp), then drops dead gates; the levels
    // keep their order, so the guarantee must survive both.
    const circuit<> c = products<80>();
    REQUIRE(c.stats().and_gates > (std::uint64_t{1} << 18));
    const check_counts k = check_circuit(c, "80 64-bit products");
    CHECK(k.levels > 0);
    check_garbled_two_workers(c, 1901);
}

namespace {

/// Checks every segment of a streamed run, then runs it on plain bits.
class checking_runner final : public detail::segment_runner {
public:
    std::optional<std::vector<bool>> run(detail::stream_segment&& s) override {
        check_levels(s.data, "segment " + std::to_string(s.index), counts);
        ++segments;
        return inner.run(std::move(s));
    }
    detail::plain_segment_runner inner;
    check_counts counts;
    std::uint64_t segments = 0;
};

}  // namespace

TEST_CASE("fgp_layout.streamed_segments") {
    // A streamed run's segments take fresh slots from the run's pool (layout.hpp,
    // lay_out_fresh), which after the first segment hands back released slots.
    auto fn = stream(
        [](const std::array<u64, 24>& a, const std::array<u64, 24>& b) {
            std::array<u64, 24> x = a;
            for (int round = 0; round < 3; ++round)
                for (std::size_t i = 0; i < 24; ++i) x[i] = x[i] * b[(i + round) % 24] + x[(i + 1) % 24];
            return x;
        },
        input<party::alice, std::array<u64, 24>>, input<party::alice, std::array<u64, 24>>);
    fn.segment_ands = 20000;
    std::mt19937_64 rng(2001);
    std::array<std::uint64_t, 24> a{}, b{};
    for (auto& v : a) v = rng();
    for (auto& v : b) v = rng();
    std::array<std::uint64_t, 24> expected = a;
    for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < 24; ++i) expected[i] = expected[i] * b[(i + round) % 24] + expected[(i + 1) % 24];

    checking_runner runner;
    const auto got = fn.run(runner, fn.feeds_for(party::alice, a, b), reveal::both);
    REQUIRE(got.has_value());
    CHECK(*got == expected);
    CHECK(runner.segments > 3);
    CHECK(runner.counts.levels > 0);
}

TEST_CASE("fgp_layout.sort_slots_sorts") {
    // The layout's sort (scan, reverse, or radix passes by bytes) against std::sort.
    std::mt19937_64 rng(2101);
    std::vector<std::uint32_t> scratch;
    for (const std::size_t n : {0u, 1u, 2u, 31u, 33u, 1000u, 5000u})
        for (const std::uint32_t range : {8u, 300u, 70000u, 1u << 24, 0xFFFFFFFDu}) {
            std::vector<std::uint32_t> v(n);
            for (std::uint32_t& x : v) x = static_cast<std::uint32_t>(rng() % range);
            for (int shape = 0; shape < 3; ++shape) {  // random, increasing, decreasing
                std::vector<std::uint32_t> s = v;
                if (shape == 1) std::sort(s.begin(), s.end());
                if (shape == 2) std::sort(s.rbegin(), s.rend());
                std::vector<std::uint32_t> expected = s;
                std::sort(expected.begin(), expected.end());
                detail::sort_slots(s, scratch);
                INFO(n << " values below " << range << ", shape " << shape);
                CHECK(s == expected);
            }
        }
}

}  // namespace fgp_layout_tests

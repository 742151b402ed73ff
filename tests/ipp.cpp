// Inter-party parallelization (exec/ipp_plan.hpp, session/ipp.hpp): the
// plan's worlds and transfers (replayed in plaintext with the other world's
// copies poisoned), and IPP sessions over in-memory links — the three
// applications and random mixed programs give what plaintext and non-IPP
// runs give, with 1, 2 and 4 threads; handshake mismatches; a link cut in
// either world fails both parties without hanging.
#include <doctest/doctest.h>

#include "exception_text.hpp"
#include "memory_sessions.hpp"
#include "random_inputs.hpp"

#include "../examples/apps.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace ipp_tests {

using namespace tandem;
using namespace tandem::test;
using namespace std::chrono_literals;

namespace {

using u32 = secure_uint<32>;
using bits_t = std::vector<std::vector<bool>>;

session_options ipp_options(std::uint32_t threads, std::uint64_t min_ands = 0) {
    session_options o = with_threads(threads);
    o.ipp = true;
    o.ipp_min_ands = min_ands;
    return o;
}

// ---- random mixed programs -----------------------------------------------------
//
// A program is a script drawn from a seed: stages that are sequential (a few
// elements updated from their neighbours), parallel (every element from
// itself, the peer's array and a neighbour: a parallel_for), or a reduction
// (element 0 takes the sum: a reduce). The same template runs on secure
// values, with regions, and on plain ones, with loops.

constexpr std::size_t mixed_n = 6;

template <class U>
U mix(int op, const U& a, const U& b, const U& c) {
    switch (op) {
    case 0: return a * b + c;
    case 1: return a ^ (b + c);
    case 2: return (a & b) | ~c;
    default: return a - (b ^ c) * b;
    }
}

template <class U, class ForEach, class Sum>
std::array<U, mixed_n> mixed(std::array<U, mixed_n> x, const std::array<U, mixed_n>& y, std::uint64_t seed,
                             ForEach for_each, Sum sum) {
    std::mt19937_64 script(seed);
    const int stages = 2 + static_cast<int>(script() % 5);
    for (int s = 0; s < stages; ++s) {
        const auto kind = script() % 3;
        const int op = static_cast<int>(script() % 4);
        const std::size_t r = 1 + script() % (mixed_n - 1);
        if (kind == 0) {
            for (std::size_t j = script() % 2; j < mixed_n; j += 2) x[j] = mix(op, x[j], x[(j + r) % mixed_n], y[j]);
        } else if (kind == 1) {
            x = for_each([&](std::size_t i) { return mix(op, x[i], y[(i + r) % mixed_n], x[(i + r) % mixed_n]); });
        } else {
            x[0] = sum(x);
        }
    }
    return x;
}

circuit<> mixed_circuit(std::uint64_t seed) {
    return compile(
        [seed](const std::array<u32, mixed_n>& x, const std::array<u32, mixed_n>& y) {
            return mixed<u32>(
                x, y, seed, [](auto body) { return parallel_for<mixed_n>(body); },
                [](const std::array<u32, mixed_n>& v) { return reduce(v, [](const u32& a, const u32& b) { return a + b; }); });
        },
        input<party::alice, std::array<u32, mixed_n>>, input<party::bob, std::array<u32, mixed_n>>);
}

std::array<std::uint32_t, mixed_n> mixed_plain(const std::array<std::uint32_t, mixed_n>& x,
                                               const std::array<std::uint32_t, mixed_n>& y, std::uint64_t seed) {
    return mixed<std::uint32_t>(
        x, y, seed,
        [](auto body) {
            std::array<std::uint32_t, mixed_n> out{};
            for (std::size_t i = 0; i < mixed_n; ++i) out[i] = body(i);
            return out;
        },
        [](const std::array<std::uint32_t, mixed_n>& v) {
            std::uint32_t t = 0;
            for (std::uint32_t e : v) t += e;
            return t;
        });
}

// ---- the plan replayed in plaintext --------------------------------------------
//
// Each world keeps its own copy of every slot; a write in one world poisons
// the other's copy, and a transfer copies between them. Reading a poisoned
// copy poisons the result, so any missing transfer shows in the outputs.

constexpr std::uint8_t poison = 2;

std::uint8_t gate_value(gate_kind k, std::uint8_t a, std::uint8_t b) {
    if (a == poison || b == poison) return poison;
    switch (k) {
    case gate_kind::and_gate: return a & b;
    case gate_kind::xor_gate: return a ^ b;
    default: return a ^ 1;
    }
}

void run_levels(const circuit_data& c, std::uint32_t begin, std::uint32_t end, std::vector<std::uint8_t>& v) {
    for (std::uint32_t l = begin; l < end; ++l)
        for (std::uint32_t g = c.levels[l].and_begin; g < c.levels[l].end; ++g) {
            const gate& gt = c.gates[g];
            v[gt.out] = gate_value(gt.kind, v[gt.in0], v[gt.in1]);
        }
}

std::vector<bool> replay(const circuit<>& circ, const exec::ipp_plan& ip, const bits_t& inputs) {
    const circuit_data& c = circ.data();
    std::array<std::vector<std::uint8_t>, 2> world;
    world[0].assign(c.slot_count, poison);
    world[1].assign(c.slot_count, poison);
    std::uint32_t bit = 0;
    for (const auto& v : inputs)
        for (bool b : v) world[0][bit++] = b ? 1 : 0;
    const auto transfer = [&](std::size_t k) {
        for (std::size_t w = 0; w < 2; ++w)
            for (std::uint32_t s : ip.boundary[k].into[w]) world[w][s] = world[1 - w][s];
    };
    for (std::size_t k = 0; k < c.steps.size(); ++k) {
        transfer(k);
        const step& st = c.steps[k];
        if (st.kind == step_kind::sequential) {
            for (std::uint32_t l = st.level_begin; l < st.level_end; ++l)
                for (std::uint32_t g = c.levels[l].and_begin; g < c.levels[l].end; ++g) {
                    const gate& gt = c.gates[g];
                    world[0][gt.out] = gate_value(gt.kind, world[0][gt.in0], world[0][gt.in1]);
                    world[1][gt.out] = poison;
                }
            continue;
        }
        const region_data& r = c.regions[st.region];
        std::vector<std::vector<std::uint8_t>> results;
        for (std::uint32_t i = 0; i < r.instances.size(); ++i) {  // all read before any writes
            const std::size_t w = i < ip.cut[k] ? 0 : 1;
            const circuit_data& body = r.bodies[r.instances[i].body];
            std::vector<std::uint8_t> local(body.slot_count, poison);
            const auto in = r.inputs_of(r.instances[i]);
            for (std::size_t j = 0; j < in.size(); ++j) local[j] = world[w][in[j]];
            run_levels(body, 0, static_cast<std::uint32_t>(body.levels.size()), local);
            std::vector<std::uint8_t> out;
            for (std::uint32_t s : body.output_slots) out.push_back(local[s]);
            results.push_back(std::move(out));
        }
        for (std::uint32_t i = 0; i < r.instances.size(); ++i) {
            const std::size_t w = i < ip.cut[k] ? 0 : 1;
            const auto out = r.outputs_of(r.instances[i]);
            for (std::size_t j = 0; j < out.size(); ++j)
                if (out[j] != unused_slot) world[w][out[j]] = results[i][j], world[1 - w][out[j]] = poison;
        }
    }
    transfer(c.steps.size());
    std::vector<bool> bits;
    for (std::uint32_t s : c.output_slots) {
        const std::uint8_t v = s == output_false ? 0 : s == output_true ? 1 : world[0][s];
        REQUIRE(v != poison);
        bits.push_back(v == 1);
    }
    return bits;
}

std::vector<bool> flat(const bits_t& v) {
    std::vector<bool> out;
    for (const auto& x : v) out.insert(out.end(), x.begin(), x.end());
    return out;
}

/// Runs c between two in-memory sessions with `options` on both sides,
/// several times with the given inputs; returns each party's result.
struct pair_result {
    std::vector<std::optional<bits_t>> alice, bob;
    run_stats alice_stats, bob_stats;
};
pair_result run_pair(const circuit<>& c, const std::vector<bits_t>& inputs, session_options options,
                     reveal who = reveal::both) {
    pair_result r;
    const std::uint32_t extra = options.threads - 1 + (options.ipp ? options.threads : 0);
    const auto mine = [&](const bits_t& in, party p) {
        bits_t m;
        for (std::size_t v = 0; v < in.size(); ++v)
            if (c.data().inputs[v].owner == p) m.push_back(in[v]);
        return m;
    };
    rethrow(two_party(
        make_wiring(extra), options, options,
        [&](session& s) {
            for (const bits_t& in : inputs) r.alice.push_back(s.run_bits(who, c, mine(in, party::alice)));
            r.alice_stats = s.last_run();
        },
        [&](session& s) {
            for (const bits_t& in : inputs) r.bob.push_back(s.run_bits(who, c, mine(in, party::bob)));
            r.bob_stats = s.last_run();
        }));
    return r;
}

}  // namespace

namespace {
/// Every byte each side wrote on each of its links during one two-party run.
struct transcripts {
    std::vector<std::shared_ptr<std::vector<std::byte>>> alice, bob;
};

/// Runs c once with seeded options, recording every link; checks the result.
transcripts recorded_run(const circuit<>& c, const bits_t& in, session_options a, session_options b) {
    const std::uint32_t extra = a.threads - 1 + (a.ipp ? a.threads : 0);
    wiring w = make_wiring(extra);
    transcripts t;
    const auto wrap = [](std::unique_ptr<net::channel>& ch, auto& into) {
        into.push_back(std::make_shared<std::vector<std::byte>>());
        ch = std::make_unique<recording_channel>(std::move(ch), into.back());
    };
    wrap(w.main_a, t.alice);
    wrap(w.main_b, t.bob);
    for (auto& l : w.links_a) wrap(l, t.alice);
    for (auto& l : w.links_b) wrap(l, t.bob);
    const auto mine = [&](party p) {
        bits_t m;
        for (std::size_t v = 0; v < in.size(); ++v)
            if (c.data().inputs[v].owner == p) m.push_back(in[v]);
        return m;
    };
    std::optional<bits_t> got_a, got_b;
    rethrow(two_party(
        std::move(w), a, b, [&](session& s) { got_a = s.run_bits(reveal::both, c, mine(party::alice)); },
        [&](session& s) { got_b = s.run_bits(reveal::both, c, mine(party::bob)); }));
    REQUIRE(got_a.has_value());
    CHECK(flat(*got_a) == flat(eval_plain_bits(c, in)));
    CHECK(got_b == got_a);
    return t;
}

bool same(const std::vector<std::shared_ptr<std::vector<std::byte>>>& x,
          const std::vector<std::shared_ptr<std::vector<std::byte>>>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k)
        if (*x[k] != *y[k]) return false;
    return true;
}
}  // namespace

TEST_CASE("ipp.session.insecure_seed_replays_byte_for_byte") {
    // session_options::insecure_seed fixes all of a party's randomness, base
    // OTs included: the same seeds give the same bytes on every link, so a
    // failing two-party test can be replayed; another seed changes them.
    const circuit<> c = apps::mvmul_circuit<3, 3>();
    std::mt19937_64 rng(1124);
    const bits_t in = random_inputs(c, rng);
    for (const auto& config : {std::pair{1u, false}, std::pair{2u, false}, std::pair{2u, true}}) {
        const std::uint32_t threads = config.first;
        const bool ipp = config.second;
        INFO("threads " << threads << (ipp ? ", IPP" : "") << ", input seed 1124");
        session_options a = with_threads(threads), b = with_threads(threads);
        a.ipp = b.ipp = ipp;
        a.ipp_min_ands = b.ipp_min_ands = 1;
        a.insecure_seed = 11;
        b.insecure_seed = 22;
        const transcripts first = recorded_run(c, in, a, b);
        const transcripts again = recorded_run(c, in, a, b);
        CHECK(first.alice.front()->size() > 1000);
        CHECK(same(first.alice, again.alice));
        CHECK(same(first.bob, again.bob));
        a.insecure_seed = 12;
        const transcripts other = recorded_run(c, in, a, b);
        CHECK_FALSE(same(first.alice, other.alice));
        b.insecure_seed.reset();  // the OS's randomness: never the same twice
        const transcripts fresh = recorded_run(c, in, a, b);
        CHECK_FALSE(same(other.bob, fresh.bob));
    }
}

TEST_CASE("ipp.plan.replays_in_plaintext") {
    std::vector<std::pair<std::string, circuit<>>> circuits;
    circuits.emplace_back("biomatch 6x2", apps::biomatch_circuit<6, 2>());
    circuits.emplace_back("mexp 4", apps::mexp_circuit<4>());
    circuits.emplace_back("mvmul 3x3", apps::mvmul_circuit<3, 3>());
    for (std::uint64_t seed = 1; seed <= 24; ++seed) circuits.emplace_back("mixed " + std::to_string(seed), mixed_circuit(seed));
    std::mt19937_64 rng(1301);
    for (const auto& named : circuits) {
        const std::string& name = named.first;
        const circuit<>& c = named.second;
        const bits_t in = random_inputs(c, rng);
        const std::vector<bool> expected = flat(eval_plain_bits(c, in));
        for (std::uint32_t w : {1u, 2u, 4u})
            for (std::uint64_t min_ands : {std::uint64_t{0}, std::uint64_t{2000}, exec::default_ipp_min_ands}) {
                INFO(name << ", workers " << w << ", ipp_min_ands " << min_ands << ", seed 1301");
                const exec::ipp_plan ip = exec::make_ipp_plan(c, w, min_ands);
                CHECK(replay(c, ip, in) == expected);
                CHECK(ip.world_ands[0] + ip.world_ands[1] == c.stats().and_gates);
                CHECK(ip.worlds[0].hooked(0));
            }
    }
}

TEST_CASE("ipp.plan.splits_mvmul_evenly_and_transfers_its_surface") {
    // 16 rows of 16 64-bit products: rows 0-7 in Alice's world, 8-15 in Bob's.
    // Bob's world reads its 8 matrix rows and the vector (8·16·64 + 16·64 =
    // 9216 bits) and returns 8 sums (512 bits) to Alice's for the outputs.
    const auto c = apps::mvmul_circuit<16, 16>();
    for (std::uint32_t w : {1u, 2u, 4u}) {
        INFO("workers " << w);
        const exec::ipp_plan ip = exec::make_ipp_plan(c, w);
        REQUIRE(c.data().regions.size() == 1);
        std::size_t region_step = 0;
        while (c.data().steps[region_step].kind != step_kind::region) ++region_step;
        CHECK(ip.cut[region_step] == 8);
        const region_data& r = c.data().regions[0];
        std::uint64_t region_ands = 0;
        for (const region_instance& i : r.instances) region_ands += tandem::detail::count_gates(r.bodies[i.body]).and_gates;
        CHECK(2 * ip.world_ands[1] == region_ands);  // identical rows: an even split
        CHECK(ip.world_ands[0] + ip.world_ands[1] == c.stats().and_gates);
        std::uint64_t into_bob = 0, into_alice = 0;
        for (const exec::transfer_set& t : ip.boundary) {
            into_bob += t.into_world(exec::world::bob).size();
            into_alice += t.into_world(exec::world::alice).size();
        }
        CHECK(into_bob == 9216);
        CHECK(into_alice == 512);
        CHECK(ip.transferred_bits == 9728);
        // Each world's workers share its half evenly: 8 / W rows each.
        const auto& bob_parts = ip.worlds[1].steps[region_step].parts;
        for (const exec::instance_range& p : bob_parts) CHECK(p.end - p.begin == 8 / w);
    }
    // Below the threshold nothing is cut: everything stays in Alice's world.
    const exec::ipp_plan whole = exec::make_ipp_plan(c, 1, c.stats().and_gates + 1);
    CHECK(whole.world_ands[1] == 0);
    CHECK(whole.transferred_bits == 0);
}

TEST_CASE("ipp.plan.one_graph_of_both_worlds_waits_across_them_only_at_boundaries") {
    const auto c = apps::mvmul_circuit<16, 16>();
    for (std::uint32_t w : {1u, 2u, 4u}) {
        INFO("workers " << w);
        const exec::ipp_plan ip = exec::make_ipp_plan(c, w);
        const exec::task_graph& g = ip.joint;
        REQUIRE(g.tasks.size() == ip.worlds[0].graph.tasks.size() + ip.worlds[1].graph.tasks.size());
        std::size_t outs = 0, ins = 0;
        for (std::uint32_t t = 0; t < g.tasks.size(); ++t) {
            const exec::task& tk = g.tasks[t];
            CHECK(tk.worker / w == tk.world);  // Bob's world's workers after Alice's
            outs += tk.what == exec::task::kind::transfers_out ? 1 : 0;
            ins += tk.what == exec::task::kind::transfers_in ? 1 : 0;
            for (const std::uint32_t s : g.successors(t)) {
                CHECK(s > t);  // a topological order
                const exec::task& next = g.tasks[s];
                if (next.world != tk.world) {  // across worlds: only out → in of the same boundary
                    CHECK(tk.what == exec::task::kind::transfers_out);
                    CHECK(next.what == exec::task::kind::transfers_in);
                    CHECK(next.step == tk.step);
                }
            }
        }
        std::size_t hooks = 0;
        for (std::size_t k = 0; k <= c.data().steps.size(); ++k) hooks += ip.worlds[0].hooked(k) ? 1 : 0;
        CHECK(outs == 2 * hooks);
        CHECK(ins == 2 * hooks);
        // Each world's transfers in wait for both worlds' transfers out.
        for (std::uint32_t t = 0; t < g.tasks.size(); ++t)
            if (g.tasks[t].what == exec::task::kind::transfers_in) CHECK(g.waits_for[t] == 2);
    }
}

TEST_CASE("ipp.session.apps_equal_plaintext_and_non_ipp") {
    const auto bio = apps::biomatch_circuit<6, 2>();
    const auto mexp = apps::mexp_circuit<4>();
    const auto mvmul = apps::mvmul_circuit<3, 3>();
    const std::uint64_t seed = 1201;
    const auto bio_in = apps::make_biomatch_inputs<6, 2>(seed);
    const auto mexp_in = apps::make_mexp_inputs<4>(seed);
    const auto mv_in = apps::make_mvmul_inputs<3, 3>(seed);
    for (std::uint32_t threads : {1u, 2u, 4u})
        for (bool ipp : {false, true}) {
            INFO("threads " << threads << ", ipp " << ipp << ", seed " << seed);
            std::uint64_t bio_a = 0, bio_b = 0;
            std::uint32_t mexp_a = 0, mexp_b = 0;
            std::array<std::uint64_t, 3> mv_a{}, mv_b{};
            run_stats stats_a, stats_b;
            const session_options o = ipp ? ipp_options(threads) : with_threads(threads);
            rethrow(two_party(
                make_wiring(threads - 1 + (ipp ? threads : 0)), o, o,
                [&](session& s) {
                    CHECK(s.ipp() == ipp);
                    bio_a = s.run(bio, bio_in.db);
                    mexp_a = s.run(mexp, mexp_in.bases);
                    mv_a = s.run(mvmul, mv_in.matrix);
                    stats_a = s.last_run();
                },
                [&](session& s) {
                    bio_b = s.run(bio, bio_in.sample);
                    mexp_b = s.run(mexp, mexp_in.exps);
                    mv_b = s.run(mvmul, mv_in.vector);
                    stats_b = s.last_run();
                }));
            CHECK(bio_a == apps::biomatch_plain<6, 2>(bio_in.db, bio_in.sample));
            CHECK(bio_b == bio_a);
            CHECK(mexp_a == apps::mexp_plain<4>(mexp_in.bases, mexp_in.exps));
            CHECK(mexp_b == mexp_a);
            CHECK(mv_a == apps::mvmul_plain<3, 3>(mv_in.matrix, mv_in.vector));
            CHECK(mv_b == mv_a);
            // MVMul 3x3 with every region cut: rows 0 in Alice's world, 1-2 in
            // Bob's: 2 rows of 3 and the vector of 3 in, 2 sums out, 64 bits each.
            const std::uint64_t transferred = ipp ? (2 * 3 + 3 + 2) * 64 : 0;
            for (const run_stats* st : {&stats_a, &stats_b}) {
                CHECK(st->transferred_bits == transferred);
                CHECK(st->transfer_ots == transferred);
                CHECK((st->transfer_seconds > 0) == ipp);
            }
        }
}

TEST_CASE("ipp.session.mixed_programs_with_1_2_4_threads") {
    const std::uint64_t seed = 1401;
    std::mt19937_64 rng(seed);
    // The programs cover the shapes IPP must handle: a region between two
    // sequential steps, a region feeding a region, wires crossing both ways.
    bool seq_region_seq = false, region_region = false, both_ways = false;
    for (std::uint64_t p = 0; p < 8; ++p) {
        const circuit<> c = mixed_circuit(seed + p);
        const std::vector<step>& steps = c.data().steps;
        for (std::size_t k = 1; k < steps.size(); ++k) {
            const bool region = steps[k].kind == step_kind::region;
            region_region |= region && steps[k - 1].kind == step_kind::region;
            seq_region_seq |= region && steps[k - 1].kind == step_kind::sequential && k + 1 < steps.size() &&
                              steps[k + 1].kind == step_kind::sequential;
        }
        std::array<std::uint64_t, 2> into{};
        for (const exec::transfer_set& t : exec::make_ipp_plan(c, 1, 0).boundary)
            for (std::size_t w = 0; w < 2; ++w) into[w] += t.into[w].size();
        both_ways |= into[0] > 0 && into[1] > 0;
        std::vector<bits_t> inputs;
        for (int k = 0; k < 2; ++k) inputs.push_back(random_inputs(c, rng));
        for (std::uint32_t threads : {1u, 2u, 4u}) {
            INFO("program seed " << seed + p << ", threads " << threads);
            const pair_result raw = run_pair(c, inputs, with_threads(threads));
            const pair_result ipp = run_pair(c, inputs, ipp_options(threads));
            for (std::size_t k = 0; k < inputs.size(); ++k) {
                const bits_t expected = eval_plain_bits(c, inputs[k]);
                CHECK(raw.alice[k] == expected);
                CHECK(ipp.alice[k] == expected);
                CHECK(ipp.bob[k] == expected);
            }
            CHECK(ipp.alice_stats.transfer_ots == ipp.alice_stats.transferred_bits);
        }
    }
    CHECK(seq_region_seq);
    CHECK(region_region);
    CHECK(both_ways);
    // The plaintext template agrees with the circuit (so "expected" is the program's meaning).
    const circuit<> c = mixed_circuit(seed);
    std::array<std::uint32_t, mixed_n> x{}, y{};
    for (auto& e : x) e = static_cast<std::uint32_t>(rng());
    for (auto& e : y) e = static_cast<std::uint32_t>(rng());
    bits_t in(2);
    for (std::size_t i = 0; i < mixed_n; ++i)
        for (int b = 0; b < 32; ++b) in[0].push_back((x[i] >> b) & 1), in[1].push_back((y[i] >> b) & 1);
    const std::vector<bool> out = flat(eval_plain_bits(c, in));
    const auto want = mixed_plain(x, y, seed);
    for (std::size_t i = 0; i < mixed_n; ++i) {
        std::uint32_t v = 0;
        for (int b = 0; b < 32; ++b) v |= static_cast<std::uint32_t>(out[i * 32 + b]) << b;
        CHECK(v == want[i]);
    }
}

TEST_CASE("ipp.session.reveal_and_many_runs") {
    const circuit<> c = mixed_circuit(1501);
    std::mt19937_64 rng(1501);
    std::vector<bits_t> inputs;
    for (int k = 0; k < 5; ++k) inputs.push_back(random_inputs(c, rng));
    for (reveal who : {reveal::alice, reveal::bob}) {
        INFO("reveal " << to_string(who) << ", seed 1501");
        const pair_result r = run_pair(c, inputs, ipp_options(2), who);
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            const bits_t expected = eval_plain_bits(c, inputs[k]);
            CHECK(r.alice[k].has_value() == (who == reveal::alice));
            CHECK(r.bob[k].has_value() == (who == reveal::bob));
            CHECK((who == reveal::alice ? r.alice[k] : r.bob[k]) == expected);
        }
    }
}

TEST_CASE("ipp.session.handshake_mismatches") {
    session_options plain = with_threads(1), ipp = ipp_options(1), other_min = ipp_options(1, 99);
    for (const auto& [a, b, what] : {std::tuple{ipp, plain, "inter-party parallelization is on here and off"},
                                     std::tuple{plain, ipp, "inter-party parallelization is off here and on"},
                                     std::tuple{ipp, other_min, "different IPP region thresholds"}}) {
        const outcome o = two_party(make_wiring(2), a, b, [](session&) {}, [](session&) {});
        REQUIRE(o.alice);
        CHECK_THROWS_WITH_AS(std::rethrow_exception(o.alice), doctest::Contains(what), protocol_error);
        REQUIRE(o.bob);
        CHECK_THROWS_AS(std::rethrow_exception(o.bob), error);
    }
}

TEST_CASE("ipp.session.link_cut_in_either_world_fails_both_parties") {
    // Links in opening order: 0 main (Alice's world, link 0), 1 Alice's world
    // link 1, 2 Bob's world link 0 (his tables and transfers), 3 Bob's world
    // link 1. Cut each at several points: set-up, first run, later runs (a
    // run moves ~1 MB each way).
    const auto c = apps::mvmul_circuit<4, 4>();
    const auto in = apps::make_mvmul_inputs<4, 4>(1601);
    for (std::size_t link : {0u, 2u, 3u})
        for (std::uint64_t cut : {3000u, 40000u, 400000u, 3000000u}) {
            INFO("link " << link << ", cut after " << cut << " bytes");
            wiring w = make_wiring(3);
            auto was_cut = std::make_shared<std::atomic<bool>>(false);
            std::unique_ptr<net::channel>& target = link == 0 ? w.main_b : w.links_b[link - 1];
            target = std::make_unique<cutting_channel>(std::move(target), cut, was_cut);
            session_options o = ipp_options(2);
            o.timeout = 2s;
            std::atomic<int> runs_a{0}, runs_b{0};
            const auto t0 = std::chrono::steady_clock::now();
            const outcome out = two_party(
                std::move(w), o, o,
                [&](session& s) {
                    for (int k = 0; k < 50; ++k) s.run(c, in.matrix), ++runs_a;
                },
                [&](session& s) {
                    for (int k = 0; k < 50; ++k) s.run(c, in.vector), ++runs_b;
                });
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            CHECK(was_cut->load());
            CHECK(out.alice);
            CHECK(out.bob);
            for (auto e : {out.alice, out.bob})
                if (e) CHECK_THROWS_AS(std::rethrow_exception(e), error);
            CHECK(seconds < 8);
        }
}

TEST_CASE("ipp.session.trimmed_between_runs_equal_plaintext") {
    // session::trim between runs (what an asynchronous session does after
    // each operation) frees the links' buffers, OT extension's and the table
    // sources'; the next run makes them again — on every link, with two
    // workers per party, with and without IPP (fixed inputs, seed 1602).
    const auto c = apps::mvmul_circuit<4, 4>();
    const auto in = apps::make_mvmul_inputs<4, 4>(1602);
    const auto expected = apps::mvmul_plain(in.matrix, in.vector);
    for (const bool with_ipp : {false, true}) {
        INFO("ipp " << with_ipp);
        const session_options o = with_ipp ? ipp_options(2) : with_threads(2);
        std::remove_const_t<decltype(expected)> got_a{}, got_b{};
        const outcome out = two_party(
            make_wiring(with_ipp ? 3 : 1), o, o,
            [&](session& s) {
                for (int k = 0; k < 3; ++k) {
                    s.trim();
                    got_a = s.run(c, in.matrix);
                }
                s.trim();
            },
            [&](session& s) {
                for (int k = 0; k < 3; ++k) {
                    got_b = s.run(c, in.vector);
                    s.trim();
                    s.trim();  // twice: nothing left to free
                }
            });
        rethrow(out);
        CHECK(got_a == expected);
        CHECK(got_b == expected);
    }
}

}  // namespace ipp_tests

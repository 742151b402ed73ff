// Region instances in lockstep (gc/half_gates.hpp, step_runner::lockstep):
// narrow bodies — a chain of one AND per level, AES-128, 64-bit products, and
// regions whose instances alternate between bodies — garble and evaluate to
// the plaintext result with gc::garble and with exec::garble on 1–3 workers
// for instance counts that leave partial groups; and a scalar model of the
// documented tweak order (group by group, level by level, gate-major) gives
// byte for byte the tables the kernels write, every tweak used exactly once.
#include <doctest/doctest.h>

#include "random_inputs.hpp"

#include <tandem/lib/aes.hpp>
#include <tandem/tandem.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace lockstep_tests {

using namespace tandem;
using namespace tandem::test;

namespace {

using u8 = secure_uint<8>;
using u64 = secure_uint<64>;
using bits_t = std::vector<std::vector<bool>>;

/// A chain of one AND per level: the narrowest body there is.
template <std::size_t N>
circuit<> chain_region() {
    return compile(
        [](const std::array<u8, N>& x, const std::array<u8, N>& y) {
            return parallel_for<N>([&](std::size_t i) {
                secure_bit acc = x[i].bit(0);
                for (int r = 0; r < 40; ++r) acc = (acc & y[i].bit(r % 8)) ^ x[i].bit((r + 3) % 8);
                return acc;
            });
        },
        input<party::alice, std::array<u8, N>>, input<party::bob, std::array<u8, N>>);
}

template <std::size_t N>
circuit<> aes_region() {
    using keys = std::array<lib::aes_key<16>, N>;
    using blocks = std::array<lib::aes_block, N>;
    return compile(
        [](const keys& k, const blocks& b) {
            return parallel_for<N>([&](std::size_t i) { return lib::aes_encrypt(k[i], b[i]); });
        },
        input<party::alice, keys>, input<party::bob, blocks>);
}

template <std::size_t N>
circuit<> mul_region() {
    return compile(
        [](const std::array<u64, N>& x, const std::array<u64, N>& y) {
            return parallel_for<N>([&](std::size_t i) { return x[i] * y[i] + y[(i + 1) % N]; });
        },
        input<party::alice, std::array<u64, N>>, input<party::bob, std::array<u64, N>>);
}

/// Instances in runs of one body, then another (i % 7 < 4: a product; else a
/// sum and a comparison): groups end where the body changes.
template <std::size_t N>
circuit<> mixed_region() {
    return compile(
        [](const std::array<u64, N>& x, const std::array<u64, N>& y) {
            return parallel_for<N>([&](std::size_t i) {
                if (i % 7 < 4) return x[i] * y[i];
                return select(x[i] < y[i], x[i] + y[i], x[i] ^ y[i]);
            });
        },
        input<party::alice, std::array<u64, N>>, input<party::bob, std::array<u64, N>>);
}

struct garbled {
    gc::encoding enc;
    block hash_start;
    std::vector<block> tables;
};

garbled encoding_for(const circuit<>& c, std::uint64_t seed) {
    prg rng(block(seed, 7));
    gc::encoding enc{rng.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
    rng.fill(enc.zero_labels.data(), enc.zero_labels.size());
    return {std::move(enc), rng.next(), {}};
}

std::vector<block> active_labels(const circuit<>& c, const gc::encoding& enc, const bits_t& in) {
    std::vector<block> active;
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k) active.push_back(enc.label(c.data().inputs[v].first_bit + k, in[v][k]));
    return active;
}

/// exec::garble + exec::evaluate with `workers` workers; the decoded outputs.
std::vector<bool> exec_run(const circuit<>& c, const bits_t& in, std::uint64_t seed, std::uint32_t workers) {
    const exec::plan p = exec::make_plan(c, workers, 1);  // every region split over all workers
    const garbled g0 = encoding_for(c, seed);
    std::vector<gc::table_buffer> buffers(workers);
    std::vector<gc::table_buffer*> sinks;
    for (auto& b : buffers) sinks.push_back(&b);
    const gc::garbled_outputs g =
        exec::garble<rekeyed_hash>(p, c, g0.enc, g0.hash_start, std::span<gc::table_buffer* const>(sinks));
    std::vector<gc::table_reader> readers;
    for (auto& b : buffers) readers.emplace_back(b.tables());
    std::vector<gc::table_reader*> sources;
    for (auto& r : readers) sources.push_back(&r);
    const std::vector<block> out = exec::evaluate<rekeyed_hash>(p, c, g0.hash_start,
                                                               std::span<gc::table_reader* const>(sources),
                                                               active_labels(c, g0.enc, in));
    for (const auto& r : readers) CHECK(r.remaining() == 0);
    return gc::decode(out, g.output);
}

std::vector<bool> flat(const bits_t& v) {
    std::vector<bool> r;
    for (const auto& x : v) r.insert(r.end(), x.begin(), x.end());
    return r;
}

/// Every region body of c runs in groups of more than one instance.
bool locksteps(const circuit<>& c) {
    bool all = !c.data().regions.empty();
    for (const region_data& r : c.data().regions)
        for (const circuit_data& b : r.bodies) all = all && gc::detail::lockstep_width(b) > 1;
    return all;
}

void check_garbled_equals_plain(const circuit<>& c, std::uint64_t seed) {
    INFO("seed " << seed);
    CHECK(locksteps(c));
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 2; ++trial) {
        const bits_t in = random_inputs(c, rng);
        const std::vector<bool> want = flat(eval_plain_bits(c, in));
        // One core over the whole circuit.
        garbled g = encoding_for(c, seed + trial);
        gc::table_buffer tables;
        const gc::garbled_outputs out = gc::garble(c, g.enc, g.hash_start, tables);
        CHECK(tables.tables().size() == 2 * c.stats().and_gates);
        gc::table_reader reader(tables.tables());
        const std::vector<block> labels = gc::evaluate(c, g.hash_start, reader, active_labels(c, g.enc, in));
        CHECK(reader.remaining() == 0);
        CHECK(gc::decode(labels, out.output) == want);
        // The executor: each worker's part of the instances in groups of its own.
        for (std::uint32_t w = 1; w <= 3; ++w) {
            INFO("workers " << w);
            CHECK(exec_run(c, in, seed + trial, w) == want);
        }
    }
}

// ---- a scalar model of the documented tweak order ---------------------------------

/// Half-gates garbling of one AND (gc/half_gates.hpp's formulas), one gate
/// at a time with rekeyed_hash's any-n path: appends (TG, TE), returns C0.
block model_and(const rekeyed_hash& h, block delta, block a0, block b0, std::uint64_t tweak_index,
                std::vector<block>& tables) {
    block x[4] = {a0, b0, a0 ^ delta, b0 ^ delta};
    h.hash(2 * tweak_index, 2, 2, x);
    const block pa = mask_of(a0.lsb()), pb = mask_of(b0.lsb());
    const block tg = x[0] ^ x[2] ^ (pb & delta);
    const block te = x[1] ^ x[3] ^ a0;
    tables.push_back(tg);
    tables.push_back(te);
    return x[0] ^ (pa & tg) ^ x[1] ^ (pb & (te ^ a0));
}

struct model {
    const rekeyed_hash& h;
    block delta;
    std::vector<block> tables;
    std::set<std::uint64_t> tweaks;

    void and_gate(std::vector<block>& l, const gate& g, std::uint64_t t) {
        CHECK(tweaks.insert(t).second);  // no tweak twice
        l[g.out] = model_and(h, delta, l[g.in0], l[g.in1], t, tables);
    }
    void linear(std::vector<block>& l, const gate& g) const {
        l[g.out] = g.kind == gate_kind::xor_gate ? l[g.in0] ^ l[g.in1] : l[g.in0] ^ delta;
    }
    /// Levels of c on one label array; returns the next tweak index.
    std::uint64_t levels(const circuit_data& c, std::vector<block>& l, std::uint32_t begin, std::uint32_t end,
                         std::uint64_t t) {
        for (std::uint32_t d = begin; d < end; ++d) {
            const level_range& lv = c.levels[d];
            for (std::uint32_t j = lv.and_begin; j < lv.xor_begin; ++j) and_gate(l, c.gates[j], t++);
            for (std::uint32_t j = lv.xor_begin; j < lv.end; ++j) linear(l, c.gates[j]);
        }
        return t;
    }
    /// Instances first..first+k-1 of one body, each in a label array of its
    /// own, in the documented order: level by level, body gate j of copies
    /// 0..k-1 with tweaks t + k·(ANDs before the level) + k·(j - first AND) + m.
    std::uint64_t group(const region_data& r, std::uint32_t first, std::uint32_t k, std::vector<block>& outer,
                        std::uint64_t t) {
        const circuit_data& body = r.bodies[r.instances[first].body];
        std::vector<std::vector<block>> l(k, std::vector<block>(body.slot_count));
        for (std::uint32_t m = 0; m < k; ++m) {
            const auto in = r.inputs_of(r.instances[first + m]);
            for (std::size_t s = 0; s < in.size(); ++s) l[m][s] = outer[in[s]];
        }
        for (const level_range& lv : body.levels) {
            for (std::uint32_t j = lv.and_begin; j < lv.xor_begin; ++j)
                for (std::uint32_t m = 0; m < k; ++m) and_gate(l[m], body.gates[j], t++);
            for (std::uint32_t j = lv.xor_begin; j < lv.end; ++j)
                for (std::uint32_t m = 0; m < k; ++m) linear(l[m], body.gates[j]);
        }
        for (std::uint32_t m = 0; m < k; ++m) {
            const auto out = r.outputs_of(r.instances[first + m]);
            for (std::size_t j = 0; j < out.size(); ++j)
                if (out[j] != unused_slot) outer[out[j]] = l[m][body.output_slots[j]];
        }
        return t;
    }
};

/// The model's tables for c with one worker: regions in groups of
/// lockstep_width consecutive instances of one body.
std::vector<block> model_tables(const circuit<>& c, const garbled& g, std::uint64_t& ands) {
    const rekeyed_hash h(g.hash_start);
    model m{h, g.enc.delta, {}, {}};
    const circuit_data& d = c.data();
    std::vector<block> l(d.slot_count);
    std::copy(g.enc.zero_labels.begin(), g.enc.zero_labels.end(), l.begin());
    std::uint64_t t = 0;
    for (const step& st : d.steps) {
        if (st.kind == step_kind::sequential) {
            t = m.levels(d, l, st.level_begin, st.level_end, t);
            continue;
        }
        const region_data& r = d.regions[st.region];
        const auto n = static_cast<std::uint32_t>(r.instances.size());
        for (std::uint32_t i = 0; i < n;) {
            const std::uint32_t body = r.instances[i].body, most = gc::detail::lockstep_width(r.bodies[body]);
            std::uint32_t k = 1;
            while (k < most && i + k < n && r.instances[i + k].body == body) ++k;
            t = m.group(r, i, k, l, t);
            i += k;
        }
    }
    ands = t;
    CHECK(m.tweaks.size() == t);  // tweaks 0 .. t-1, each once
    return m.tables;
}

void check_model(const circuit<>& c, std::uint64_t seed) {
    INFO("seed " << seed);
    const garbled g = encoding_for(c, seed);
    gc::table_buffer tables;
    (void)gc::garble(c, g.enc, g.hash_start, tables);
    std::uint64_t ands = 0;
    const std::vector<block> want = model_tables(c, g, ands);
    CHECK(ands == c.stats().and_gates);
    REQUIRE(tables.tables().size() == want.size());
    std::size_t first_difference = want.size();
    for (std::size_t i = 0; i < want.size() && first_difference == want.size(); ++i)
        if (!(tables.tables()[i] == want[i])) first_difference = i;
    CHECK(first_difference == want.size());
}

}  // namespace

TEST_CASE("lockstep.width") {
    // A pure function of the body: at most max_lockstep, whole registers of
    // labels from 4 on, and within the byte budget.
    const circuit<> c = aes_region<2>();
    const circuit_data& body = c.data().regions.at(0).bodies.at(0);
    const std::uint32_t k = gc::detail::lockstep_width(body);
    CHECK(k >= 4);
    CHECK(k <= gc::detail::max_lockstep);
    CHECK(k % 4 == 0);
    CHECK(std::size_t{k} * body.slot_count * sizeof(block) <= gc::detail::lockstep_bytes);
    circuit_data huge;
    huge.slot_count = 1u << 30;
    CHECK(gc::detail::lockstep_width(huge) == 1);
}

TEST_CASE("lockstep.chain") {
    // 67 instances: whole groups and a partial one.
    check_garbled_equals_plain(chain_region<67>(), 1501);
}

TEST_CASE("lockstep.aes") {
    const circuit<> c = aes_region<13>();
    check_garbled_equals_plain(c, 1502);
}

TEST_CASE("lockstep.products") {
    check_garbled_equals_plain(mul_region<9>(), 1503);
}

TEST_CASE("lockstep.mixed_bodies") {
    const circuit<> c = mixed_region<23>();
    CHECK(c.data().regions.at(0).bodies.size() == 2);
    check_garbled_equals_plain(c, 1504);
}

TEST_CASE("lockstep.tweak_model") {
    // The kernels' tables equal the scalar model's byte for byte: the order
    // and tweaks documented in step_runner::lockstep, each tweak once.
    check_model(chain_region<67>(), 1601);
    check_model(mixed_region<23>(), 1602);
    check_model(mul_region<5>(), 1603);
}

}  // namespace lockstep_tests

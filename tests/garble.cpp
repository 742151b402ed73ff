// gc/: decode(evaluate(garble(c))) equals eval_plain(c) on the laws circuits
// and Bristol AES-128; table size; determinism; misuse.
#include "isa.hpp"
#include "laws.hpp"

#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/gc/half_gates.hpp>

#include <random>

namespace garble_tests {

using namespace tandem;

namespace {

/// Garbles c with `seed`, evaluates it on `inputs` (bits per input value) and decodes.
template <class Hash = rekeyed_hash>
std::vector<bool> garbled_run(const circuit<>& c, const std::vector<std::vector<bool>>& inputs, std::uint64_t seed,
                              std::size_t* table_bytes = nullptr) {
    prg rng(block(seed, 99));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble<Hash>(c, rng, tables);
    if (table_bytes) *table_bytes = tables.bytes();
    std::vector<block> active;
    for (std::size_t v = 0; v < inputs.size(); ++v)
        for (std::size_t k = 0; k < inputs[v].size(); ++k)
            active.push_back(g.input.label(c.data().inputs[v].first_bit + k, inputs[v][k]));
    gc::table_reader reader(tables.tables());
    const std::vector<block> out = gc::evaluate<Hash>(c, g.hash_start, reader, active);
    CHECK(reader.remaining() == 0);
    return gc::decode(out, g.output);
}

std::vector<bool> flat(const std::vector<std::vector<bool>>& v) {
    std::vector<bool> r;
    for (const auto& x : v) r.insert(r.end(), x.begin(), x.end());
    return r;
}

template <std::size_t N, bool S>
void check_laws_garbled(int sets, std::uint64_t seed) {
    using A = laws::sint<N, S>;
    const circuit<> c = compile(laws::all_ops<N, S>, input<party::alice, A>, input<party::bob, A>);
    std::mt19937_64 rng(seed);
    for (int t = 0; t < sets; ++t) {
        std::vector<std::vector<bool>> in(2, std::vector<bool>(N));
        for (auto& v : in)
            for (std::size_t k = 0; k < N; ++k) v[k] = (rng() & 1) != 0;
        if (t == 0) std::fill(in[1].begin(), in[1].end(), false);  // division by zero
        INFO("N=" << N << " signed=" << S << " set " << t << " seed " << seed);
        CHECK(garbled_run(c, in, seed + t) == flat(eval_plain_bits(c, in)));
    }
}

}  // namespace

TEST_CASE("garble.laws_circuits") {
    check_laws_garbled<1, false>(8, 1);
    check_laws_garbled<1, true>(8, 11);
    check_laws_garbled<2, false>(8, 12);
    check_laws_garbled<3, true>(8, 2);
    check_laws_garbled<7, false>(8, 13);
    check_laws_garbled<8, false>(8, 3);
    check_laws_garbled<8, true>(8, 4);
    check_laws_garbled<16, true>(6, 5);
    check_laws_garbled<31, true>(4, 14);
    check_laws_garbled<32, false>(4, 6);
    check_laws_garbled<32, true>(4, 15);
    check_laws_garbled<33, true>(4, 7);
    check_laws_garbled<64, true>(3, 8);
    check_laws_garbled<64, false>(3, 16);
    check_laws_garbled<65, false>(2, 9);
    check_laws_garbled<128, true>(2, 17);
}

TEST_CASE("garble.aes128") {
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    std::mt19937_64 rng(20261122);
    for (int t = 0; t < 5; ++t) {
        std::vector<std::vector<bool>> in(2, std::vector<bool>(128));
        for (auto& v : in)
            for (std::size_t k = 0; k < 128; ++k) v[k] = (rng() & 1) != 0;
        INFO("set " << t << " seed 20261122");
        std::size_t bytes = 0;
        CHECK(garbled_run(aes, in, 500 + t, &bytes) == flat(eval_plain_bits(aes, in)));
        CHECK(bytes == 32 * aes.stats().and_gates);  // 32 bytes per AND, nothing else
        CHECK(garbled_run<fixed_key_hash>(aes, in, 700 + t) == flat(eval_plain_bits(aes, in)));
    }
}

namespace {
/// Garbles c under `isa` with a fixed seed; returns the tables and the garbling.
template <class Hash>
std::pair<std::vector<block>, gc::garbling> garble_with(const circuit<>& c, aes_isa isa, std::uint64_t seed) {
    use_aes_isa(isa);
    prg rng(block(seed, 5));
    gc::table_buffer t;
    gc::garbling g = gc::garble<Hash>(c, rng, t);
    return {t.tables(), std::move(g)};
}

/// Every instruction set's kernels produce the 128-bit kernels' tables byte
/// for byte, and each evaluates the others' tables to the plaintext result.
template <class Hash>
void check_kernels_agree(const circuit<>& c, std::uint64_t seed) {
    const aes_isa before = active_aes_isa();
    const auto [t_ni, g_ni] = garble_with<Hash>(c, narrowest_aes_isa, seed);
    CHECK(t_ni.size() == 2 * c.stats().and_gates);
    std::mt19937_64 rng(seed);
    std::vector<std::vector<bool>> in;
    for (const auto& v : c.data().inputs) {
        in.emplace_back(v.bits);
        for (std::size_t k = 0; k < v.bits; ++k) in.back()[k] = (rng() & 1) != 0;
    }
    std::vector<block> active;
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k)
            active.push_back(g_ni.input.label(c.data().inputs[v].first_bit + k, in[v][k]));
    const std::vector<bool> expect = flat(eval_plain_bits(c, in));
    for (const aes_isa garbler : all_aes_isas) {
        if (garbler == narrowest_aes_isa) continue;
        if (!cpu_supports(garbler)) {
            MESSAGE("this CPU cannot run the " << to_string(garbler) << " kernels; not compared here");
            continue;
        }
        INFO("garbled with " << to_string(garbler) << ", seed " << seed);
        const auto [t_v, g_v] = garble_with<Hash>(c, garbler, seed);
        CHECK(t_ni == t_v);
        CHECK(g_ni.output.bits == g_v.output.bits);
        CHECK(g_ni.output_zero == g_v.output_zero);
        for (const aes_isa evaluator : {narrowest_aes_isa, garbler}) {
            use_aes_isa(evaluator);
            gc::table_reader reader(evaluator == narrowest_aes_isa ? t_v : t_ni);  // the other kernel's tables
            INFO("evaluated with " << to_string(evaluator));
            CHECK(gc::decode(gc::evaluate<Hash>(c, g_v.hash_start, reader, active), g_v.output) == expect);
        }
    }
    use_aes_isa(before);
}
}  // namespace

TEST_CASE("garble.isa_kernels_agree") {
    using U = laws::sint<32, false>;
    const circuit<> ops = compile(laws::all_ops<32, false>, input<party::alice, U>, input<party::bob, U>);
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    for (std::uint64_t seed : {1u, 2u}) {
        check_kernels_agree<rekeyed_hash>(ops, seed);
        check_kernels_agree<fixed_key_hash>(ops, seed + 10);
        check_kernels_agree<rekeyed_hash>(aes, seed + 20);
        check_kernels_agree<fixed_key_hash>(aes, seed + 30);
    }
}

TEST_CASE("garble.determinism_and_fresh_randomness") {
    using U = secure_uint<16>;
    const circuit<> c = compile([](U a, U b) { return a * b + (a ^ b); }, input<party::alice, U>, input<party::bob, U>);
    auto run = [&](std::uint64_t seed) {
        prg rng(block(seed, 1));
        gc::table_buffer t;
        const gc::garbling g = gc::garble(c, rng, t);
        return std::pair{t.tables(), g};
    };
    const auto [t1, g1] = run(1);
    const auto [t2, g2] = run(1);
    const auto [t3, g3] = run(2);
    CHECK(t1.size() == 2 * c.stats().and_gates);
    CHECK(t1 == t2);
    CHECK(g1.input.zero_labels == g2.input.zero_labels);
    CHECK(g1.input.delta == g2.input.delta);
    CHECK(t1 != t3);
    CHECK(!(g1.input.delta == g3.input.delta));
    CHECK(g1.input.zero_labels[0] != g3.input.zero_labels[0]);
    CHECK(g1.input.delta.lsb());
    CHECK(g3.input.delta.lsb());
}

TEST_CASE("garble.constant_and_passthrough_outputs") {
    using U = secure_uint<4>;
    const circuit<> c = compile([](U a, U b) { return std::tuple{a, U(9), ~b, a & b}; }, input<party::alice, U>,
                                input<party::bob, U>);
    const std::vector<std::vector<bool>> in{{true, false, true, true}, {false, true, true, false}};
    CHECK(garbled_run(c, in, 3) == flat(eval_plain_bits(c, in)));
}

TEST_CASE("garble.misuse") {
    using U = secure_uint<8>;
    const circuit<> c = compile([](U a, U b) { return a * b; }, input<party::alice, U>, input<party::bob, U>);
    prg rng(block(0, 5));
    gc::table_buffer tables;
    const gc::garbling g = gc::garble(c, rng, tables);
    std::vector<block> labels(16);
    for (std::size_t k = 0; k < 16; ++k) labels[k] = g.input.label(k, false);
    gc::table_reader short_reader(tables.tables().data(), tables.tables().size() - 2);
    CHECK_THROWS_AS(gc::evaluate(c, g.hash_start, short_reader, labels), protocol_error);
    gc::table_reader reader(tables.tables());
    CHECK_THROWS_AS(gc::evaluate(c, g.hash_start, reader, std::span<const block>(labels).first(15)), usage_error);
    CHECK_THROWS_AS(gc::decode(std::vector<block>(3), g.output), usage_error);
}

}  // namespace garble_tests

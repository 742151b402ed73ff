// gc/three_halves.hpp: one AND's algebra decodes to C0 ⊕ xy·Δ for every pair
// of input values, every permute bit and every dicing value, whatever the
// hashes are; whole circuits (the laws circuits, Bristol AES-128, regions in
// lockstep) garble and evaluate to the plaintext result under both hashes,
// with exactly table_bytes per level; every instruction set writes the same
// bytes; the dicing bits are a function of the AND's index alone.
#include "isa.hpp"
#include "laws.hpp"

#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/gc/three_halves.hpp>
#include <tandem/lib/aes.hpp>

#include <array>
#include <random>

namespace three_halves_tests {

using namespace tandem;
namespace th = tandem::gc::three_halves;

namespace {

block random_block(std::mt19937_64& rng) { return block(rng(), rng()); }

/// Tables of the circuit's sequential levels: table_bytes of each level's ANDs.
std::uint64_t expected_bytes(const circuit<>& c) {
    std::uint64_t bytes = 0;
    for (const level_range& lv : c.data().levels) bytes += th::table_bytes(lv.and_count());
    return bytes;
}

struct garbled {
    gc::garbling g;
    std::vector<std::uint8_t> tables;
};

template <class Hash>
garbled garble_with(const circuit<>& c, std::uint64_t seed) {
    prg rng(block(seed, 77));
    const std::uint32_t n = c.data().input_bits;
    gc::encoding input{rng.next() | block(0, 1), std::vector<block>(n)};
    rng.fill(input.zero_labels.data(), n);
    const block hash_start = rng.next();
    gc::byte_buffer tables;
    gc::garbled_outputs out = th::garble<Hash>(c, input, hash_start, tables);
    return {gc::garbling{std::move(out), std::move(input), hash_start}, tables.bytes()};
}

std::vector<block> active_labels(const circuit<>& c, const gc::encoding& e, const std::vector<std::vector<bool>>& in) {
    std::vector<block> active;
    for (std::size_t v = 0; v < in.size(); ++v)
        for (std::size_t k = 0; k < in[v].size(); ++k)
            active.push_back(e.label(c.data().inputs[v].first_bit + k, in[v][k]));
    return active;
}

std::vector<bool> flat(const std::vector<std::vector<bool>>& v) {
    std::vector<bool> r;
    for (const auto& x : v) r.insert(r.end(), x.begin(), x.end());
    return r;
}

std::vector<std::vector<bool>> random_inputs(const circuit<>& c, std::mt19937_64& rng) {
    std::vector<std::vector<bool>> in;
    for (const auto& v : c.data().inputs) {
        in.emplace_back(v.bits);
        for (std::size_t k = 0; k < v.bits; ++k) in.back()[k] = (rng() & 1) != 0;
    }
    return in;
}

/// Garbles c, evaluates it on random inputs and compares with plaintext.
template <class Hash>
void check_circuit(const circuit<>& c, std::uint64_t seed, int sets) {
    std::mt19937_64 rng(seed);
    for (int t = 0; t < sets; ++t) {
        INFO("seed " << seed << " set " << t);
        const garbled gb = garble_with<Hash>(c, seed + t);
        const auto in = random_inputs(c, rng);
        gc::byte_reader reader(gb.tables);
        const std::vector<block> out =
            th::evaluate<Hash>(c, gb.g.hash_start, reader, active_labels(c, gb.g.input, in));
        CHECK(reader.remaining() == 0);
        CHECK(gc::decode(out, gb.g.output) == flat(eval_plain_bits(c, in)));
    }
}

}  // namespace

TEST_CASE("three_halves.table_sizes") {
    CHECK(th::table_bytes(0) == 0);
    CHECK(th::table_bytes(1) == 25);        // 24 bytes of row, 5 bits of control in one byte
    CHECK(th::table_bytes(2) == 50);        // 10 bits: two bytes
    CHECK(th::table_bytes(8) == 197);       // 40 bits: five bytes
    CHECK(th::table_bytes(9) == 197 + 25);
    CHECK(th::table_bytes(800) == 19700);  // 24.625 bytes per AND
}

TEST_CASE("three_halves.gate_decodes_every_colour") {
    // The algebra alone, with arbitrary hash values: the equations must hold
    // whatever H returns, for every permute bit, dicing value and input pair.
    const std::uint64_t seed = 20261207;
    std::mt19937_64 rng(seed);
    for (int t = 0; t < 2000; ++t) {
        INFO("seed " << seed << " try " << t);
        const block delta = random_block(rng) | block(0, 1);
        const block a0 = random_block(rng), b0 = random_block(rng);  // zero labels
        const block ma = mask_of(a0.lsb()), mb = mask_of(b0.lsb());
        const th::detail::offsets o(delta);
        const block a = a0 ^ (a0.lsb() ? delta : block()), b = b0 ^ (b0.lsb() ? delta : block());  // colour 0
        block h[2][3];
        for (auto& colour : h)
            for (block& x : colour) x = random_block(rng);
        for (std::uint64_t r = 0; r < 4; ++r) {
            std::uint8_t row[th::row_bytes];
            unsigned z = 0;
            const block c0 = th::detail::garble_gate(a, b, ma, mb, a0.lsb(), b0.lsb(), o, r, h, row, z);
            CHECK(z < 32);
            for (int x = 0; x < 2; ++x)
                for (int y = 0; y < 2; ++y) {
                    const block wa = a0 ^ (x ? delta : block()), wb = b0 ^ (y ? delta : block());
                    const int i = wa.lsb(), j = wb.lsb();
                    const block seen[3] = {h[i][0], h[j][1], h[i ^ j][2]};
                    INFO("r " << r << " x " << x << " y " << y);
                    CHECK(th::detail::evaluate_gate(wa, wb, seen, row, z) == (c0 ^ (x & y ? delta : block())));
                }
        }
    }
}

TEST_CASE("three_halves.laws_circuits") {
    using A8 = laws::sint<8, true>;
    using A32 = laws::sint<32, false>;
    using A64 = laws::sint<64, true>;
    const circuit<> c8 = compile(laws::all_ops<8, true>, input<party::alice, A8>, input<party::bob, A8>);
    const circuit<> c32 = compile(laws::all_ops<32, false>, input<party::alice, A32>, input<party::bob, A32>);
    const circuit<> c64 = compile(laws::all_ops<64, true>, input<party::alice, A64>, input<party::bob, A64>);
    for (const circuit<>* c : {&c8, &c32, &c64}) {
        check_circuit<rekeyed_hash>(*c, 31, 4);
        check_circuit<fixed_key_hash>(*c, 41, 2);
    }
}

TEST_CASE("three_halves.aes128_bytes_per_and") {
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    check_circuit<rekeyed_hash>(aes, 51, 3);
    check_circuit<fixed_key_hash>(aes, 61, 2);
    const garbled gb = garble_with<rekeyed_hash>(aes, 3);
    CHECK(gb.tables.size() == expected_bytes(aes));
    const double per_and = double(gb.tables.size()) / double(aes.stats().and_gates);
    MESSAGE("AES-128: " << per_and << " bytes per AND");
    CHECK(per_and <= 24.7);
}

TEST_CASE("three_halves.regions_in_lockstep") {
    // Region instances run in lockstep groups: the kernels see relocated
    // levels of k copies, in groups of 8 like any level.
    using u64 = secure_uint<64>;
    const circuit<> mul = compile(
        [](const std::array<u64, 6>& x, const std::array<u64, 6>& y) {
            return parallel_for<6>([&](std::size_t i) { return x[i] * y[i]; });
        },
        input<party::alice, std::array<u64, 6>>, input<party::bob, std::array<u64, 6>>);
    using keys = std::array<lib::aes_key<16>, 5>;
    using blocks = std::array<lib::aes_block, 5>;
    const circuit<> aes = compile(
        [](const keys& k, const blocks& b) {
            return parallel_for<5>([&](std::size_t i) { return lib::aes_encrypt(k[i], b[i]); });
        },
        input<party::alice, keys>, input<party::bob, blocks>);
    check_circuit<rekeyed_hash>(mul, 71, 2);
    check_circuit<rekeyed_hash>(aes, 81, 1);
}

TEST_CASE("three_halves.isa_kernels_agree") {
    using U = laws::sint<32, false>;
    const circuit<> ops = compile(laws::all_ops<32, false>, input<party::alice, U>, input<party::bob, U>);
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const aes_isa before = active_aes_isa();
    for (const circuit<>* c : {&ops, &aes}) {
        use_aes_isa(narrowest_aes_isa);
        const garbled base = garble_with<rekeyed_hash>(*c, 9);
        const garbled base_fixed = garble_with<fixed_key_hash>(*c, 10);
        std::mt19937_64 rng(9);
        const auto in = random_inputs(*c, rng);
        const auto active = active_labels(*c, base.g.input, in);
        test::for_each_isa([&](aes_isa isa) {
            CHECK(garble_with<rekeyed_hash>(*c, 9).tables == base.tables);
            CHECK(garble_with<fixed_key_hash>(*c, 10).tables == base_fixed.tables);
            gc::byte_reader reader(base.tables);  // the 128-bit kernels' tables, evaluated here
            CHECK(gc::decode(th::evaluate<rekeyed_hash>(*c, base.g.hash_start, reader, active), base.g.output) ==
                  flat(eval_plain_bits(*c, in)));
            (void)isa;
        });
    }
    use_aes_isa(before);
}

TEST_CASE("three_halves.dicing_is_a_function_of_the_index") {
    // Any worker may garble any part: r of AND g must not depend on which
    // ANDs were diced before it.
    th::dicing in_order(block(5, 6)), backwards(block(5, 6)), other(block(5, 7));
    std::vector<std::uint64_t> forward(300);
    for (std::uint64_t g = 0; g < 300; ++g) forward[g] = in_order.bits(g);
    int differ = 0, ones[2] = {0, 0};
    for (std::uint64_t g = 300; g-- > 0;) {
        CHECK(backwards.bits(g) == forward[g]);
        differ += other.bits(g) != forward[g];
        ones[0] += forward[g] & 1, ones[1] += (forward[g] >> 1) & 1;
    }
    CHECK(differ > 150);  // another key, other bits (3/4 differ on average)
    CHECK(ones[0] > 100);
    CHECK(ones[0] < 200);
    CHECK(ones[1] > 100);
    CHECK(ones[1] < 200);
}

TEST_CASE("three_halves.misuse") {
    const circuit<> c = compile([](secure_uint<8> a, secure_uint<8> b) { return a & b; },
                                input<party::alice, secure_uint<8>>, input<party::bob, secure_uint<8>>);
    gc::encoding bad{block(1, 2), std::vector<block>(16)};  // lsb(Δ) = 0
    gc::byte_buffer tables;
    CHECK_THROWS_AS(th::garble(c, bad, block(), tables), usage_error);
    // Tables cut short: a protocol_error, not a read past the end.
    const garbled gb = garble_with<rekeyed_hash>(c, 1);
    std::vector<std::uint8_t> short_tables(gb.tables.begin(), gb.tables.end() - 1);
    gc::byte_reader reader(short_tables);
    std::vector<block> active(16);
    CHECK_THROWS_AS(th::evaluate(c, gb.g.hash_start, reader, active), protocol_error);
}

}  // namespace three_halves_tests

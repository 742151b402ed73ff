// Compiled with -march=native; links with portable.cpp, compiled without it.
// Both files garble the same function with the same seed: their tables must
// be equal, and both runs must give the plaintext result, whichever kernels
// run (AES-NI, and VAES where the CPU has it).
#include <doctest/doctest.h>

#include "../isa.hpp"
#include "run.hpp"

#include <random>

isa_mixed::result isa_mixed::run_native(std::uint64_t a, std::uint64_t b, std::uint64_t seed) {
    using U = tandem::secure_uint<64>;
    return run([](U x, U y) { return x * y + (x ^ y); }, a, b, seed);
}

TEST_CASE("isa_mixed.two_translation_units_agree") {
    tandem::test::for_each_isa([](tandem::aes_isa) {
        std::mt19937_64 rng(20261124);
        for (int t = 0; t < 4; ++t) {
            const std::uint64_t a = rng(), b = rng(), expect = a * b + (a ^ b);
            INFO("a=" << a << " b=" << b << " seed 20261124 set " << t);
            const isa_mixed::result n = isa_mixed::run_native(a, b, 100 + t);
            const isa_mixed::result p = isa_mixed::run_portable(a, b, 100 + t);
            CHECK(n.tables == p.tables);
            CHECK(n.garbled == n.plain);
            CHECK(p.garbled == p.plain);
            std::uint64_t got = 0;
            for (int k = 0; k < 64; ++k) got |= std::uint64_t{p.garbled[k]} << k;
            CHECK(got == expect);
        }
    });
}

// The README's example, kept compiling and correct.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

using tandem::secure_int, tandem::party, tandem::input;

// Alice and Bob each hold a 64-bit wealth; both learn only who is richer,
// and by how much the richer one's wealth exceeds the other's, capped at 1000.
auto richer(secure_int<64> alice, secure_int<64> bob) {
    auto alice_richer = alice > bob;
    auto gap = tandem::abs(alice - bob);
    return std::tuple{alice_richer, tandem::min(gap, 1000)};
}

TEST_CASE("readme.example") {
    auto c = tandem::compile(richer, input<party::alice, secure_int<64>>,
                                     input<party::bob, secure_int<64>>);
    auto [alice_richer, gap] = c.eval_plain(5'000'000, 4'999'500);  // plaintext mode
    CHECK(alice_richer);
    CHECK(gap == 500);
    CHECK(c.eval_plain(3, 2'000'000) == std::tuple<bool, std::int64_t>{false, 1000});
    CHECK(c.stats().and_gates > 0);
}

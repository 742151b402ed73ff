// Compiling is thread-safe: one builder per compile call, no shared state.
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <atomic>
#include <thread>
#include <vector>

namespace compile_threads_tests {

using namespace tandem;

namespace {
using I = secure_int<32>;
auto program(int rounds) {
    return compile(
        [rounds](I a, I b) {
            I acc = a;
            for (int i = 0; i < rounds; ++i) acc = acc * b + select(acc < b, a, b);
            return acc;
        },
        input<party::alice, I>, input<party::bob, I>);
}
}  // namespace

TEST_CASE("compile.threads.concurrent_compiles_agree") {
    const auto reference = program(6);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int k = 0; k < 20; ++k) {
                const auto c = program(6);
                if (c.stats().and_gates != reference.stats().and_gates ||
                    c.data().gates.size() != reference.data().gates.size() ||
                    c.eval_plain(1000 + t, 77 + k) != reference.eval_plain(1000 + t, 77 + k))
                    ++mismatches;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(mismatches == 0);
}

TEST_CASE("compile.threads.value_from_another_threads_compile") {
    // A value recorded on one thread is foreign to a compile running on another.
    I leaked;
    (void)compile(
        [&leaked](I a, I) {
            leaked = a;
            return a;
        },
        input<party::alice, I>, input<party::bob, I>);
    bool threw = false;
    std::thread other([&] {
        try {
            (void)compile([&leaked](I a, I) { return a - leaked; }, input<party::alice, I>, input<party::bob, I>);
        } catch (const usage_error&) {
            threw = true;
        }
    });
    other.join();
    CHECK(threw);
}

TEST_CASE("compile.threads.large_circuits_share_the_block_cache") {
    // Circuits of hundreds of thousands of gates use mapped, cached blocks
    // (detail/big_vector.hpp); threads allocate and free them concurrently.
    using U = secure_uint<64>;
    auto big = [] {
        return compile(
            [](U a, U b) {
                U acc = a;
                for (int i = 0; i < 40; ++i) acc = acc * b + a;
                return acc;
            },
            input<party::alice, U>, input<party::bob, U>);
    };
    const auto reference = big();
    REQUIRE(reference.data().gates.size() * sizeof(gate) > (std::size_t{1} << 20));
    std::uint64_t expect = 3;
    for (int i = 0; i < 40; ++i) expect = expect * 1000003 + 3;
    CHECK(reference.eval_plain(3, 1000003) == expect);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&] {
            for (int k = 0; k < 3; ++k) {
                const auto c = big();
                if (c.data().gates.size() != reference.data().gates.size() || c.eval_plain(3, 1000003) != expect)
                    ++mismatches;
            }
        });
    for (auto& th : threads) th.join();
    CHECK(mismatches == 0);
}

}  // namespace compile_threads_tests

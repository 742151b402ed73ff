// Large inputs on a small stack (issue 13): compile, plaintext evaluation and
// a streamed run of a function over two arrays of 50,000 secure_uint<20>
// (6 MB of secure values each, 200 KB of plain values each) on a thread
// whose stack is 160 KiB. Anything in tandem that held the inputs, the
// result or a copy of the plain values on the stack would overflow it and
// crash the test.
#include <doctest/doctest.h>
#include <tandem/tandem.hpp>

#include <pthread.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <tuple>

namespace small_stack_tests {

using namespace tandem;

namespace {

constexpr std::size_t n = 50'000;
using U = secure_uint<20>;
using values = std::array<U, n>;
using plain_values = std::array<std::uint32_t, n>;

/// Far less than one input array needs, plain (200 KB) or secure (6 MB);
/// enough for tandem's fixed-size frames, AddressSanitizer's included.
constexpr std::size_t stack_bytes = 160 * 1024;

/// Runs f on a new thread with a stack of `bytes`; rethrows what f threw.
/// (Checks stay on the calling thread: doctest's asserts are not made for
/// other threads.)
template <class F>
void on_small_stack(std::size_t bytes, F f) {
    struct job {
        F* f;
        std::exception_ptr error;
    } j{&f, nullptr};
    pthread_attr_t attr;
    REQUIRE(pthread_attr_init(&attr) == 0);
    REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
    pthread_t t;
    const int rc = pthread_create(
        &t, &attr,
        [](void* p) -> void* {
            job& k = *static_cast<job*>(p);
            try {
                (*k.f)();
            } catch (...) {
                k.error = std::current_exception();
            }
            return nullptr;
        },
        &j);
    pthread_attr_destroy(&attr);
    REQUIRE(rc == 0);
    pthread_join(t, nullptr);
    if (j.error) std::rethrow_exception(j.error);
}

/// Σ (a[i] ^ b[i]) mod 2^20, and the first a[i] — the inputs taken by const
/// reference, as compile's documentation asks of big inputs.
std::tuple<U, U> secure_sum(const values& a, const values& b) {
    U sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum = sum + (a[i] ^ b[i]);
    return {sum, a[0]};
}

std::uint32_t plain_sum(const plain_values& a, const plain_values& b) {
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum = (sum + (a[i] ^ b[i])) & 0xFFFFFu;
    return sum;
}

/// Two arrays of random 20-bit values, on the heap (fixed seed).
std::unique_ptr<std::array<plain_values, 2>> random_values(std::uint64_t seed) {
    auto v = std::make_unique<std::array<plain_values, 2>>();
    std::mt19937_64 rng(seed);
    for (plain_values& a : *v)
        for (std::uint32_t& x : a) x = static_cast<std::uint32_t>(rng() & 0xFFFFFu);
    return v;
}

}  // namespace

TEST_CASE("small_stack.compile_and_eval_plain") {
    const std::uint64_t seed = 1301;
    INFO("seed " << seed);
    const auto in = random_values(seed);
    std::uint32_t sum = 0, first = 0;
    std::uint64_t ands = 0;
    on_small_stack(stack_bytes, [&] {
        const auto c = compile(secure_sum, input<party::alice, values>, input<party::bob, values>);
        ands = c.stats().and_gates;
        std::tie(sum, first) = c.eval_plain((*in)[0], (*in)[1]);
    });
    CHECK(ands == 19 * (n - 1));  // the first addition is 0 + x: folded
    CHECK(sum == plain_sum((*in)[0], (*in)[1]));
    CHECK(first == (*in)[0][0]);
}

TEST_CASE("small_stack.streamed_run") {
    const std::uint64_t seed = 1302;
    INFO("seed " << seed);
    const auto in = random_values(seed);
    std::uint32_t sum = 0, first = 0;
    on_small_stack(stack_bytes, [&] {
        auto fn = tandem::stream(secure_sum, input<party::alice, values>, input<party::bob, values>);
        std::tie(sum, first) = fn.eval_plain((*in)[0], (*in)[1]);
    });
    CHECK(sum == plain_sum((*in)[0], (*in)[1]));
    CHECK(first == (*in)[0][0]);
}

}  // namespace small_stack_tests

// The README's example, kept compiling and correct.
#include <doctest/doctest.h>
#include <tandem/lib/aes.hpp>
#include <tandem/lib/float.hpp>
#include <tandem/lib/sort.hpp>
#include <tandem/tandem.hpp>

#include "../examples/stream_apps.hpp"

#include <array>
#include <optional>
#include <span>
#include <thread>
#include <tuple>
#include <vector>

namespace readme_example_tests {

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

TEST_CASE("readme.two_party") {
    // The README's session snippet, both sides over loopback TCP in two threads.
    auto c = tandem::compile(richer, input<party::alice, secure_int<64>>,
                                     input<party::bob, secure_int<64>>);
    tandem::net::tcp_listener listener(0, "127.0.0.1");
    std::tuple<bool, std::int64_t> at_bob{};
    std::optional<std::tuple<bool, std::int64_t>> only_bob;
    std::thread bob([&, port = listener.port()] {
        auto s = tandem::session::connect(party::bob, "127.0.0.1", port);
        at_bob = s.run(c, 4'999'500);
        only_bob = s.run(tandem::reveal::bob, c, 7);
    });
    auto s = tandem::session::accept(party::alice, listener);
    auto [richer_, gap] = s.run(c, 5'000'000);
    const auto only_alice = s.run(tandem::reveal::bob, c, 1);
    bob.join();
    CHECK(richer_);
    CHECK(gap == 500);
    CHECK(at_bob == std::tuple<bool, std::int64_t>{true, 500});
    CHECK(!only_alice.has_value());
    CHECK(only_bob == std::tuple<bool, std::int64_t>{false, 6});
}

TEST_CASE("readme.stream") {
    // The README's streaming snippet (smaller), in plaintext and between two
    // sessions over loopback TCP.
    auto fn = tandem::stream(
        [](const tandem::sequence<tandem::secure_uint<20>>& a, const tandem::sequence<tandem::secure_uint<20>>& b) {
            return apps::minimum_of_both<20>(a, b);  // examples/stream_apps.hpp: value and index
        },
        tandem::sequence_input<tandem::party::alice, tandem::secure_uint<20>>(5'000),
        tandem::sequence_input<tandem::party::bob, tandem::secure_uint<20>>(5'000));
    std::vector<std::uint32_t> alice_values(5'000), bob_values(5'000);
    for (std::uint32_t i = 0; i < 5'000; ++i) alice_values[i] = 1'000 + i % 977, bob_values[i] = 900 + i % 1013;
    auto [min, index] = fn.eval_plain(alice_values, bob_values);  // plaintext, segment by segment
    CHECK(min == 900);
    CHECK(index == 5'000);

    tandem::net::tcp_listener listener(0, "127.0.0.1");
    std::tuple<std::uint32_t, std::uint32_t> at_bob{};
    std::thread bob([&, port = listener.port()] {
        auto s = tandem::session::connect(party::bob, "127.0.0.1", port);
        at_bob = s.run(fn, bob_values);  // this party's inputs only
    });
    auto s = tandem::session::accept(party::alice, listener);
    auto [min2, index2] = s.run(fn, alice_values);
    bob.join();
    CHECK(std::tie(min2, index2) == std::tie(min, index));
    CHECK(at_bob == std::make_tuple(min, index));
}

TEST_CASE("readme.standard_library") {
    // The README's standard-library snippet, inside a compile.
    const auto c = tandem::compile(
        [](const std::array<std::tuple<tandem::secure_f32, tandem::secure_uint<16>>, 5>& in,
           const tandem::lib::aes_key<16>& key, const tandem::lib::aes_block& block) {
            auto bids = in;
            using bid = std::tuple<tandem::secure_f32, tandem::secure_uint<16>>;  // price, bidder
            tandem::stable_sort(std::span<bid>(bids),
                                [](const bid& a, const bid& b) { return std::get<0>(b) < std::get<0>(a); });
            auto ciphertext = tandem::lib::aes_encrypt(key, block);  // std::array<secure_uint<8>, 16>
            return std::tuple{bids, ciphertext};
        },
        input<party::alice, std::array<std::tuple<tandem::secure_f32, tandem::secure_uint<16>>, 5>>,
        input<party::alice, tandem::lib::aes_key<16>>, input<party::bob, tandem::lib::aes_block>);
    using plain_bid = std::tuple<float, std::uint16_t>;
    const std::array<plain_bid, 5> bids{plain_bid{2.5f, 0}, {7.0f, 1}, {2.5f, 2}, {-1.0f, 3}, {7.0f, 4}};
    std::array<std::uint8_t, 16> key{}, block{};
    for (std::uint8_t i = 0; i < 16; ++i) key[i] = i, block[i] = static_cast<std::uint8_t>(0x11 * i);  // FIPS-197 C.1
    const auto [sorted, ciphertext] = c.eval_plain(bids, key, block);
    CHECK(sorted == std::array<plain_bid, 5>{plain_bid{7.0f, 1}, {7.0f, 4}, {2.5f, 0}, {2.5f, 2}, {-1.0f, 3}});
    const std::array<std::uint8_t, 16> fips{0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                            0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
    CHECK(ciphertext == fips);
}

}  // namespace readme_example_tests

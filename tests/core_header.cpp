// <tandem/core.hpp> alone: a plaintext program compiles without libsodium,
// sockets or tandem's crypto/garbling/OT/network code,
// and it works. The include-guard probes come before doctest, so only
// core.hpp can have defined them.
#include <tandem/core.hpp>

namespace probe {
#if defined(sodium_H) || defined(sodium_core_H)
constexpr bool sodium = true;
#else
constexpr bool sodium = false;
#endif
#if defined(_SYS_SOCKET_H) || defined(_NETINET_IN_H)
constexpr bool sockets = true;
#else
constexpr bool sockets = false;
#endif
// crypto/target.hpp: included by every crypto, garbling, OT and session header.
#if defined(TANDEM_CRYPTO_BEGIN)
constexpr bool tandem_crypto = true;
#else
constexpr bool tandem_crypto = false;
#endif
}  // namespace probe

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <sstream>
#include <tuple>
#include <vector>

using tandem::input, tandem::party, tandem::secure_int;

TEST_CASE("core_header.pulls_in_nothing_heavy") {
    CHECK_MESSAGE(!probe::sodium, "<tandem/core.hpp> includes libsodium");
    CHECK_MESSAGE(!probe::sockets, "<tandem/core.hpp> includes socket headers");
    CHECK_MESSAGE(!probe::tandem_crypto, "<tandem/core.hpp> includes tandem's crypto/garbling/OT/session code");
}

TEST_CASE("core_header.compile_and_eval_plain") {
    auto c = tandem::compile(
        [](secure_int<32> a, secure_int<32> b) { return std::tuple{a + b, a > b}; },
        input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    CHECK(c.eval_plain(2, 3) == std::tuple<std::int32_t, bool>{5, false});
    CHECK(c.eval_plain(-7, -9) == std::tuple<std::int32_t, bool>{-16, true});
    CHECK(c.input_widths() == std::vector<std::size_t>{32, 32});
    CHECK(c.output_widths() == std::vector<std::size_t>{32, 1});

    // The same circuit untyped, its values as text (bits.hpp), and through Bristol.
    const std::vector<std::vector<bool>> all{tandem::bits_from_string("-7", 32), tandem::bits_from_string("0x10", 32)};
    auto out = tandem::eval_plain_bits(c, all);
    CHECK(tandem::decimal_from_bits(out[0], true) == "9");
    CHECK(tandem::hex_from_bits(out[0]) == "00000009");
    std::stringstream file;
    tandem::bristol::write(file, c);
    const tandem::circuit<> back = tandem::bristol::read(file, "core.txt");
    CHECK(tandem::eval_plain_bits(back, all) == out);
    CHECK(c.inputs_of(party::bob, all) == std::vector<std::vector<bool>>{all[1]});

    // The standard library comes with it.
    auto sorted = tandem::compile(
        [](std::array<secure_int<8>, 4> v) {
            tandem::sort(v);
            return v;
        },
        input<party::alice, std::array<secure_int<8>, 4>>);
    CHECK(sorted.eval_plain(std::array<std::int8_t, 4>{3, -1, 7, 0}) == std::array<std::int8_t, 4>{-1, 0, 3, 7});
    CHECK(c.eval_plain(1, 1) == std::tuple<std::int32_t, bool>{2, false});
}

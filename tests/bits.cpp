// tandem/bits.hpp: hex, decimal and bytes to and from the bits of untyped
// values, at widths around every word boundary, against references that do
// not share its code (unsigned __int128 arithmetic and printf up to 128 bits,
// decimal-string doubling and 128-bit chunks above), and every error.
#include <doctest/doctest.h>

#include "exception_text.hpp"
#include <tandem/bits.hpp>
#include <tandem/int128.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace bits_tests {

using tandem::bits_from_bytes;
using tandem::bits_from_decimal;
using tandem::bits_from_hex;
using tandem::bits_from_string;
using tandem::bytes_from_bits;
using tandem::decimal_from_bits;
using tandem::hex_from_bits;

namespace {

using u128 = tandem::uint128;

constexpr std::size_t widths[] = {0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 256};
constexpr std::uint64_t seed = 0x16b175u;

// --- references ---------------------------------------------------------------

/// Bits [lo, lo + n) of `bits` (n <= 128) as an integer.
u128 chunk(const std::vector<bool>& bits, std::size_t lo, std::size_t n) {
    u128 v = 0;
    for (std::size_t k = 0; k < n && lo + k < bits.size(); ++k)
        if (bits[lo + k]) v |= u128{1} << k;
    return v;
}

std::string printf_hex(u128 v, int digits) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(v >> 64),
                  static_cast<unsigned long long>(v));
    return std::string(buf + 32 - digits);
}

/// Reference hex: 128-bit chunks printed with printf, most significant first,
/// cut to ceil(width/4) digits.
std::string ref_hex(const std::vector<bool>& bits) {
    std::string out;
    for (std::size_t lo = 0; lo < bits.size(); lo += 128) out = printf_hex(chunk(bits, lo, 128), 32) + out;
    const std::size_t digits = (bits.size() + 3) / 4;
    return out.substr(out.size() - digits);
}

/// Decimal of a u128 by repeated division.
std::string dec_u128(u128 v) {
    if (v == 0) return "0";
    std::string s;
    for (; v != 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + int(v % 10)));
    return s;
}

/// Reference decimal at any width: a decimal string doubled once per bit,
/// most significant bit first (no binary division anywhere).
std::string dec_by_doubling(const std::vector<bool>& bits) {
    std::string d = "0";  // least significant digit first
    for (std::size_t j = bits.size(); j-- > 0;) {
        int carry = bits[j] ? 1 : 0;
        for (char& c : d) {
            const int v = (c - '0') * 2 + carry;
            c = static_cast<char>('0' + v % 10);
            carry = v / 10;
        }
        if (carry) d += static_cast<char>('0' + carry);
    }
    std::reverse(d.begin(), d.end());
    return d;
}

std::string ref_decimal(const std::vector<bool>& bits) {
    if (bits.size() <= 128) return dec_u128(chunk(bits, 0, 128));
    return dec_by_doubling(bits);
}

/// Two's complement negation, the textbook way: invert, add one.
std::vector<bool> ref_negate(std::vector<bool> bits) {
    for (std::size_t j = 0; j < bits.size(); ++j) bits[j] = !bits[j];
    for (std::size_t j = 0; j < bits.size(); ++j) {
        bits[j] = !bits[j];
        if (bits[j]) break;  // it was 0: the carry stops here
    }
    return bits;
}

std::string ref_signed_decimal(const std::vector<bool>& bits) {
    if (bits.empty() || !bits.back()) return ref_decimal(bits);
    if (bits.size() <= 64) {  // printf's own signed conversion
        // value - 2^size, in unsigned arithmetic (2^62 * 2 overflows a long long: UBSan)
        std::uint64_t u = chunk(bits, 0, 64);
        if (bits.size() < 64) u -= std::uint64_t{1} << bits.size();
        const long long v = static_cast<long long>(u);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%lld", v);
        return buf;
    }
    return "-" + ref_decimal(ref_negate(bits));
}

std::vector<std::uint8_t> ref_bytes(const std::vector<bool>& bits) {
    std::vector<std::uint8_t> bytes((bits.size() + 7) / 8);
    for (std::size_t i = 0; i < bytes.size(); ++i)  // byte i from the end holds bits [8i, 8i + 8)
        bytes[bytes.size() - 1 - i] = static_cast<std::uint8_t>(chunk(bits, 8 * i, 8));
    return bytes;
}

std::string with_separators(const std::string& digits, char sep, std::size_t group) {
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % group == 0) out += sep;
        out += digits[i];
    }
    return out;
}

std::string upper(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

/// 2^k in decimal (reference: doubling).
std::string pow2(std::size_t k) {
    std::vector<bool> b(k + 1);
    b[k] = true;
    return dec_by_doubling(b);
}

/// The values each width is tested with: edges, then random ones.
std::vector<std::vector<bool>> values_of_width(std::size_t w, std::mt19937_64& rng) {
    std::vector<std::vector<bool>> vs;
    vs.emplace_back(w, false);
    vs.emplace_back(w, true);
    if (w > 0) {
        std::vector<bool> one(w), top(w), below_top(w, true);
        one[0] = true;
        top[w - 1] = true;
        below_top[w - 1] = false;
        vs.push_back(one);
        vs.push_back(top);
        vs.push_back(below_top);
    }
    for (int t = 0; t < 40; ++t) {
        std::vector<bool> v(w);
        for (std::size_t j = 0; j < w; ++j) v[j] = (rng() & 1u) != 0;
        vs.push_back(v);
    }
    return vs;
}

}  // namespace

TEST_CASE("bits.references_agree") {
    // The two decimal references agree where both apply, and printf's signed
    // conversion agrees with negation (so the references check each other).
    std::mt19937_64 rng(seed);
    INFO("seed = " << seed);
    for (std::size_t w : {1, 7, 8, 63, 64, 65, 127, 128}) {
        for (const auto& v : values_of_width(w, rng)) {
            INFO("width = " << w << ", hex = " << ref_hex(v));
            CHECK(dec_u128(chunk(v, 0, 128)) == dec_by_doubling(v));
            if (w <= 64 && !v.empty() && v.back()) CHECK(ref_signed_decimal(v) == "-" + ref_decimal(ref_negate(v)));
        }
    }
}

TEST_CASE("bits.round_trips") {
    std::mt19937_64 rng(seed);
    INFO("seed = " << seed);
    for (std::size_t w : widths) {
        const auto vs = values_of_width(w, rng);
        for (std::size_t t = 0; t < vs.size(); ++t) {
            const std::vector<bool>& v = vs[t];
            const std::string hex = ref_hex(v), dec = ref_decimal(v), sdec = ref_signed_decimal(v);
            INFO("width = " << w << ", value " << t << " = 0x" << hex);
            REQUIRE(hex.size() == (w + 3) / 4);

            // hex
            CHECK(hex_from_bits(v) == hex);
            CHECK(bits_from_hex(hex.empty() ? "0" : hex, w) == v);
            CHECK(bits_from_hex("0x" + hex + (hex.empty() ? "0" : ""), w) == v);
            CHECK(bits_from_hex("0X" + upper(hex) + (hex.empty() ? "0" : ""), w) == v);
            if (!hex.empty()) {
                CHECK(bits_from_hex(with_separators(hex, '_', 4), w) == v);
                CHECK(bits_from_hex("0x" + with_separators(hex, '\'', 8), w) == v);
                CHECK(bits_from_hex("000" + hex, w) == v);  // leading zeros at any width
                CHECK(bits_from_string("0x" + hex, w) == v);
            }

            // decimal, unsigned and signed
            CHECK(decimal_from_bits(v) == dec);
            CHECK(decimal_from_bits(v, true) == sdec);
            CHECK(bits_from_decimal(dec, w) == v);
            CHECK(bits_from_string(dec, w) == v);
            CHECK(bits_from_decimal(with_separators(dec, '\'', 3), w) == v);
            CHECK(bits_from_decimal(with_separators(dec, '_', 3), w) == v);
            if (w > 0) {
                CHECK(bits_from_decimal(sdec, w) == v);
                CHECK(bits_from_string(sdec, w) == v);
            }

            // bytes: big-endian, ceil(w/8) of them; back at 8·ceil(w/8) bits, zero-extended
            const std::vector<std::uint8_t> bytes = ref_bytes(v);
            CHECK(bytes_from_bits(v) == bytes);
            std::vector<bool> widened = v;
            widened.resize(8 * bytes.size(), false);
            CHECK(bits_from_bytes(bytes) == widened);
            if (w % 8 == 0) CHECK(bits_from_hex(hex_from_bits(bits_from_bytes(bytes)) + "0", w + 4) ==
                                  bits_from_hex(hex + "0", w + 4));
        }
    }
}

TEST_CASE("bits.signed_limits") {
    for (std::size_t w : widths) {
        INFO("width = " << w);
        if (w == 0) {
            CHECK(bits_from_decimal("0", 0).empty());
            CHECK(bits_from_decimal("-0", 0).empty());
            CHECK(decimal_from_bits({}) == "0");
            CHECK(decimal_from_bits({}, true) == "0");
            CHECK(hex_from_bits({}).empty());
            CHECK(bytes_from_bits({}).empty());
            CHECK(bits_from_bytes({}).empty());
            continue;
        }
        const std::string half = pow2(w - 1);  // 2^(w-1)
        std::vector<bool> min(w), max(w, true), all(w, true);
        min[w - 1] = true;
        max[w - 1] = false;
        // -2^(w-1) and 2^(w-1) - 1, the signed limits; 2^w - 1, the unsigned one.
        CHECK(bits_from_decimal("-" + half, w) == min);
        CHECK(decimal_from_bits(min, true) == "-" + half);
        CHECK(decimal_from_bits(min) == half);
        const std::string max_dec = ref_decimal(max);
        CHECK(bits_from_decimal(max_dec, w) == max);
        CHECK(decimal_from_bits(max, true) == max_dec);
        CHECK(bits_from_decimal("-1", w) == all);
        CHECK(decimal_from_bits(all, true) == "-1");
        CHECK(bits_from_decimal(ref_decimal(all), w) == all);
        CHECK(bits_from_decimal("-0", w) == std::vector<bool>(w));
        CHECK(bits_from_decimal("+0", w) == std::vector<bool>(w));
        // One past each limit.
        const std::string two_w = pow2(w);
        CHECK(error_of([&] { bits_from_decimal(two_w, w); }) ==
              "decimal value '" + std::string(two_w.substr(0, 80)) + (two_w.size() > 80 ? "..." : "") +
                  "' does not fit in " + std::to_string(w) + " bits (at most 2^" + std::to_string(w) +
                  " - 1); pass a wider width or a smaller value");
        std::vector<bool> half_plus_one(w);  // 2^(w-1) + 1
        half_plus_one[0] = true;
        half_plus_one[w - 1] = true;
        const std::string below_min = w == 1 ? "2" : dec_by_doubling(half_plus_one);
        CHECK(error_of([&] { bits_from_decimal("-" + below_min, w); }) ==
              "decimal value '-" + below_min + "' does not fit in a signed " + std::to_string(w) +
                  "-bit value (at least -2^" + std::to_string(w - 1) + "); pass a wider width or a smaller value");
        // One hex digit too many, and the largest first digit that fits.
        CHECK(error_of([&] { bits_from_hex("1" + std::string((w + 3) / 4, '0'), w); })
                  .starts_with("hex value '1" + std::string((w + 3) / 4, '0') + "' does not fit in " +
                               std::to_string(w) + " bits"));
        const char first = "137f"[(w - 1) % 4];
        CHECK(bits_from_hex(first + std::string((w - 1) / 4, 'f'), w) == all);
        CHECK_THROWS_AS(bits_from_hex(std::string(1, first == 'f' ? '1' : char(first + 1)) +
                                          std::string((w - 1) / 4 + (first == 'f' ? 1 : 0), '0'),
                                      w),
                        tandem::usage_error);
    }
}

TEST_CASE("bits.separators_and_prefixes") {
    CHECK(bits_from_string("1'000'000", 20) == bits_from_hex("f4240", 20));
    CHECK(bits_from_string("1_000_000", 20) == bits_from_hex("0xF_4240", 20));
    CHECK(bits_from_hex("0xdead_beef", 32) == bits_from_hex("DEADBEEF", 32));
    CHECK(bits_from_hex("0XDEAD'BEEF", 32) == bits_from_decimal("3735928559", 32));
    CHECK(bits_from_string("0X10", 8) == bits_from_string("16", 8));
    CHECK(bits_from_string("+16", 8) == bits_from_string("16", 8));
}

TEST_CASE("bits.aes_key_order") {
    // FIPS-197 C.1: the key as 32 hex digits is one big-endian number, so its
    // first byte is bits 127..120 and its last byte bits 7..0.
    const auto key = bits_from_hex("000102030405060708090a0b0c0d0e0f", 128);
    const std::vector<std::uint8_t> bytes = bytes_from_bits(key);
    for (std::size_t i = 0; i < 16; ++i) CHECK(bytes[i] == i);
    CHECK(bits_from_bytes(bytes) == key);
    CHECK((key[0] && key[1] && key[2] && key[3] && !key[4]));  // 0x0f, the last byte, is bits 0..7
    CHECK(hex_from_bits(key) == "000102030405060708090a0b0c0d0e0f");
}

TEST_CASE("bits.errors") {
    const std::string wider = "; pass a wider width or a smaller value";
    // hex
    CHECK(error_of([] { bits_from_hex("", 8); }) == "hex value '' has no digits");
    CHECK(error_of([] { bits_from_hex("0x", 8); }) == "hex value '0x' has no digits");
    CHECK(error_of([] { bits_from_hex("0x__", 8); }) == "hex value '0x__' has no digits");
    const std::string digits_hint = "' (use 0-9, a-f, A-F, an optional 0x prefix, '_' separators)";
    CHECK(error_of([] { bits_from_hex("12g4", 16); }) ==
          "hex value '12g4' has a character that is not a hex digit: 'g" + digits_hint);
    CHECK(error_of([] { bits_from_hex("0x-1", 16); }) ==
          "hex value '0x-1' has a character that is not a hex digit: '-" + digits_hint);
    CHECK(error_of([] { bits_from_hex("0x 1", 16); }) ==
          "hex value '0x 1' has a character that is not a hex digit: ' " + digits_hint);
    // A typo is named even where the value is also too wide.
    CHECK(error_of([] { bits_from_hex("zz1", 0); }) ==
          "hex value 'zz1' has a character that is not a hex digit: 'z" + digits_hint);
    CHECK(error_of([] { bits_from_hex("1ff", 8); }) ==
          "hex value '1ff' does not fit in 8 bits (at most 2 hex digits, and the first may be smaller)" + wider);
    CHECK(error_of([] { bits_from_hex("0x10", 4); }) ==
          "hex value '0x10' does not fit in 4 bits (at most 1 hex digits, and the first may be smaller)" + wider);
    CHECK(error_of([] { bits_from_hex("8", 3); }) ==
          "hex value '8' does not fit in 3 bits (at most 1 hex digits, and the first may be smaller)" + wider);
    CHECK(error_of([] { bits_from_hex("1", 0); }) ==
          "hex value '1' does not fit in 0 bits (at most 0 hex digits, and the first may be smaller)" + wider);
    CHECK(bits_from_hex("7", 3) == std::vector<bool>{true, true, true});
    CHECK(bits_from_hex("0000", 0).empty());
    // A long value is cut in the message.
    const std::string long_hex(100, 'f');
    CHECK(error_of([&] { bits_from_hex(long_hex, 8); }) ==
          "hex value '" + std::string(80, 'f') +
              "...' does not fit in 8 bits (at most 2 hex digits, and the first may be smaller)" + wider);

    // decimal
    CHECK(error_of([] { bits_from_decimal("", 8); }) == "decimal value '' has no digits");
    CHECK(error_of([] { bits_from_decimal("-", 8); }) == "decimal value '-' has no digits");
    CHECK(error_of([] { bits_from_decimal("+", 8); }) == "decimal value '+' has no digits");
    CHECK(error_of([] { bits_from_decimal("_", 8); }) == "decimal value '_' has no digits");
    CHECK(error_of([] { bits_from_decimal("12a", 8); }) ==
          "value '12a' is neither decimal nor hex (hex needs 0x): 'a' is not a decimal digit");
    CHECK(error_of([] { bits_from_decimal("--5", 8); }) ==
          "value '--5' is neither decimal nor hex (hex needs 0x): '-' is not a decimal digit");
    CHECK(error_of([] { bits_from_decimal("1.5", 8); }) ==
          "value '1.5' is neither decimal nor hex (hex needs 0x): '.' is not a decimal digit");
    CHECK(error_of([] { bits_from_decimal(" 5", 8); }) ==
          "value ' 5' is neither decimal nor hex (hex needs 0x): ' ' is not a decimal digit");
    CHECK(error_of([] { bits_from_decimal("256", 8); }) ==
          "decimal value '256' does not fit in 8 bits (at most 2^8 - 1)" + wider);
    CHECK(error_of([] { bits_from_decimal("-129", 8); }) ==
          "decimal value '-129' does not fit in a signed 8-bit value (at least -2^7)" + wider);
    CHECK(error_of([] { bits_from_decimal("-300", 8); }) ==
          "decimal value '-300' does not fit in a signed 8-bit value (at least -2^7)" + wider);
    CHECK(error_of([] { bits_from_decimal("1", 0); }) ==
          "decimal value '1' does not fit in 0 bits (only 0 does)" + wider);
    CHECK(error_of([] { bits_from_decimal("-1", 0); }) ==
          "decimal value '-1' does not fit in 0 bits (only 0 does)" + wider);

    // bits_from_string: hex only with its prefix
    CHECK(error_of([] { bits_from_string("ff", 8); }) ==
          "value 'ff' is neither decimal nor hex (hex needs 0x): 'f' is not a decimal digit");
    CHECK(error_of([] { bits_from_string("-0x1", 8); }) ==
          "value '-0x1' is neither decimal nor hex (hex needs 0x): 'x' is not a decimal digit");
    CHECK(error_of([] { bits_from_string("0x1g", 8); }) ==
          "hex value '0x1g' has a character that is not a hex digit: 'g" + digits_hint);
}

}  // namespace bits_tests

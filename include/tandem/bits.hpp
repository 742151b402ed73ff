// tandem/bits.hpp — the values of untyped circuits: hex, decimal and bytes
// to and from the bits of one input or output value.
//
// An untyped circuit (a Bristol file, circuit<>) takes and returns each value
// as std::vector<bool>, bit j = bit j of the value as an integer (least
// significant first), as Bristol Fashion numbers a value's wires. These
// helpers convert at any width:
//
//   auto key = tandem::bits_from_hex("2b7e151628aed2a6abf7158809cf4f3c", 128);
//   auto n = tandem::bits_from_string("-5", 32);          // decimal, two's complement
//   std::string hex = tandem::hex_from_bits(out[0]);      // width/4 digits, rounded up
//
// A hex string is one big-endian number, so the 32 digits of an AES key
// written as bytes (FIPS-197 order) give the bits the Bristol AES-128 circuit
// expects. A value that does not fit its width is refused with a
// usage_error, never truncated. Nothing here depends on the rest of tandem.
#pragma once

#include <tandem/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tandem {

namespace detail::bits_text {

inline int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

inline std::string quoted(std::string_view s) {
    constexpr std::size_t shown = 80;
    // Appended in place: "'" + std::string(...) inserts at the front, where
    // GCC 12 at -O2 and above sees a copy bound it cannot rule out and warns
    // (-Wstringop-overflow) in every program that includes this header.
    std::string out = "'";
    out.append(s.substr(0, shown));
    out.append(s.size() > shown ? "...'" : "'");
    return out;
}

inline bool has_hex_prefix(std::string_view s) noexcept {
    return s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/// Digits with '_' and '\'' separators removed (1'000'000, 0xdead_beef).
inline std::string without_separators(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        if (c != '_' && c != '\'') out += c;
    return out;
}

/// bits = bits * 10 + digit, at the bits' width; false if it overflowed.
inline bool times_ten_plus(std::vector<bool>& bits, unsigned digit) {
    unsigned carry = digit;
    for (std::size_t j = 0; j < bits.size(); ++j) {
        const unsigned v = unsigned(bits[j]) * 10u + carry;
        bits[j] = (v & 1u) != 0;
        carry = v >> 1;
    }
    return carry == 0;
}

/// bits = -bits (two's complement, modulo 2^width).
inline void negate_bits(std::vector<bool>& bits) {
    bool carry = true;
    for (std::size_t j = 0; j < bits.size(); ++j) {
        const bool b = !bits[j];
        bits[j] = b != carry;
        carry = b && carry;
    }
}

}  // namespace detail::bits_text

/// `hex` (digits 0-9a-fA-F, an optional 0x or 0X prefix, '_' or '\''
/// separators) as a value of `width` bits: one big-endian number,
/// zero-extended. Leading zeros are allowed at any width; a value with a set
/// bit at or above `width` is refused (usage_error), never truncated.
inline std::vector<bool> bits_from_hex(std::string_view hex, std::size_t width) {
    namespace bt = detail::bits_text;
    std::string_view body = hex;
    if (bt::has_hex_prefix(body)) body.remove_prefix(2);
    const std::string digits = bt::without_separators(body);
    if (digits.empty()) throw usage_error("hex value " + bt::quoted(hex) + " has no digits");
    for (char c : digits)  // every character first, so a typo is named even where the value is too wide
        if (bt::hex_digit(c) < 0)
            throw usage_error("hex value " + bt::quoted(hex) + " has a character that is not a hex digit: '" +
                              std::string(1, c) + "' (use 0-9, a-f, A-F, an optional 0x prefix, '_' separators)");
    std::vector<bool> bits(width);
    std::size_t j = 0;  // bit of the next digit's least significant bit
    for (auto it = digits.rbegin(); it != digits.rend(); ++it, j += 4) {
        const int v = bt::hex_digit(*it);
        for (std::size_t k = 0; k < 4; ++k) {
            if (((v >> k) & 1) == 0) continue;
            if (j + k >= width)
                throw usage_error("hex value " + bt::quoted(hex) + " does not fit in " + std::to_string(width) +
                                  " bits (at most " + std::to_string((width + 3) / 4) +
                                  " hex digits, and the first may be smaller); pass a wider width or a smaller value");
            bits[j + k] = true;
        }
    }
    return bits;
}

/// `dec` (digits, an optional leading '-' or '+', '\'' or '_' separators)
/// as a value of `width` bits. A negative number is stored in two's
/// complement and must fit a signed value of that width; a non-negative one
/// must fit an unsigned one (so "255" and "-1" are both the 8-bit value 0xff).
/// A value that does not fit is refused (usage_error), never truncated.
inline std::vector<bool> bits_from_decimal(std::string_view dec, std::size_t width) {
    namespace bt = detail::bits_text;
    std::string_view body = dec;
    const bool negative = !body.empty() && body[0] == '-';
    if (negative || (!body.empty() && body[0] == '+')) body.remove_prefix(1);
    const std::string digits = bt::without_separators(body);
    if (digits.empty()) throw usage_error("decimal value " + bt::quoted(dec) + " has no digits");
    for (char c : digits)
        if (c < '0' || c > '9')
            throw usage_error("value " + bt::quoted(dec) + " is neither decimal nor hex (hex needs 0x): '" +
                              std::string(1, c) + "' is not a decimal digit");
    const auto too_wide = [&] {
        const std::string w = std::to_string(width);
        const std::string limit = width == 0 ? w + " bits (only 0 does)"
                                  : negative ? "a signed " + w + "-bit value (at least -2^" + std::to_string(width - 1) + ")"
                                             : w + " bits (at most 2^" + w + " - 1)";
        return usage_error("decimal value " + bt::quoted(dec) + " does not fit in " + limit +
                           "; pass a wider width or a smaller value");
    };
    std::vector<bool> bits(width);
    for (char c : digits)
        if (!bt::times_ten_plus(bits, static_cast<unsigned>(c - '0'))) throw too_wide();
    if (negative) {
        // -v fits iff v <= 2^(width-1): the top bit clear, or exactly 2^(width-1); or v == 0.
        bool zero = true;
        for (bool b : bits) zero = zero && !b;
        bool fits = zero || (width > 0 && !bits[width - 1]);
        if (!fits && width > 0) {
            fits = true;
            for (std::size_t j = 0; j + 1 < width; ++j) fits = fits && !bits[j];
        }
        if (!fits) throw too_wide();
        bt::negate_bits(bits);
    }
    return bits;
}

/// A value as a user types it: hex with a 0x prefix, otherwise decimal
/// (bits_from_hex, bits_from_decimal).
inline std::vector<bool> bits_from_string(std::string_view text, std::size_t width) {
    if (detail::bits_text::has_hex_prefix(text)) return bits_from_hex(text, width);
    return bits_from_decimal(text, width);
}

/// Lower-case hex of a value, ceil(bits/4) digits with leading zeros, no
/// prefix (so a value of width 0 gives "").
inline std::string hex_from_bits(const std::vector<bool>& bits) {
    static constexpr char digits[] = "0123456789abcdef";
    const std::size_t n = (bits.size() + 3) / 4;
    std::string hex(n, '0');
    for (std::size_t i = 0; i < n; ++i) {
        unsigned v = 0;
        for (std::size_t k = 0; k < 4 && 4 * i + k < bits.size(); ++k) v |= unsigned(bits[4 * i + k]) << k;
        hex[n - 1 - i] = digits[v];
    }
    return hex;
}

/// A value in decimal; with `is_signed`, its top bit is the sign (two's
/// complement). A value of width 0 is "0". Quadratic in the width: meant for
/// values a person reads, not for megabit ones.
inline std::string decimal_from_bits(std::vector<bool> bits, bool is_signed = false) {
    const bool negative = is_signed && !bits.empty() && bits.back();
    if (negative) detail::bits_text::negate_bits(bits);
    std::string out;
    // Repeated division by 10, most significant bit first.
    bool nonzero = true;
    while (nonzero) {
        unsigned rem = 0;
        nonzero = false;
        for (std::size_t j = bits.size(); j-- > 0;) {
            const unsigned v = rem * 2 + unsigned(bits[j]);
            bits[j] = v >= 10;
            rem = v % 10;
            nonzero = nonzero || bits[j];
        }
        out.insert(out.begin(), static_cast<char>('0' + rem));
    }
    if (negative) out.insert(out.begin(), '-');
    return out;
}

/// Bytes as one big-endian number of 8·size bits (the first byte is the most
/// significant), as bits_from_hex reads their hex.
inline std::vector<bool> bits_from_bytes(std::span<const std::uint8_t> bytes) {
    std::vector<bool> bits(8 * bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i)
        for (std::size_t k = 0; k < 8; ++k) bits[8 * (bytes.size() - 1 - i) + k] = ((bytes[i] >> k) & 1u) != 0;
    return bits;
}

/// The inverse of bits_from_bytes: ceil(bits/8) bytes, most significant first.
inline std::vector<std::uint8_t> bytes_from_bits(const std::vector<bool>& bits) {
    const std::size_t n = (bits.size() + 7) / 8;
    std::vector<std::uint8_t> bytes(n);
    for (std::size_t j = 0; j < bits.size(); ++j)
        if (bits[j]) bytes[n - 1 - j / 8] = static_cast<std::uint8_t>(bytes[n - 1 - j / 8] | (1u << (j % 8)));
    return bytes;
}

}  // namespace tandem

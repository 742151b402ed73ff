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

namespace detail {

inline int hex_digit(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

inline std::string quoted(std::string_view s) {
    constexpr std::size_t shown = 80;
    return "'" + std::string(s.substr(0, shown)) + (s.size() > shown ? "…'" : "'");
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

inline void negate(std::vector<bool>& bits) {
    bool carry = true;
    for (std::size_t j = 0; j < bits.size(); ++j) {
        const bool b = !bits[j];
        bits[j] = b != carry;
        carry = b && carry;
    }
}

}  // namespace detail

/// `hex` (digits 0-9a-fA-F, an optional 0x prefix, '_' separators) as a
/// value of `width` bits: one big-endian number, zero-extended.
inline std::vector<bool> bits_from_hex(std::string_view hex, std::size_t width) {
    const std::string original(hex);
    std::string digits = detail::without_separators(hex);
    std::string_view d = digits;
    if (d.size() >= 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) d.remove_prefix(2);
    if (d.empty()) throw usage_error("hex value " + detail::quoted(original) + " has no digits");
    std::vector<bool> bits(width);
    std::size_t j = 0;  // bit of the next digit's least significant bit
    for (auto it = d.rbegin(); it != d.rend(); ++it, j += 4) {
        const int v = detail::hex_digit(*it);
        if (v < 0)
            throw usage_error("hex value " + detail::quoted(original) + " has a character that is not a hex digit: '" +
                              std::string(1, *it) + "'");
        for (std::size_t k = 0; k < 4; ++k) {
            if (((v >> k) & 1) == 0) continue;
            if (j + k >= width)
                throw usage_error("hex value " + detail::quoted(original) + " does not fit in " +
                                  std::to_string(width) + " bits (at most " + std::to_string((width + 3) / 4) +
                                  " hex digits, and the first may be smaller)");
            bits[j + k] = true;
        }
    }
    return bits;
}

/// `dec` (digits, an optional leading '-', '\'' or '_' separators) as a value
/// of `width` bits. A negative number is stored in two's complement and must
/// fit a signed value of that width; a non-negative one must fit an unsigned
/// one (so "255" and "-1" are both the 8-bit value 0xff).
inline std::vector<bool> bits_from_decimal(std::string_view dec, std::size_t width) {
    const std::string original(dec);
    const std::string digits = detail::without_separators(dec);
    std::string_view d = digits;
    const bool negative = !d.empty() && d[0] == '-';
    if (negative || (!d.empty() && d[0] == '+')) d.remove_prefix(1);
    if (d.empty()) throw usage_error("decimal value " + detail::quoted(original) + " has no digits");
    std::vector<bool> bits(width);
    for (char c : d) {
        if (c < '0' || c > '9')
            throw usage_error("value " + detail::quoted(original) + " is neither decimal nor hex (hex needs 0x): '" +
                              std::string(1, c) + "' is not a decimal digit");
        if (!detail::times_ten_plus(bits, static_cast<unsigned>(c - '0')))
            throw usage_error("decimal value " + detail::quoted(original) + " does not fit in " +
                              std::to_string(width) + " bits");
    }
    if (negative) {
        // |v| <= 2^(width-1): the top bit clear, or exactly 2^(width-1).
        bool fits = width > 0 && !bits[width - 1];
        if (width > 0 && bits[width - 1]) {
            fits = true;
            for (std::size_t j = 0; j + 1 < width; ++j) fits = fits && !bits[j];
        }
        bool zero = true;
        for (bool b : bits) zero = zero && !b;
        if (!fits && !zero)
            throw usage_error("decimal value " + detail::quoted(original) + " does not fit in a signed " +
                              std::to_string(width) + "-bit value");
        detail::negate(bits);
    }
    return bits;
}

/// A value as a user types it: hex with a 0x prefix, otherwise decimal
/// (bits_from_hex, bits_from_decimal).
inline std::vector<bool> bits_from_string(std::string_view text, std::size_t width) {
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return bits_from_hex(text, width);
    return bits_from_decimal(text, width);
}

/// Lower-case hex of a value, ceil(bits/4) digits with leading zeros, no prefix.
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

/// A value in decimal; with `is_signed`, its top bit is the sign (two's complement).
inline std::string decimal_from_bits(std::vector<bool> bits, bool is_signed = false) {
    const bool negative = is_signed && !bits.empty() && bits.back();
    if (negative) detail::negate(bits);
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

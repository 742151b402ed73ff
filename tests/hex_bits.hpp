// Test helper: 128-bit values as hex strings <-> Bristol input/output bits.
#pragma once

#include <string>
#include <vector>

/// A 16-byte hex string as Bristol bits: big-endian integer, bit 0 = lsb of the last byte.
inline std::vector<bool> bits_of_hex(const std::string& hex) {
    std::vector<bool> bits(128);
    for (std::size_t byte = 0; byte < 16; ++byte) {
        const auto v = static_cast<unsigned>(std::stoul(hex.substr(2 * byte, 2), nullptr, 16));
        for (unsigned k = 0; k < 8; ++k) bits[8 * (15 - byte) + k] = ((v >> k) & 1u) != 0;
    }
    return bits;
}

/// The inverse of bits_of_hex.
inline std::string hex_of_bits(const std::vector<bool>& bits) {
    std::string hex;
    const char* digits = "0123456789abcdef";
    for (std::size_t byte = 0; byte < 16; ++byte) {
        unsigned v = 0;
        for (unsigned k = 0; k < 8; ++k) v |= unsigned(bits[8 * (15 - byte) + k]) << k;
        hex += digits[v >> 4];
        hex += digits[v & 15];
    }
    return hex;
}

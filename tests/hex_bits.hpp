// Test helper: 128-bit values as 32 hex digits <-> Bristol input/output bits,
// now a thin wrapper over <tandem/bits.hpp>.
#pragma once

#include <tandem/bits.hpp>

#include <string>
#include <vector>

/// 32 hex digits as Bristol bits: a big-endian integer, bit 0 = lsb of the last byte.
inline std::vector<bool> bits_of_hex(const std::string& hex) { return tandem::bits_from_hex(hex, 128); }

/// The inverse of bits_of_hex.
inline std::string hex_of_bits(const std::vector<bool>& bits) { return tandem::hex_from_bits(bits); }

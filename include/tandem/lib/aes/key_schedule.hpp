// tandem/lib/aes/key_schedule.hpp — AES key expansion (FIPS-197 §5.2), in
// plain C++ for a key owner and as a circuit for a secret key.
//
//   auto rk = tandem::lib::aes_expand_key(key);   // std::array<std::uint8_t, K> -> round-key bytes
//   auto rk = tandem::lib::aes_expand_key(skey);  // std::array<secure_uint<8>, K> -> secure round keys
//
// Keys are K = 16, 24 or 32 bytes (AES-128, -192, -256) in FIPS-197 order:
// key byte j is the j-th byte of the key as written in the standard's
// examples. The result is the key schedule w[0..4(Nr+1)) as bytes, word i
// being bytes 4i..4i+3 (so round key r is bytes 16r..16r+15, in the order
// of the state's bytes): 176, 208 or 240 bytes for Nr = 10, 12, 14 rounds.
//
// AND counts of the secure expansion (SubWord is 4 S-boxes of 32 ANDs, see
// sbox.hpp): AES-128 10 SubWords = 1,280 ANDs; AES-192 8 SubWords = 1,024;
// AES-256 13 SubWords (7 after RotWord, 6 at i mod 8 = 4) = 1,664. A public
// key folds to constants (0 ANDs).
#pragma once

#include <tandem/dsl/integer.hpp>
#include <tandem/lib/aes/sbox.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace tandem {
namespace lib {

/// Nr, the number of rounds for a key of key_bytes bytes (FIPS-197 §5,
/// Figure 4): 10, 12 or 14; 0 for any other size.
constexpr std::size_t aes_rounds(std::size_t key_bytes) noexcept {
    return key_bytes == 16 ? 10 : key_bytes == 24 ? 12 : key_bytes == 32 ? 14 : 0;
}

/// The size of the expanded key in bytes, 16 (Nr + 1): 176, 208 or 240.
constexpr std::size_t aes_round_key_bytes(std::size_t key_bytes) noexcept { return 16 * (aes_rounds(key_bytes) + 1); }

/// A secret AES block (16 bytes, FIPS-197 order).
using aes_block = std::array<secure_uint<8>, 16>;
/// A secret AES key of K bytes (16, 24 or 32).
template <std::size_t K>
using aes_key = std::array<secure_uint<8>, K>;
/// The secret expanded key of a K-byte key (176, 208 or 240 bytes).
template <std::size_t K>
using aes_round_keys = std::array<secure_uint<8>, aes_round_key_bytes(K)>;

}  // namespace lib

namespace detail {

template <std::size_t K>
constexpr void check_aes_key_size() {
    static_assert(K == 16 || K == 24 || K == 32,
                  "tandem::lib AES: the key must be 16, 24 or 32 bytes (AES-128, AES-192, AES-256)");
}

/// FIPS-197 §5.2 (Figure 11) on bytes of any type that has ^ (std::uint8_t
/// or secure_uint<8>); sub is the S-box on one byte.
template <class Byte, std::size_t K, class Sub>
constexpr std::array<Byte, lib::aes_round_key_bytes(K)> aes_expand(const std::array<Byte, K>& key, Sub&& sub) {
    check_aes_key_size<K>();
    constexpr std::size_t nk = K / 4;
    constexpr std::size_t words = lib::aes_round_key_bytes(K) / 4;
    std::array<Byte, lib::aes_round_key_bytes(K)> w{};
    for (std::size_t j = 0; j < K; ++j) w[j] = key[j];
    std::uint8_t rcon = 0x01;  // x^(i/Nk - 1) in GF(2^8), the first byte of Rcon[i/Nk]
    for (std::size_t i = nk; i < words; ++i) {
        std::array<Byte, 4> temp{w[4 * i - 4], w[4 * i - 3], w[4 * i - 2], w[4 * i - 1]};
        if (i % nk == 0) {
            // temp = SubWord(RotWord(temp)) xor Rcon[i/Nk]
            temp = {sub(temp[1]), sub(temp[2]), sub(temp[3]), sub(temp[0])};
            temp[0] = Byte(temp[0] ^ rcon);
            rcon = aes_gf_mul(rcon, 0x02);
        } else if (nk > 6 && i % nk == 4) {
            temp = {sub(temp[0]), sub(temp[1]), sub(temp[2]), sub(temp[3])};
        }
        for (std::size_t b = 0; b < 4; ++b) w[4 * i + b] = Byte(w[4 * (i - nk) + b] ^ temp[b]);
    }
    return w;
}

}  // namespace detail

namespace lib {

/// The key owner's key expansion in plain C++ (FIPS-197 §5.2): the
/// 176/208/240 round-key bytes for a 16/24/32-byte key. Give the result to
/// aes_encrypt_expanded as a secret input.
template <std::size_t K>
constexpr std::array<std::uint8_t, aes_round_key_bytes(K)> aes_expand_key(const std::array<std::uint8_t, K>& key) {
    return detail::aes_expand(key, [](std::uint8_t b) { return detail::aes_sbox_table[b]; });
}

/// The key expansion of a secret key, in the circuit (FIPS-197 §5.2): 1,280,
/// 1,024 or 1,664 ANDs for AES-128/192/256. Compute it once to encrypt many
/// blocks under one key with aes_encrypt_expanded.
template <std::size_t K>
aes_round_keys<K> aes_expand_key(const aes_key<K>& key) {
    return detail::aes_expand(key, [](const secure_uint<8>& b) { return aes_sbox(b); });
}

}  // namespace lib
}  // namespace tandem

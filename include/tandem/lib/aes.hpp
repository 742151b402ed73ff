// tandem/lib/aes.hpp — AES-128/192/256 encryption (FIPS-197) as secure
// functions.
//
//   using namespace tandem;
//   auto c = compile([](const lib::aes_key<16>& k, const lib::aes_block& b) { return lib::aes_encrypt(k, b); },
//                    input<party::alice, lib::aes_key<16>>, input<party::bob, lib::aes_block>);
//   std::array<std::uint8_t, 16> ct = c.eval_plain(key, plaintext);
//
//   // The key owner expands the key herself; the circuit skips the schedule:
//   auto rk = lib::aes_expand_key(key);                          // plain, 176 bytes
//   auto e = compile([](const lib::aes_round_keys<16>& k, const lib::aes_block& b) {
//                        return lib::aes_encrypt_expanded(k, b); }, ...);
//
// Conventions: blocks, keys and round keys are arrays of bytes in FIPS-197
// order — byte j of the input block is in_j of §3.4, so state s[r][c] is
// byte r + 4c, and the plain types are std::array<std::uint8_t, N>. Bit i of
// a byte is the coefficient of x^i (bit 7 is the most significant). The
// expanded key is the schedule of key_schedule.hpp (round key r is bytes
// 16r..16r+15). Keys are 16, 24 or 32 bytes; another size does not compile.
//
// Only SubBytes costs ANDs: every S-box is the 32-AND circuit of Boyar and
// Peralta (sbox.hpp); ShiftRows, MixColumns and AddRoundKey are XORs and
// wiring. Exact AND counts for a secret key and block:
//
//                         rounds  S-boxes      ANDs   AND depth
//   aes_encrypt  AES-128      10   160 + 40   6,400          60
//                AES-192      12   192 + 32   7,168          72
//                AES-256      14   224 + 52   8,832          84
//   aes_encrypt_expanded 128  10        160   5,120          60
//                        192  12        192   6,144          72
//                        256  14        224   7,168          84
//
// (the first three equal the Bristol Fashion AES circuits; AES-128 records
// 23,752 XORs where the Bristol file has 28,176). Public bytes
// fold while recording: a public key (aes_encrypt(std::array<std::uint8_t,
// K>, block)) costs only the 16 S-boxes per round, as expanded.
// To encrypt several blocks under one secret key, expand it once with
// aes_expand_key(aes_key<K>) and call aes_encrypt_expanded per block (it
// reads the round keys only, so it runs inside a parallel_for).
#pragma once

#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/lib/aes/key_schedule.hpp>
#include <tandem/lib/aes/sbox.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace tandem {

namespace detail {

/// xtime: b · x in GF(2^8) (FIPS-197 §4.2.1), a shift and a conditional
/// XOR with 0x1b — XORs only.
inline secure_uint<8> aes_xtime(const secure_uint<8>& b) {
    const secure_bit hi = b[7];
    secure_uint<8> out;
    out.set_bit(0, hi);
    out.set_bit(1, b[0] ^ hi);
    out.set_bit(2, b[1]);
    out.set_bit(3, b[2] ^ hi);
    out.set_bit(4, b[3] ^ hi);
    out.set_bit(5, b[4]);
    out.set_bit(6, b[5]);
    out.set_bit(7, b[6]);
    return out;
}

/// AddRoundKey (FIPS-197 §5.1.4) with round key r of the schedule w.
template <std::size_t R>
void aes_add_round_key(lib::aes_block& s, const std::array<secure_uint<8>, R>& w, std::size_t r) {
    for (std::size_t j = 0; j < 16; ++j) s[j] = s[j] ^ w[16 * r + j];
}

/// SubBytes then ShiftRows (FIPS-197 §5.1.1, §5.1.2): s'[r][c] = S(s[r][(c + r) mod 4]).
inline lib::aes_block aes_sub_shift(const lib::aes_block& s) {
    lib::aes_block out;
    for (std::size_t c = 0; c < 4; ++c)
        for (std::size_t r = 0; r < 4; ++r) out[r + 4 * c] = lib::aes_sbox(s[r + 4 * ((c + r) % 4)]);
    return out;
}

/// MixColumns (FIPS-197 §5.1.3). With t = a0 + a1 + a2 + a3, the column
/// (2a0 + 3a1 + a2 + a3, …) is a_i + t + xtime(a_i + a_(i+1)), i mod 4.
inline void aes_mix_columns(lib::aes_block& s) {
    for (std::size_t c = 0; c < 4; ++c) {
        const std::array<secure_uint<8>, 4> a{s[4 * c], s[4 * c + 1], s[4 * c + 2], s[4 * c + 3]};
        const secure_uint<8> t = a[0] ^ a[1] ^ a[2] ^ a[3];
        for (std::size_t i = 0; i < 4; ++i) s[4 * c + i] = a[i] ^ t ^ aes_xtime(a[i] ^ a[(i + 1) % 4]);
    }
}

}  // namespace detail

namespace lib {

/// Encrypts one block under an expanded key (FIPS-197 §5.1, Figure 5):
/// round_keys are the 176, 208 or 240 bytes of aes_expand_key for AES-128,
/// -192 or -256. 5,120 / 6,144 / 7,168 ANDs.
template <std::size_t R>
aes_block aes_encrypt_expanded(const std::array<secure_uint<8>, R>& round_keys, const aes_block& block) {
    static_assert(R == aes_round_key_bytes(16) || R == aes_round_key_bytes(24) || R == aes_round_key_bytes(32),
                  "tandem::lib::aes_encrypt_expanded: the round keys must be 176, 208 or 240 bytes "
                  "(aes_expand_key of a 16-, 24- or 32-byte key)");
    constexpr std::size_t rounds = R / 16 - 1;
    aes_block s = block;
    detail::aes_add_round_key(s, round_keys, 0);
    for (std::size_t r = 1; r < rounds; ++r) {
        s = detail::aes_sub_shift(s);
        detail::aes_mix_columns(s);
        detail::aes_add_round_key(s, round_keys, r);
    }
    s = detail::aes_sub_shift(s);  // the last round has no MixColumns
    detail::aes_add_round_key(s, round_keys, rounds);
    return s;
}

/// Encrypts one block under a 16-, 24- or 32-byte key, the key schedule
/// computed in the circuit (FIPS-197 §5.1, §5.2): 6,400 / 7,168 / 8,832
/// ANDs for AES-128/192/256.
template <std::size_t K>
aes_block aes_encrypt(const aes_key<K>& key, const aes_block& block) {
    detail::check_aes_key_size<K>();
    return aes_encrypt_expanded(aes_expand_key(key), block);
}

/// Encrypts a secret block under a public key (known to both parties when
/// the function is written): the schedule is computed in plain C++ and the
/// round keys fold into the rounds, so 5,120 / 6,144 / 7,168 ANDs.
template <std::size_t K>
aes_block aes_encrypt(const std::array<std::uint8_t, K>& public_key, const aes_block& block) {
    detail::check_aes_key_size<K>();
    const auto plain = aes_expand_key(public_key);
    aes_round_keys<K> round_keys;
    for (std::size_t j = 0; j < plain.size(); ++j) round_keys[j] = plain[j];
    return aes_encrypt_expanded(round_keys, block);
}

}  // namespace lib
}  // namespace tandem

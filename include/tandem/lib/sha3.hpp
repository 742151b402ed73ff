// tandem/lib/sha3.hpp — Keccak-f[1600] and SHA-3 (FIPS 202) as secure functions.
//
//   tandem::lib::keccak_f1600(state)   the permutation Keccak-p[1600, 24] (§3.3, §3.4)
//   tandem::lib::sha3_256(message)     SHA3-256 of a message of public length (§6.1)
//   tandem::lib::sha3<bits>(message)   SHA3-224/256/384/512 likewise
//
// Conventions, as in FIPS 202: the state is 25 lanes of 64 bits, lane x + 5y
// holding A[x, y, 0..63] with z = bit 0 the least significant bit of the lane
// (§3.1.2). Message bytes enter the lanes little-endian (byte 8i + j is byte j
// of lane i) with bits least significant first, which is the standard's bit
// order for whole bytes (§B.1); the digest bytes come out the same way, in
// the order of the usual hex string. The padding (SHA-3 suffix 01 and pad10*1,
// §5.1, §6.1) depends only on the public length, so it is constants and free.
//
// AND gates (asserted in tests/lib_sha.cpp): only χ has any, A ^ (~B & C) on
// every bit, so keccak_f1600 on a secret state is 24 × 1,600 = 38,400 (as the
// Bristol file). A sponge's last χ computes only the lanes it squeezes (4 for
// SHA3-256: 256 ANDs instead of 1,600), and lanes still public fold:
//   SHA3-256 of a 3-byte message (one permutation):     35,461
//            (38,400 - 1,344 in the last χ - 1,589 folded in the first round
//             - 6 that compute what another AND of it does, merged at lay-out)
//   SHA3-256 of a 200-byte message (two permutations):  75,456 = 2 × 38,400 - 1,344
#pragma once

#include <tandem/dsl/integer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace tandem::lib {

/// A Keccak-f[1600] state: 25 lanes of 64 bits, lane (x, y) at 5y + x.
using keccak_state = std::array<secure_uint<64>, 25>;

namespace detail {

/// rc(t) of FIPS 202 Algorithm 5: the output bit of an 8-bit LFSR.
constexpr bool keccak_rc_bit(std::size_t t) {
    if (t % 255 == 0) return true;
    unsigned r = 1;  // R = 10000000, R[0] as bit 0
    for (std::size_t i = 1; i <= t % 255; ++i) {
        r <<= 1;  // R = 0 || R
        const unsigned r8 = (r >> 8) & 1u;
        r ^= r8 | (r8 << 4) | (r8 << 5) | (r8 << 6);
        r &= 0xffu;  // Trunc_8
    }
    return (r & 1u) != 0;
}

/// The round constants of ι (FIPS 202 Algorithm 6): RC[2^j - 1] = rc(j + 7 i_r).
constexpr std::array<std::uint64_t, 24> keccak_round_constants() {
    std::array<std::uint64_t, 24> rc{};
    for (std::size_t round = 0; round < 24; ++round)
        for (std::size_t j = 0; j <= 6; ++j)
            if (keccak_rc_bit(j + 7 * round)) rc[round] |= std::uint64_t{1} << ((std::size_t{1} << j) - 1);
    return rc;
}

/// The offsets of ρ (FIPS 202 Algorithm 2), lane x + 5y: (t + 1)(t + 2)/2 mod 64
/// along the walk (x, y) -> (y, 2x + 3y mod 5) from (1, 0).
constexpr std::array<unsigned, 25> keccak_rho_offsets() {
    std::array<unsigned, 25> r{};
    std::size_t x = 1, y = 0;
    for (std::size_t t = 0; t < 24; ++t) {
        r[x + 5 * y] = static_cast<unsigned>(((t + 1) * (t + 2) / 2) % 64);
        const std::size_t nx = y, ny = (2 * x + 3 * y) % 5;
        x = nx;
        y = ny;
    }
    return r;
}

inline constexpr std::array<std::uint64_t, 24> keccak_rc = keccak_round_constants();
inline constexpr std::array<unsigned, 25> keccak_rho = keccak_rho_offsets();

/// Rotation towards higher z (free): ROT(x, n)[z] = x[z - n mod 64].
inline secure_uint<64> rotl64(const secure_uint<64>& v, unsigned n) { return n == 0 ? v : (v << n) ^ (v >> (64 - n)); }

}  // namespace detail

namespace detail {

/// Keccak-f[1600] computing only lanes [0, lanes_out) of the result (the
/// rest are left public zeros): a sponge's last permutation needs only the
/// lanes it squeezes, and the last χ is the only step that can skip work.
inline keccak_state keccak_f1600_lanes(keccak_state a, std::size_t lanes_out) {
    for (std::size_t round = 0; round < 24; ++round) {
        // θ (§3.2.1): XOR each lane with the parities of two neighbouring columns.
        std::array<secure_uint<64>, 5> c, d;
        for (std::size_t x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (std::size_t x = 0; x < 5; ++x) d[x] = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
        for (std::size_t i = 0; i < 25; ++i) a[i] = a[i] ^ d[i % 5];
        // ρ and π (§3.2.2–3.2.3): B[y, 2x + 3y] = ROT(A[x, y], r[x, y]).
        keccak_state b;
        for (std::size_t x = 0; x < 5; ++x)
            for (std::size_t y = 0; y < 5; ++y)
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(a[x + 5 * y], keccak_rho[x + 5 * y]);
        // χ (§3.2.4), the only nonlinear step: A[x, y] = B[x, y] ^ (~B[x + 1, y] & B[x + 2, y]), 64 ANDs a lane.
        const std::size_t lanes = round == 23 ? lanes_out : 25;
        for (std::size_t i = 0; i < 25; ++i) {
            const std::size_t x = i % 5, row = i - x;
            a[i] = i < lanes ? b[i] ^ (~b[row + (x + 1) % 5] & b[row + (x + 2) % 5]) : secure_uint<64>();
        }
        // ι (§3.2.5).
        a[0] = a[0] ^ keccak_rc[round];
    }
    return a;
}

}  // namespace detail

/// Keccak-p[1600, 24] = Keccak-f[1600] (FIPS 202 §3.3–3.4): 24 rounds of
/// ι ∘ χ ∘ π ∘ ρ ∘ θ. 38,400 ANDs on a secret state.
inline keccak_state keccak_f1600(const keccak_state& state) { return detail::keccak_f1600_lanes(state, 25); }

/// SHA3-`Bits` (FIPS 202 §6.1; Bits = 224, 256, 384 or 512) of a message whose
/// length in bytes is public: KECCAK[2·Bits](M || 01, Bits), a sponge (§4) with
/// rate 1600 - 2·Bits and pad10*1 (§5.1).
template <std::size_t Bits>
std::array<secure_uint<8>, Bits / 8> sha3(std::span<const secure_uint<8>> message) {
    static_assert(Bits == 224 || Bits == 256 || Bits == 384 || Bits == 512, "sha3<Bits>: Bits is 224, 256, 384 or 512");
    constexpr std::size_t rate = (1600 - 2 * Bits) / 8;  // bytes absorbed per permutation
    const std::size_t length = message.size();
    const std::size_t blocks = length / rate + 1;  // the padding always adds at least one byte
    auto byte_at = [&](std::size_t k) -> secure_uint<8> {
        if (k < length) return message[k];
        // M || 0 1 || 1 0* 1, bits least significant first: 0x06 at the first
        // padding byte, 0x80 at the last, 0x86 when they coincide.
        std::uint8_t v = 0;
        if (k == length) v |= 0x06;
        if (k == blocks * rate - 1) v |= 0x80;
        return v;
    };
    keccak_state s;  // all public zeros
    for (std::size_t i = 0; i < blocks; ++i) {
        for (std::size_t lane = 0; lane < rate / 8; ++lane) {
            secure_uint<64> v;
            for (std::size_t j = 8; j-- > 0;) v = (v << 8) ^ byte_at(i * rate + 8 * lane + j).template resize<64>();
            s[lane] = s[lane] ^ v;
        }
        s = detail::keccak_f1600_lanes(s, i + 1 < blocks ? 25 : (Bits + 63) / 64);
    }
    std::array<secure_uint<8>, Bits / 8> out;  // Bits / 8 < rate: one squeeze
    for (std::size_t k = 0; k < Bits / 8; ++k) out[k] = (s[k / 8] >> (8 * (k % 8))).template resize<8>();
    return out;
}

/// sha3 of a message held in a std::array.
template <std::size_t Bits, std::size_t L>
std::array<secure_uint<8>, Bits / 8> sha3(const std::array<secure_uint<8>, L>& message) {
    return sha3<Bits>(std::span<const secure_uint<8>>(message));
}

/// SHA3-256 (FIPS 202 §6.1) of a message of public length, 32 digest bytes.
inline std::array<secure_uint<8>, 32> sha3_256(std::span<const secure_uint<8>> message) { return sha3<256>(message); }
/// sha3_256 of a message held in a std::array.
template <std::size_t L>
std::array<secure_uint<8>, 32> sha3_256(const std::array<secure_uint<8>, L>& message) {
    return sha3<256>(std::span<const secure_uint<8>>(message));
}

}  // namespace tandem::lib

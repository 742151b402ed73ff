// tandem/lib/aes/sbox.hpp — the AES S-box (SubBytes on one byte) as a
// Boolean circuit of 32 ANDs, and its plain table.
//
// tandem::lib::aes_sbox(x) computes S(x) = A(x^-1) + 0x63 of FIPS-197 §5.1.1
// (inverse in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1, 0^-1 = 0, then the
// affine map A). Bit i of a secure_uint<8> is the coefficient of x^i (bit 7
// is the most significant, as in FIPS-197 §3.2).
//
// The circuit is the one of Boyar and Peralta, "A new combinational logic
// minimization technique with applications to cryptology" (SEA 2010, LNCS
// 6049; also eprint 2009/191): a top linear layer of 23 XORs, a middle
// non-linear layer (inversion in GF(2^4)-tower form) of 32 ANDs and 30 XORs,
// and a bottom linear layer of 26 XORs and 4 XNORs — 32 ANDs, 83 XOR/XNOR,
// AND depth 6 (their depth-16 circuit of 2012 needs 34 ANDs; 32 is the
// fewest known). Variable names follow the paper: x0 is the most
// significant input bit, s0 the most significant output bit.
//
// AND count: exactly 32 for a secret input; a public input folds to a
// constant (0 ANDs).
#pragma once

#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/integer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace tandem {

namespace detail {

/// a · b in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS-197 §4.2).
constexpr std::uint8_t aes_gf_mul(std::uint8_t a, std::uint8_t b) noexcept {
    unsigned r = 0, x = a;
    for (unsigned y = b; y != 0; y >>= 1) {
        if ((y & 1u) != 0) r ^= x;
        x <<= 1;
        if ((x & 0x100u) != 0) x ^= 0x11Bu;
    }
    return static_cast<std::uint8_t>(r);
}

/// The S-box by its definition (FIPS-197 §5.1.1): x^254 (= x^-1, and 0 for
/// 0), then b'_i = b_i + b_(i+4) + b_(i+5) + b_(i+6) + b_(i+7) + c_i, c = 0x63.
constexpr std::uint8_t aes_sbox_by_definition(std::uint8_t x) noexcept {
    std::uint8_t inv = 1, square = x;
    for (unsigned e = 254; e != 0; e >>= 1) {  // square and multiply
        if ((e & 1u) != 0) inv = aes_gf_mul(inv, square);
        square = aes_gf_mul(square, square);
    }
    unsigned out = 0;
    for (unsigned i = 0; i < 8; ++i) {
        const unsigned bit = (inv >> i) ^ (inv >> ((i + 4) % 8)) ^ (inv >> ((i + 5) % 8)) ^
                             (inv >> ((i + 6) % 8)) ^ (inv >> ((i + 7) % 8));
        out |= (bit & 1u) << i;
    }
    return static_cast<std::uint8_t>(out ^ 0x63u);
}

/// The S-box as a table, for plain code (the key owner's key expansion).
inline constexpr std::array<std::uint8_t, 256> aes_sbox_table = [] {
    std::array<std::uint8_t, 256> t{};
    for (std::size_t x = 0; x < 256; ++x) t[x] = aes_sbox_by_definition(static_cast<std::uint8_t>(x));
    return t;
}();

}  // namespace detail

namespace lib {

/// The AES S-box on a secret byte: 32 ANDs (Boyar–Peralta, SEA 2010; see the
/// top of this header). Bit 7 is the most significant bit.
inline secure_uint<8> aes_sbox(const secure_uint<8>& in) {
    // x0 is the most significant bit (the paper's order).
    const secure_bit x0 = in[7], x1 = in[6], x2 = in[5], x3 = in[4], x4 = in[3], x5 = in[2], x6 = in[1], x7 = in[0];

    // Top linear layer: 23 XORs.
    const secure_bit y14 = x3 ^ x5, y13 = x0 ^ x6, y9 = x0 ^ x3, y8 = x0 ^ x5, t0 = x1 ^ x2;
    const secure_bit y1 = t0 ^ x7, y4 = y1 ^ x3, y12 = y13 ^ y14, y2 = y1 ^ x0, y5 = y1 ^ x6;
    const secure_bit y3 = y5 ^ y8, t1 = x4 ^ y12, y15 = t1 ^ x5, y20 = t1 ^ x1, y6 = y15 ^ x7;
    const secure_bit y10 = y15 ^ t0, y11 = y20 ^ y9, y7 = x7 ^ y11, y17 = y10 ^ y11, y19 = y10 ^ y8;
    const secure_bit y16 = t0 ^ y11, y21 = y13 ^ y16, y18 = x0 ^ y16;

    // Middle non-linear layer: 32 ANDs, 30 XORs. First the 9 products that
    // map the input into the GF(2^4) tower representation ...
    const secure_bit t2 = y12 & y15, t3 = y3 & y6, t4 = t3 ^ t2, t5 = y4 & x7, t6 = t5 ^ t2;
    const secure_bit t7 = y13 & y16, t8 = y5 & y1, t9 = t8 ^ t7, t10 = y2 & y7, t11 = t10 ^ t7;
    const secure_bit t12 = y9 & y11, t13 = y14 & y17, t14 = t13 ^ t12, t15 = y8 & y10, t16 = t15 ^ t12;
    const secure_bit t17 = t4 ^ t14, t18 = t6 ^ t16, t19 = t9 ^ t14, t20 = t11 ^ t16;
    const secure_bit t21 = t17 ^ y20, t22 = t18 ^ y19, t23 = t19 ^ y21, t24 = t20 ^ y18;
    // ... the inversion in GF(2^4): 5 ANDs ...
    const secure_bit t25 = t21 ^ t22, t26 = t21 & t23, t27 = t24 ^ t26, t28 = t25 & t27, t29 = t28 ^ t22;
    const secure_bit t30 = t23 ^ t24, t31 = t22 ^ t26, t32 = t31 & t30, t33 = t32 ^ t24, t34 = t23 ^ t33;
    const secure_bit t35 = t27 ^ t33, t36 = t24 & t35, t37 = t36 ^ t34, t38 = t27 ^ t36, t39 = t29 & t38;
    const secure_bit t40 = t25 ^ t39, t41 = t40 ^ t37, t42 = t29 ^ t33, t43 = t29 ^ t40, t44 = t33 ^ t37;
    const secure_bit t45 = t42 ^ t41;
    // ... and the 18 products that map it back.
    const secure_bit z0 = t44 & y15, z1 = t37 & y6, z2 = t33 & x7, z3 = t43 & y16, z4 = t40 & y1, z5 = t29 & y7;
    const secure_bit z6 = t42 & y11, z7 = t45 & y17, z8 = t41 & y10, z9 = t44 & y12, z10 = t37 & y3;
    const secure_bit z11 = t33 & y4, z12 = t43 & y13, z13 = t40 & y5, z14 = t29 & y2, z15 = t42 & y9;
    const secure_bit z16 = t45 & y14, z17 = t41 & y8;

    // Bottom linear layer: 26 XORs and 4 XNORs (the affine constant 0x63).
    const secure_bit t46 = z15 ^ z16, t47 = z10 ^ z11, t48 = z5 ^ z13, t49 = z9 ^ z10, t50 = z2 ^ z12;
    const secure_bit t51 = z2 ^ z5, t52 = z7 ^ z8, t53 = z0 ^ z3, t54 = z6 ^ z7, t55 = z16 ^ z17;
    const secure_bit t56 = z12 ^ t48, t57 = t50 ^ t53, t58 = z4 ^ t46, t59 = z3 ^ t54, t60 = t46 ^ t57;
    const secure_bit t61 = z14 ^ t57, t62 = t52 ^ t58, t63 = t49 ^ t58, t64 = z4 ^ t59, t65 = t61 ^ t62;
    const secure_bit t66 = z1 ^ t63;
    const secure_bit s0 = t59 ^ t63, s6 = ~(t56 ^ t62), s7 = ~(t48 ^ t60), t67 = t64 ^ t65;
    const secure_bit s3 = t53 ^ t66, s4 = t51 ^ t66, s5 = t47 ^ t65, s1 = ~(t64 ^ s3), s2 = ~(t55 ^ t67);

    secure_uint<8> out;
    const std::array<secure_bit, 8> s{s0, s1, s2, s3, s4, s5, s6, s7};
    for (std::size_t i = 0; i < 8; ++i) out.set_bit(7 - i, s[i]);
    return out;
}

}  // namespace lib
}  // namespace tandem

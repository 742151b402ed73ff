#!/usr/bin/env python3
"""Derives the three-halves garbler's equations (gc/three_halves.hpp) from the
evaluator's decoding, and checks them.

Rosulek and Roy (CRYPTO 2021) fix how the evaluator decodes an AND: with
colours i, j of its labels A, B it computes
    C = (h_A ^ h_AB, h_B ^ h_AB) ^ V_ij (G0, G1, G2) ^ R_ij (A_L, A_R, B_L, B_R)
with V_ij = [i 0 i^j; 0 j i^j] and R_ij = R_p(i, j) ^ rho1*S1 ^ rho2*S2, rho
decrypted from the control bits with the same V_ij. The garbler must pick
the table so that every (i, j) decodes to C0 ^ x*y*Delta (x, y the values).

Choosing G_k = (hash difference) ^ s_k . u and C0 = (colour-0 hashes) ^ c . u,
with u the halves (a_L, a_R, b_L, b_R, D_L, D_R) of the colour-0 labels and
Delta, cancels the hashes; what is left is linear over GF(2), per column of u.
This script solves it for every permute bit pair (alpha, beta) and dicing
value r, checks that the solution is unique and that the evaluator's rho is
r ^ V_ij (~alpha, ~beta, alpha^beta) — so uniform over r whatever colours it
holds — and prints each coefficient as a polynomial in alpha, beta, r1, r2
(the table in the header's comment). Exit status 0 if every check holds and
the polynomials are the ones the header uses.

    python3 scripts/three_halves_derive.py [--quiet]
"""
import itertools
import sys

SYMBOLS = ["aL", "aR", "bL", "bR", "dL", "dR"]
ROWS = ["C_L", "C_R", "G0", "G1", "G2"]
S1 = ((1, 1, 1, 0), (1, 0, 0, 1))
S2 = ((1, 0, 0, 1), (0, 1, 1, 1))


def r_p(i, j):
    return ((0, 0, 1 - i, 0), (0, 1 - j, 0, 0))


def r_matrix(i, j, rho1, rho2):
    p = r_p(i, j)
    return [[p[row][k] ^ (rho1 & S1[row][k]) ^ (rho2 & S2[row][k]) for k in range(4)] for row in range(2)]


def held_half(k, i, j):
    """Half k of the held labels (A_L, A_R, B_L, B_R) as a set of symbols (bit mask)."""
    base = 1 << k
    delta = 1 << (4 + k % 2)
    colour = i if k < 2 else j
    return base ^ (delta if colour else 0)


def r_part(m, i, j):
    out = []
    for row in range(2):
        v = 0
        for k in range(4):
            if m[row][k]:
                v ^= held_half(k, i, j)
        out.append(v)
    return out


def solve(alpha, beta, r1, r2):
    """All (t, rows) with rows[5] the coefficient masks of C_L, C_R, G0, G1, G2."""
    found = []
    for t in range(8):
        t0, t1, t2 = t & 1, (t >> 1) & 1, (t >> 2) & 1
        columns = []
        for col in range(6):
            sols = []
            for unknowns in range(32):
                cl, cr, s0, s1, s2 = [(unknowns >> k) & 1 for k in range(5)]
                ok = True
                for i, j in itertools.product(range(2), repeat=2):
                    x, y = i ^ alpha, j ^ beta
                    rho1 = r1 ^ (i & t0) ^ ((i ^ j) & t2)
                    rho2 = r2 ^ (j & t1) ^ ((i ^ j) & t2)
                    rp = r_part(r_matrix(i, j, rho1, rho2), i, j)
                    want_l = cl ^ (x & y & (col == 4))
                    want_r = cr ^ (x & y & (col == 5))
                    got_l = (i & s0) ^ ((i ^ j) & s2) ^ ((rp[0] >> col) & 1)
                    got_r = (j & s1) ^ ((i ^ j) & s2) ^ ((rp[1] >> col) & 1)
                    if want_l != got_l or want_r != got_r:
                        ok = False
                        break
                if ok:
                    sols.append(unknowns)
            if not sols:
                break
            columns.append(sols)
        if len(columns) == 6:
            found.append((t, columns))
    return found


def polynomial(f):
    """Algebraic normal form of f over (a, b, r1, r2), as a sorted list of monomials."""
    names = ["a", "b", "r1", "r2"]
    terms = []
    for mono in range(16):
        v = 0
        for x in range(16):
            if x & ~mono == 0:
                v ^= f[x]
        if v:
            terms.append("*".join(names[q] for q in range(4) if (mono >> q) & 1) or "1")
    return terms


# The coefficients gc/three_halves.hpp uses (its comment, written out).
EXPECTED = {
    ("C_L", "aL"): ["r1", "r2"], ("C_L", "aR"): ["r1"], ("C_L", "bL"): ["1", "r1"], ("C_L", "bR"): ["r2"],
    ("C_L", "dL"): ["a*b"],
    ("C_R", "aL"): ["r1"], ("C_R", "aR"): ["1", "r2"], ("C_R", "bL"): ["r2"], ("C_R", "bR"): ["r1", "r2"],
    ("C_R", "dR"): ["a*b"],
    ("G0", "aL"): ["a", "b"], ("G0", "aR"): ["1", "a"], ("G0", "bL"): ["a"], ("G0", "bR"): ["1", "b"],
    ("G0", "dL"): ["a", "r2"], ("G0", "dR"): ["a", "b", "r1", "r2"],
    ("G1", "aL"): ["1", "a"], ("G1", "aR"): ["b"], ("G1", "bL"): ["1", "b"], ("G1", "bR"): ["a", "b"],
    ("G1", "dL"): ["a", "b", "r1", "r2"], ("G1", "dR"): ["b", "r1"],
    ("G2", "aL"): ["1", "b"], ("G2", "aR"): ["a", "b"], ("G2", "bL"): ["a", "b"], ("G2", "bR"): ["1", "a"],
    ("G2", "dL"): ["1", "b", "r1"], ("G2", "dR"): ["1", "a", "r2"],
}


def main():
    quiet = "--quiet" in sys.argv
    failures = []
    table = {}
    for x in range(16):
        alpha, beta, r1, r2 = x & 1, (x >> 1) & 1, (x >> 2) & 1, (x >> 3) & 1
        sols = solve(alpha, beta, r1, r2)
        if len(sols) != 1 or any(len(c) != 1 for c in sols[0][1]):
            failures.append(f"alpha={alpha} beta={beta} r=({r1},{r2}): {len(sols)} solutions, not one")
            continue
        t, columns = sols[0]
        if t != ((1 - alpha) | (1 - beta) << 1 | (alpha ^ beta) << 2):
            failures.append(f"alpha={alpha} beta={beta}: control shift t={t}, not (~alpha, ~beta, alpha^beta)")
        table[x] = [columns[col][0] for col in range(6)]
    if not failures:
        for row in range(5):
            for col in range(6):
                f = [(table[x][col] >> row) & 1 for x in range(16)]
                terms = polynomial(f)
                if not quiet and terms:
                    print(f"{ROWS[row]:3} {SYMBOLS[col]} = {' + '.join(terms)}")
                if terms != EXPECTED.get((ROWS[row], SYMBOLS[col]), []):
                    failures.append(f"{ROWS[row]} {SYMBOLS[col]}: {terms}, the header says "
                                    f"{EXPECTED.get((ROWS[row], SYMBOLS[col]), [])}")
    for f in failures:
        print("FAIL:", f)
    if not quiet and not failures:
        print("unique solution for every (alpha, beta, r); rho = r ^ V_ij (~alpha, ~beta, alpha^beta): uniform")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

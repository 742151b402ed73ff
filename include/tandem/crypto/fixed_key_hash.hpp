// tandem/crypto/fixed_key_hash.hpp — OPT-IN: a faster hash with a weaker bound.
//
//     H(x, j) = π(σ(x) ⊕ j) ⊕ σ(x) ⊕ j,   π = AES under one fixed public key S,
//
// the fixed-key construction in the style of Bellare–Hoang–Keelveedhi–Rogaway
// (JustGarble, 2013) and Zahur–Rosulek–Evans (2015), with σ as in hash.hpp.
// One key schedule serves every gate, so it costs only the encryptions. Its
// security is proven with π an ideal permutation and its bound degrades with
// the total number of hash queries across all instances (Guo–Katz–Wang–Yu,
// eprint 2019/074, and GKWWY, eprint 2019/1168, §1: an attacker who sees many
// garbled circuits can recover a label with work about 2^128 / (number of
// ANDs garbled)). Use it only where that multi-instance bound is acceptable;
// the default, mitccr_hash, does not degrade.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>

#include <cstddef>
#include <cstdint>

TANDEM_CRYPTO_BEGIN

namespace tandem {

class fixed_key_hash {
public:
    explicit fixed_key_hash(block start) noexcept : start_(start), key_(start) {}
    block start() const noexcept { return start_; }

    /// x[c * N + m] ← H(x[c * N + m], first_tweak + m) for m < N, c < C.
    template <std::size_t N, std::size_t C>
    void hash(std::uint64_t first_tweak, block* x) const noexcept {
        hash(first_tweak, N, C, x);
    }
    void hash(std::uint64_t first_tweak, std::size_t n, std::size_t copies, block* x) const noexcept {
        block s[64];
        for (std::size_t done = 0; done < n * copies; done += 64) {  // batches of up to 64 blocks
            const std::size_t len = n * copies - done < 64 ? n * copies - done : 64;
            for (std::size_t i = 0; i < len; ++i) {
                const std::size_t at = done + i;
                x[at] = s[i] = sigma(x[at]) ^ block(0, first_tweak + at % n);
            }
            key_.encrypt(x + done, len);
            for (std::size_t i = 0; i < len; ++i) x[done + i] ^= s[i];
        }
    }

private:
    block start_;
    aes_key key_;
};

}  // namespace tandem

TANDEM_CRYPTO_END

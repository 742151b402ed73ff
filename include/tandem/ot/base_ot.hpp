// tandem/ot/base_ot.hpp — n random oblivious transfers from public-key
// crypto, to seed OT extension (ot/iknp.hpp, ot/softspoken.hpp), in the
// group Ristretto255 (libsodium), all n transfers in one message each way
// (the receiver's in batches).
//
// security::semi_honest — Chou and Orlandi, "The Simplest Protocol for
// Oblivious Transfer", LATINCRYPT 2015 (IACR ePrint 2015/267):
//
//   sender:   a ← Z_ℓ, A = a·G                          ──  n, A  ──▶
//   receiver: b_i ← Z_ℓ, B_i = b_i·G + c_i·A             ◀──  B_i  ──
//             key_i = H(A, B_i, i, b_i·A)
//   sender:   key_i^0 = H(A, B_i, i, a·B_i)
//             key_i^1 = H(A, B_i, i, a·(B_i − A)) = H(..., a·B_i − a·A)
//
// since a·B_i = a·b_i·G + c_i·a·A. One scalar multiplication per transfer on
// each side (a·A is computed once). Its UC proof against a malicious party
// was found flawed (Genç, Iovino, Rial, "The simplest protocol for oblivious
// transfer revisited", IACR ePrint 2017/370), so the malicious mode uses:
//
// security::malicious — Masny and Rindal, "Endemic Oblivious Transfer", ACM
// CCS 2019 (IACR ePrint 2019/706), the Diffie–Hellman instance, with
// G_i(P) = hash to the group of (A, i, P) (BLAKE2b-512, then Ristretto255's
// map, crypto_core_ristretto255_from_hash):
//
//   sender:   a ← Z_ℓ, A = a·G                          ──  n, A  ──▶
//   receiver: b_i ← Z_ℓ; X_i a random point; Y_i = b_i·G − G_i(X_i);
//             (r_i^0, r_i^1) = c_i ? (X_i, Y_i) : (Y_i, X_i)   ◀── r_i^0, r_i^1 ──
//             key_i = H'(A, r_i^0, r_i^1, i, b_i·A)
//   sender:   key_i^j = H'(A, r_i^0, r_i^1, i, a·(r_i^j + G_i(r_i^{1−j})))
//
// r_i^{c_i} + G_i(r_i^{1−c_i}) = b_i·G. A receiver cannot know the discrete
// logarithms of both r^0 + G(r^1) and r^1 + G(r^0) (each fixes the other's
// hash input), so it learns one key at most; (r^0, r^1) is uniform whatever
// c_i is. Two scalar multiplications per transfer at the sender.
//
// H, H' are BLAKE2b (crypto_generichash) with a 16-byte output, keyed with a
// domain label; hashing A and i as well as the shared point keeps the n
// transfers (and sessions) apart.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/sodium.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/security.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <sodium.h>

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

namespace detail {

inline constexpr std::size_t point_bytes = crypto_core_ristretto255_BYTES;
inline constexpr std::size_t scalar_bytes = crypto_core_ristretto255_SCALARBYTES;
using point = std::array<unsigned char, point_bytes>;
/// Points the receiver sends per message (each costs it ~70 µs to make).
inline constexpr std::size_t batch = 8;

/// A random scalar that is wiped when it goes out of scope: from libsodium's
/// generator, or — for reproducible tests only — reduced from 64 bytes of `rng`.
struct secret_scalar {
    unsigned char s[scalar_bytes];
    explicit secret_scalar(prg* rng) {
        if (rng == nullptr) {
            crypto_core_ristretto255_scalar_random(s);
        } else {
            block wide[4];  // 512 bits reduced mod ℓ: uniform up to 2^-260
            rng->fill(wide, 4);
            crypto_core_ristretto255_scalar_reduce(s, reinterpret_cast<const unsigned char*>(wide));
            tandem::detail::wipe(wide, sizeof wide);
        }
        tandem::detail::mark_secret(s, sizeof s);
    }
    secret_scalar(const secret_scalar&) = delete;
    secret_scalar& operator=(const secret_scalar&) = delete;
    ~secret_scalar() { sodium_memzero(s, sizeof s); }
};

/// H(A, B, i, P) → 16 bytes.
inline block base_ot_hash(const point& a, const point& b, std::uint64_t i, const point& p) noexcept {
    static constexpr unsigned char label[] = "tandem ot/base_ot.hpp Chou-Orlandi v1";
    unsigned char in[3 * point_bytes + 8];
    std::memcpy(in, a.data(), point_bytes);
    std::memcpy(in + point_bytes, b.data(), point_bytes);
    for (int k = 0; k < 8; ++k) in[2 * point_bytes + k] = static_cast<unsigned char>(i >> (8 * k));
    std::memcpy(in + 2 * point_bytes + 8, p.data(), point_bytes);
    unsigned char out[16];
    crypto_generichash(out, sizeof out, in, sizeof in, label, sizeof label - 1);
    sodium_memzero(in, sizeof in);
    const block key = block::load(out);
    sodium_memzero(out, sizeof out);
    return key;
}

/// G_i(P): a point from BLAKE2b-512 of (A, i, P) — endemic OT's hash to the group.
inline point hash_to_group(const point& a, std::uint64_t i, const point& p) noexcept {
    static constexpr unsigned char label[] = "tandem ot/base_ot.hpp endemic OT G v1";
    unsigned char in[2 * point_bytes + 8];
    std::memcpy(in, a.data(), point_bytes);
    for (int k = 0; k < 8; ++k) in[point_bytes + k] = static_cast<unsigned char>(i >> (8 * k));
    std::memcpy(in + point_bytes + 8, p.data(), point_bytes);
    unsigned char wide[crypto_core_ristretto255_HASHBYTES];
    crypto_generichash(wide, sizeof wide, in, sizeof in, label, sizeof label - 1);
    point out;
    crypto_core_ristretto255_from_hash(out.data(), wide);
    return out;
}

/// H'(A, r^0, r^1, i, P) → 16 bytes: endemic OT's key.
inline block endemic_hash(const point& a, const std::array<point, 2>& r, std::uint64_t i, const point& p) noexcept {
    static constexpr unsigned char label[] = "tandem ot/base_ot.hpp endemic OT key v1";
    unsigned char in[4 * point_bytes + 8];
    std::memcpy(in, a.data(), point_bytes);
    std::memcpy(in + point_bytes, r[0].data(), point_bytes);
    std::memcpy(in + 2 * point_bytes, r[1].data(), point_bytes);
    for (int k = 0; k < 8; ++k) in[3 * point_bytes + k] = static_cast<unsigned char>(i >> (8 * k));
    std::memcpy(in + 3 * point_bytes + 8, p.data(), point_bytes);
    unsigned char out[16];
    crypto_generichash(out, sizeof out, in, sizeof in, label, sizeof label - 1);
    sodium_memzero(in, sizeof in);
    const block key = block::load(out);
    sodium_memzero(out, sizeof out);
    return key;
}

/// The first message's count carries the protocol in its top bit, so the
/// two sides cannot run different ones.
inline constexpr std::uint64_t endemic_flag = std::uint64_t{1} << 63;

inline std::string protocol_name(std::uint64_t word) {
    return (word & endemic_flag) ? "endemic OT (malicious)" : "Chou-Orlandi OT (semi-honest)";
}

[[noreturn]] inline void bad_point(const char* who, const char* what, std::size_t i) {
    throw protocol_error(std::string("base OT (") + who + "): the peer sent an invalid Ristretto255 point " + what +
                         (i == SIZE_MAX ? std::string() : " #" + std::to_string(i)) +
                         " (corrupt stream or not a tandem peer)");
}

}  // namespace detail

/// Sender side of keys.size() random OTs: learns keys[i] = {k_i^0, k_i^1}.
/// The receiver (base_ot_receive, same n and mode) learns k_i^{c_i} and
/// nothing about k_i^{1-c_i}.
/// `rng`: where the secret scalars come from — nullptr (libsodium's generator)
/// unless a test wants a run it can replay (session_options::insecure_seed).
/// `mode`: the protocol (see the top of this header).
inline void base_ot_send(net::channel& ch, std::span<std::array<block, 2>> keys, prg* rng = nullptr,
                         security mode = security::semi_honest) {
    tandem::detail::require_sodium();
    const std::size_t n = keys.size();
    const detail::secret_scalar a(rng);
    detail::point big_a, a_a;  // A = a·G, a·A
    // Public (detail/secret.hpp): A, which is sent, and whether a scalar
    // product is the identity — only for a zero scalar (an internal error)
    // or the identity point, which is public.
    const bool endemic = mode == security::malicious;
    const int zero_a = tandem::detail::declassified(crypto_scalarmult_ristretto255_base(big_a.data(), a.s));
    tandem::detail::declassify(big_a.data(), big_a.size());
    // a·A only for Chou–Orlandi's second key; endemic OT keys both sides from the receiver's points.
    if (zero_a != 0 ||
        (!endemic && tandem::detail::declassified(crypto_scalarmult_ristretto255(a_a.data(), a.s, big_a.data())) != 0))
        tandem::detail::internal_error("base_ot_send: zero scalar");
    ch.send_value<std::uint64_t>(n | (endemic ? detail::endemic_flag : 0));
    ch.send(big_a.data(), big_a.size());
    if (endemic) {
        std::vector<std::array<detail::point, 2>> r(n);
        detail::point b, shared;
        for (std::size_t first = 0; first < n; first += detail::batch) {
            const std::size_t count = std::min(detail::batch, n - first);
            ch.recv(r[first].data(), count * 2 * detail::point_bytes);
            for (std::size_t i = first; i < first + count; ++i)
                for (std::size_t j = 0; j < 2; ++j) {
                    // add fails on an invalid encoding, scalarmult on the identity.
                    const detail::point g = detail::hash_to_group(big_a, i, r[i][1 - j]);
                    if (crypto_core_ristretto255_add(b.data(), r[i][j].data(), g.data()) != 0)
                        detail::bad_point("sender", j == 0 ? "r^0" : "r^1", i);
                    if (tandem::detail::declassified(crypto_scalarmult_ristretto255(shared.data(), a.s, b.data())) != 0)
                        detail::bad_point("sender", "r + G(r') (the identity)", i);
                    keys[i][j] = detail::endemic_hash(big_a, r[i], i, shared);
                }
        }
        sodium_memzero(shared.data(), shared.size());
        return;
    }

    // The receiver sends its points in batches as it makes them, so its work
    // and this side's overlap (set-up time is about one side's, not the sum).
    std::vector<detail::point> big_b(n);
    detail::point p0, p1;
    for (std::size_t first = 0; first < n; first += detail::batch) {
        const std::size_t count = std::min(detail::batch, n - first);
        ch.recv(big_b[first].data(), count * detail::point_bytes);  // the first recv flushes A
        for (std::size_t i = first; i < first + count; ++i) {
            // scalarmult decodes B_i and fails on an invalid encoding or the identity.
            if (tandem::detail::declassified(crypto_scalarmult_ristretto255(p0.data(), a.s, big_b[i].data())) != 0)
                detail::bad_point("sender", "B", i);
            crypto_core_ristretto255_sub(p1.data(), p0.data(), a_a.data());
            keys[i][0] = detail::base_ot_hash(big_a, big_b[i], i, p0);
            keys[i][1] = detail::base_ot_hash(big_a, big_b[i], i, p1);
        }
    }
    sodium_memzero(p0.data(), p0.size());
    sodium_memzero(p1.data(), p1.size());
    sodium_memzero(a_a.data(), a_a.size());
}

namespace detail {
/// The receiver's side of endemic OT, after A arrived (see the top).
inline void endemic_receive(net::channel& ch, std::span<const std::uint8_t> choices, std::span<block> keys, prg* rng,
                            const point& big_a) {
    const std::size_t n = keys.size();
    std::vector<std::array<point, 2>> r(n);
    point big_b, x, y, shared;
    for (std::size_t i = 0; i < n; ++i) {
        const secret_scalar b(rng);
        if (tandem::detail::declassified(crypto_scalarmult_ristretto255_base(big_b.data(), b.s)) != 0)
            tandem::detail::internal_error("base_ot_receive: zero scalar");
        unsigned char wide[crypto_core_ristretto255_HASHBYTES];  // X: a random point (public: it is sent)
        if (rng == nullptr) {
            randombytes_buf(wide, sizeof wide);
        } else {
            block w[4];
            rng->fill(w, 4);
            std::memcpy(wide, w, sizeof wide);
        }
        crypto_core_ristretto255_from_hash(x.data(), wide);
        tandem::detail::declassify(x.data(), x.size());
        const point g = hash_to_group(big_a, i, x);
        crypto_core_ristretto255_sub(y.data(), big_b.data(), g.data());  // Y = b·G − G_i(X)
        // (r^0, r^1) = c ? (X, Y) : (Y, X), without a branch on the choice.
        // Both are sent and together hide c: public (detail/secret.hpp).
        const auto mask = static_cast<unsigned char>(-static_cast<int>(choices[i]));
        for (std::size_t k = 0; k < point_bytes; ++k) {
            const auto swap = static_cast<unsigned char>(mask & (x[k] ^ y[k]));
            r[i][0][k] = static_cast<unsigned char>(y[k] ^ swap);
            r[i][1][k] = static_cast<unsigned char>(x[k] ^ swap);
        }
        tandem::detail::declassify(r[i].data(), sizeof r[i]);
        if (tandem::detail::declassified(crypto_scalarmult_ristretto255(shared.data(), b.s, big_a.data())) != 0)
            bad_point("receiver", "A (the identity)", SIZE_MAX);
        keys[i] = endemic_hash(big_a, r[i], i, shared);
        if ((i + 1) % batch == 0 || i + 1 == n) {
            const std::size_t first = i / batch * batch;
            ch.send(r[first].data(), (i + 1 - first) * 2 * point_bytes);
            ch.flush();
        }
    }
    sodium_memzero(big_b.data(), big_b.size());
    sodium_memzero(y.data(), y.size());
    sodium_memzero(shared.data(), shared.size());
}
}  // namespace detail

/// Receiver side: choices[i] ∈ {0, 1}; learns keys[i] = k_i^{choices[i]}.
/// Sends its points in batches, flushing each.
inline void base_ot_receive(net::channel& ch, std::span<const std::uint8_t> choices, std::span<block> keys,
                            prg* rng = nullptr, security mode = security::semi_honest) {
    tandem::detail::require_sodium();
    const std::size_t n = keys.size();
    if (choices.size() != n)
        throw usage_error("ot::base_ot_receive: " + std::to_string(choices.size()) + " choice bits for " +
                          std::to_string(n) + " keys");
    unsigned char bad = 0;  // no branch per choice: they are secret (the bits of Δ)
    for (std::uint8_t c : choices) bad = static_cast<unsigned char>(bad | (c & 0xFE));
    if (tandem::detail::declassified(bad) != 0) throw usage_error("ot::base_ot_receive: choice bits must be 0 or 1");

    const bool endemic = mode == security::malicious;
    const auto peer = ch.recv_value<std::uint64_t>();
    if ((peer & detail::endemic_flag) != (endemic ? detail::endemic_flag : 0))
        throw protocol_error("base OT (receiver): the sender runs " + detail::protocol_name(peer) + ", this party " +
                             detail::protocol_name(endemic ? detail::endemic_flag : 0) + " (mismatched security modes)");
    const std::uint64_t peer_n = peer & ~detail::endemic_flag;
    if (peer_n != n)
        throw protocol_error("base OT (receiver): the sender runs " + std::to_string(peer_n) + " transfers, this party " +
                             std::to_string(n) + " (mismatched configuration)");
    detail::point big_a;
    ch.recv(big_a.data(), big_a.size());
    if (crypto_core_ristretto255_is_valid_point(big_a.data()) != 1) detail::bad_point("receiver", "A", SIZE_MAX);
    if (endemic) {
        detail::endemic_receive(ch, choices, keys, rng, big_a);
        return;
    }

    std::vector<detail::point> big_b(n);
    detail::point b0, b1, shared;
    for (std::size_t i = 0; i < n; ++i) {
        const detail::secret_scalar b(rng);
        // The products below fail only for b = 0 or A the identity: public outcomes.
        if (tandem::detail::declassified(crypto_scalarmult_ristretto255_base(b0.data(), b.s)) != 0)
            tandem::detail::internal_error("base_ot_receive: zero scalar");
        crypto_core_ristretto255_add(b1.data(), b0.data(), big_a.data());
        // B_i = c_i ? b1 : b0, without a branch on the choice bit. B_i is
        // sent, and hides c_i: public (detail/secret.hpp).
        const auto mask = static_cast<unsigned char>(-static_cast<int>(choices[i]));
        for (std::size_t k = 0; k < detail::point_bytes; ++k)
            big_b[i][k] = static_cast<unsigned char>(b0[k] ^ (mask & (b0[k] ^ b1[k])));
        tandem::detail::declassify(big_b[i].data(), big_b[i].size());
        if (tandem::detail::declassified(crypto_scalarmult_ristretto255(shared.data(), b.s, big_a.data())) != 0)
            detail::bad_point("receiver", "A (the identity)", SIZE_MAX);
        keys[i] = detail::base_ot_hash(big_a, big_b[i], i, shared);
        if ((i + 1) % detail::batch == 0 || i + 1 == n) {  // hand each batch over at once
            const std::size_t first = i / detail::batch * detail::batch;
            ch.send(big_b[first].data(), (i + 1 - first) * detail::point_bytes);
            ch.flush();
        }
    }
    sodium_memzero(b0.data(), b0.size());
    sodium_memzero(b1.data(), b1.size());
    sodium_memzero(shared.data(), shared.size());
}

}  // namespace tandem::ot

TANDEM_CRYPTO_END

// tandem/net/noise.hpp — the handshake and ciphers that protect a session's
// links: the Noise Protocol Framework (T. Perrin, revision 34, 2018) [033],
// with X25519, SHA-256 and ChaCha20-Poly1305 from libsodium, and
// AES-256-GCM from crypto/aes_gcm.hpp (VAES; libsodium's runs one block per
// instruction). Two patterns:
//
//   KK      (-> s, <- s known in advance)   -> e, es, ss    <- e, ee, se
//           each party pins the other's static public key;
//   NNpsk0  (a pre-shared key)               -> psk, e       <- e, ee
//
// After both messages each side holds two cipher states, one per direction
// (split()), and the handshake hash binds everything said so far, the
// prologue included. Written from the specification and checked against the
// published test vectors (tests/data/noise_vectors.txt, tests/secure_link.cpp).
// Why Noise and not TLS: both patterns are analysed in the specification's
// own terms (§7.7's payload security properties: after the second message,
// destination property 5 and source property 2 for KK — the strongest a
// two-message pattern has, with forward secrecy from ee) and computationally
// by Dowling, Rösler and Schwenk (PKC 2020) [034]; KK is TLS 1.3's mutual
// authentication with certificates replaced by pinned keys, and it costs
// tandem no new dependency (docs/DESIGN.md §9.3).
#pragma once

#include <tandem/crypto/aes_gcm.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/sodium.hpp>
#include <tandem/error.hpp>
#include <tandem/net/keys.hpp>

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tandem::net::noise {

using key32 = key_bytes;

/// The AEAD a link uses: AES-256-GCM where both parties' CPUs run it
/// (x86 with AES-NI and PCLMULQDQ), else ChaCha20-Poly1305.
enum class cipher : std::uint8_t { chacha_poly = 1, aes_gcm = 2 };
/// The handshake pattern: pinned static keys, or a pre-shared key.
enum class pattern : std::uint8_t { kk = 1, nn_psk0 = 2 };

/// "Noise_KK_25519_AESGCM_SHA256" and its kind.
inline std::string protocol_name(pattern p, cipher c) {
    return std::string("Noise_") + (p == pattern::kk ? "KK" : "NNpsk0") + "_25519_" +
           (c == cipher::aes_gcm ? "AESGCM" : "ChaChaPoly") + "_SHA256";
}

/// Whether this CPU runs crypto/aes_gcm.hpp.
inline bool aes_gcm_available() noexcept {
#if TANDEM_X86
    return tandem::detail::cpu().aesni;
#else
    return false;
#endif
}

/// Bytes of an AEAD tag.
inline constexpr std::size_t tag_bytes = 16;

/// A key and its nonce counter (§5.1 CipherState). encrypt/decrypt write
/// out (n + 16 / n − 16 bytes; out may equal in); before a key is set they
/// copy, as the specification says.
class cipher_state {
public:
    cipher_state() = default;
    cipher_state(const cipher_state&) = delete;
    cipher_state& operator=(const cipher_state&) = delete;
    cipher_state(cipher_state&& o) noexcept { take(o); }
    cipher_state& operator=(cipher_state&& o) noexcept {
        if (this != &o) {
            wipe();
            take(o);
        }
        return *this;
    }
    ~cipher_state() { wipe(); }

    void initialize_key(const std::uint8_t* key, cipher c) {
        wipe();
        cipher_ = c;
        std::memcpy(key_.data(), key, key_.size());
#if TANDEM_X86
        if (c == cipher::aes_gcm) aes_ = std::make_unique<aes256_gcm>(key_.data());
#else
        if (c == cipher::aes_gcm) throw usage_error("link cipher: AES-256-GCM runs on x86 only");
#endif
        n_ = 0;
        has_key_ = true;
    }
    bool has_key() const noexcept { return has_key_; }

    void encrypt(const std::uint8_t* ad, std::size_t ad_len, const std::uint8_t* in, std::size_t n,
                 std::uint8_t* out) {
        if (!has_key_) {
            if (n) std::memmove(out, in, n);
            return;
        }
        std::uint8_t nonce[12];
        next_nonce(nonce);
#if TANDEM_X86
        if (cipher_ == cipher::aes_gcm) {
            aes_->seal(nonce, ad, ad_len, in, n, out, out + n);
            ++n_;
            return;
        }
#endif
        unsigned long long tag_len = 0;
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(out, out + n, &tag_len, in, n, ad, ad_len, nullptr, nonce,
                                                           key_.data());
        ++n_;
    }

    /// False if the tag does not verify (the counter then stays).
    [[nodiscard]] bool decrypt(const std::uint8_t* ad, std::size_t ad_len, const std::uint8_t* in, std::size_t n,
                               std::uint8_t* out) {
        if (!has_key_) {
            if (n) std::memmove(out, in, n);
            return true;
        }
        if (n < tag_bytes) return false;
        std::uint8_t nonce[12];
        const std::uint64_t counter = n_;
        nonce_for(counter, nonce);
        const std::size_t m = n - tag_bytes;
        bool ok;
#if TANDEM_X86
        if (cipher_ == cipher::aes_gcm) ok = aes_->open(nonce, ad, ad_len, in, m, in + m, out);
        else
#endif
            ok = crypto_aead_chacha20poly1305_ietf_decrypt_detached(out, nullptr, in, m, in + m, ad, ad_len, nonce,
                                                                   key_.data()) == 0;
        if (!ok) return false;
        n_ = counter + 1;
        return true;
    }

private:
    // §5.1: 2^64 − 1 is reserved; a link would need 2^80 bytes to reach it.
    void next_nonce(std::uint8_t* nonce) {
        if (n_ == ~std::uint64_t{0}) throw security_error("link cipher: nonces exhausted; open a new session");
        nonce_for(n_, nonce);
    }
    // §12: 32 zero bits, then the counter — big-endian for AES-GCM,
    // little-endian for ChaCha20-Poly1305.
    void nonce_for(std::uint64_t n, std::uint8_t* nonce) const noexcept {
        std::memset(nonce, 0, 4);
        for (int i = 0; i < 8; ++i) {
            const auto byte = static_cast<std::uint8_t>(n >> (8 * i));
            nonce[cipher_ == cipher::aes_gcm ? 11 - i : 4 + i] = byte;
        }
    }
    void wipe() noexcept {
        sodium_memzero(key_.data(), key_.size());
#if TANDEM_X86
        aes_.reset();  // (wipes its round keys)
#endif
        has_key_ = false;
    }
    void take(cipher_state& o) noexcept {
        cipher_ = o.cipher_;
        key_ = o.key_;
#if TANDEM_X86
        aes_ = std::move(o.aes_);
#endif
        n_ = o.n_;
        has_key_ = o.has_key_;
        o.wipe();
    }

    cipher cipher_ = cipher::chacha_poly;
    key32 key_{};
#if TANDEM_X86
    std::unique_ptr<aes256_gcm> aes_;  // AES-256-GCM's round keys and powers of H
#endif
    std::uint64_t n_ = 0;
    bool has_key_ = false;
};

/// SHA-256 and HMAC-SHA-256 (§4.3, §4.3's HKDF).
inline key32 sha256(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b = {}) {
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, a.data(), a.size());
    crypto_hash_sha256_update(&st, b.data(), b.size());
    key32 out;
    crypto_hash_sha256_final(&st, out.data());
    return out;
}
inline key32 hmac_sha256(const key32& key, std::span<const std::uint8_t> a, std::span<const std::uint8_t> b = {}) {
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, key.data(), key.size());
    crypto_auth_hmacsha256_update(&st, a.data(), a.size());
    crypto_auth_hmacsha256_update(&st, b.data(), b.size());
    key32 out;
    crypto_auth_hmacsha256_final(&st, out.data());
    sodium_memzero(&st, sizeof st);
    return out;
}
/// HKDF(ck, ikm) with two or three outputs (§4.3).
inline std::array<key32, 3> hkdf(const key32& ck, std::span<const std::uint8_t> ikm, int outputs) {
    key32 temp = hmac_sha256(ck, ikm);
    std::array<key32, 3> out{};
    const std::uint8_t one = 1, two = 2, three = 3;
    out[0] = hmac_sha256(temp, {&one, 1});
    out[1] = hmac_sha256(temp, out[0], {&two, 1});
    if (outputs == 3) out[2] = hmac_sha256(temp, out[1], {&three, 1});
    sodium_memzero(temp.data(), temp.size());
    return out;
}

/// §5.2 SymmetricState: the chaining key, the handshake hash and a cipher.
class symmetric_state {
public:
    symmetric_state(const std::string& protocol, cipher c) : cipher_(c) {
        if (protocol.size() <= h_.size()) std::memcpy(h_.data(), protocol.data(), protocol.size());
        else h_ = sha256({reinterpret_cast<const std::uint8_t*>(protocol.data()), protocol.size()});
        ck_ = h_;
    }
    ~symmetric_state() { sodium_memzero(ck_.data(), ck_.size()); }

    void mix_key(std::span<const std::uint8_t> ikm) {
        const auto out = hkdf(ck_, ikm, 2);
        ck_ = out[0];
        cs_.initialize_key(out[1].data(), cipher_);
    }
    void mix_hash(std::span<const std::uint8_t> data) { h_ = sha256(h_, data); }
    void mix_key_and_hash(std::span<const std::uint8_t> ikm) {
        const auto out = hkdf(ck_, ikm, 3);
        ck_ = out[0];
        mix_hash(out[1]);
        cs_.initialize_key(out[2].data(), cipher_);
    }
    /// Appends the encryption of `plain` (with its tag once a key is set).
    void encrypt_and_hash(std::span<const std::uint8_t> plain, std::vector<std::uint8_t>& out) {
        const std::size_t at = out.size();
        out.resize(at + plain.size() + (cs_.has_key() ? tag_bytes : 0));
        cs_.encrypt(h_.data(), h_.size(), plain.data(), plain.size(), out.data() + at);
        mix_hash({out.data() + at, out.size() - at});
    }
    [[nodiscard]] bool decrypt_and_hash(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& plain) {
        if (cs_.has_key() && in.size() < tag_bytes) return false;
        plain.resize(in.size() - (cs_.has_key() ? tag_bytes : 0));
        if (!cs_.decrypt(h_.data(), h_.size(), in.data(), in.size(), plain.data())) return false;
        mix_hash(in);
        return true;
    }
    /// The two transport ciphers: initiator to responder, and back.
    void split(cipher_state& to_responder, cipher_state& to_initiator) const {
        const auto out = hkdf(ck_, {}, 2);
        to_responder.initialize_key(out[0].data(), cipher_);
        to_initiator.initialize_key(out[1].data(), cipher_);
    }
    const key32& handshake_hash() const noexcept { return h_; }

private:
    cipher cipher_;
    key32 ck_{};
    key32 h_{};
    cipher_state cs_;
};

/// §5.3 HandshakeState for the two-message patterns KK and NNpsk0. The
/// initiator calls write_message then read_message, the responder the other
/// way round; then split(). A message that fails to authenticate makes
/// read_message return nullopt.
class handshake {
public:
    struct keys {
        std::optional<key_pair> s;           // own static key (KK; net/keys.hpp)
        std::optional<key32> rs;             // the peer's pinned public key (KK)
        std::optional<key32> psk;            // pre-shared key (NNpsk0)
        std::optional<key32> fixed_ephemeral;  // tests only: the ephemeral secret of a test vector
    };

    handshake(pattern p, cipher c, bool initiator, std::span<const std::uint8_t> prologue, keys k)
        : pattern_(p), initiator_(initiator), ss_(protocol_name(p, c), c), keys_(std::move(k)) {
        tandem::detail::require_sodium();
        if (p == pattern::kk && (!keys_.s || !keys_.rs))
            throw usage_error("link handshake: pinned keys need this party's key pair and the peer's public key");
        if (p == pattern::nn_psk0 && !keys_.psk) throw usage_error("link handshake: no pre-shared key");
        ss_.mix_hash(prologue);
        if (p == pattern::kk) {  // pre-messages: -> s, <- s
            ss_.mix_hash(initiator ? keys_.s->public_part().bytes : *keys_.rs);
            ss_.mix_hash(initiator ? *keys_.rs : keys_.s->public_part().bytes);
        }
    }
    ~handshake() {
        if (keys_.psk) sodium_memzero(keys_.psk->data(), keys_.psk->size());
        if (keys_.fixed_ephemeral) sodium_memzero(keys_.fixed_ephemeral->data(), 32);
    }

    std::vector<std::uint8_t> write_message(std::span<const std::uint8_t> payload) {
        std::vector<std::uint8_t> out;
        for (const token t : tokens(message_)) {
            if (t == token::e) {
                e_ = keys_.fixed_ephemeral ? key_pair::from_secret(*keys_.fixed_ephemeral) : key_pair::generate();
                const key32& e = e_->public_part().bytes;
                out.insert(out.end(), e.begin(), e.end());
                ss_.mix_hash(e);
                if (pattern_ == pattern::nn_psk0) ss_.mix_key(e);
            } else {
                mix_token(t);
            }
        }
        ss_.encrypt_and_hash(payload, out);
        ++message_;
        return out;
    }

    std::optional<std::vector<std::uint8_t>> read_message(std::span<const std::uint8_t> in) {
        std::size_t at = 0;
        for (const token t : tokens(message_)) {
            if (t == token::e) {
                if (in.size() - at < 32) return std::nullopt;
                std::memcpy(re_.data(), in.data() + at, 32);
                at += 32;
                ss_.mix_hash(re_);
                if (pattern_ == pattern::nn_psk0) ss_.mix_key(re_);
            } else if (!mix_token(t)) {
                return std::nullopt;
            }
        }
        std::vector<std::uint8_t> payload;
        if (!ss_.decrypt_and_hash(in.subspan(at), payload)) return std::nullopt;
        ++message_;
        return payload;
    }

    bool finished() const noexcept { return message_ == 2; }
    /// (initiator → responder, responder → initiator).
    void split(cipher_state& to_responder, cipher_state& to_initiator) const {
        ss_.split(to_responder, to_initiator);
    }
    const key32& handshake_hash() const noexcept { return ss_.handshake_hash(); }

private:
    enum class token : std::uint8_t { e, es, se, ss, ee, psk };
    std::span<const token> tokens(int message) const {
        static constexpr token kk1[] = {token::e, token::es, token::ss};
        static constexpr token kk2[] = {token::e, token::ee, token::se};
        static constexpr token nn1[] = {token::psk, token::e};
        static constexpr token nn2[] = {token::e, token::ee};
        if (message > 1) throw usage_error("link handshake: both messages already exchanged");
        if (pattern_ == pattern::kk) return message == 0 ? std::span<const token>(kk1) : std::span<const token>(kk2);
        return message == 0 ? std::span<const token>(nn1) : std::span<const token>(nn2);
    }

    // The DH tokens and psk. "es" is DH(initiator's e, responder's s), so the
    // initiator uses (e, rs) and the responder (s, re); "se" the reverse.
    bool mix_token(token t) {
        switch (t) {
            case token::psk: ss_.mix_key_and_hash(*keys_.psk); return true;
            case token::ee: return dh(e_->secret(), re_);
            case token::ss: return dh(keys_.s->secret(), *keys_.rs);
            case token::es: return initiator_ ? dh(e_->secret(), *keys_.rs) : dh(keys_.s->secret(), re_);
            case token::se: return initiator_ ? dh(keys_.s->secret(), re_) : dh(e_->secret(), *keys_.rs);
            case token::e: break;
        }
        return false;
    }
    // A public key that gives the all-zero shared secret (a small-order
    // point) is refused, as libsodium does.
    bool dh(const key32& secret, const key32& their_public) {
        key32 shared;
        if (crypto_scalarmult(shared.data(), secret.data(), their_public.data()) != 0) return false;
        ss_.mix_key(shared);
        sodium_memzero(shared.data(), shared.size());
        return true;
    }

    pattern pattern_;
    bool initiator_;
    symmetric_state ss_;
    keys keys_;
    std::optional<key_pair> e_;  // this side's ephemeral, once its e token is written
    key32 re_{};
    int message_ = 0;
};

}  // namespace tandem::net::noise

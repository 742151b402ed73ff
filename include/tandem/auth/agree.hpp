// tandem/auth/agree.hpp — the two small agreements authenticated garbling
// needs: that both parties computed the same digest (F_EQ), and a random
// value neither party chose (a coin toss). Both use a hash commitment, so
// the party that speaks first cannot echo or adapt to the other's value.
//
// Commitment: C = BLAKE2b-256(domain ‖ value ‖ r) with a fresh 128-bit r,
// hiding and binding with BLAKE2b as a random oracle. F_EQ as WRK17 [030]
// §3 uses it (one call per batch of leaky ANDs, on a digest of the batch):
// Alice commits to her digest, Bob sends his in the clear, Alice compares
// and opens, Bob checks the opening and compares. A cheater learns whether
// the check passed, nothing else; the honest party's digest is already
// known to a peer that passes. Coin toss: Alice commits to her share, Bob
// sends his, Alice opens, the coin is the XOR (a party can abort after
// seeing the coin, as in any protocol secure with abort, but cannot bias it).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/sodium.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/party.hpp>

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

TANDEM_CRYPTO_BEGIN

namespace tandem::auth {

using digest = std::array<std::uint8_t, 32>;

/// A BLAKE2b-256 digest of a sequence of blocks, streamed.
class digester {
public:
    explicit digester(const char* domain) {
        tandem::detail::require_sodium();
        crypto_generichash_init(&state_, nullptr, 0, sizeof(digest));
        update(domain, std::char_traits<char>::length(domain));
    }
    void update(const void* data, std::size_t n) {
        crypto_generichash_update(&state_, static_cast<const unsigned char*>(data), n);
    }
    void update(std::span<const block> blocks) { update(blocks.data(), blocks.size_bytes()); }
    digest finish() {
        digest out;
        crypto_generichash_final(&state_, out.data(), out.size());
        return out;
    }

private:
    crypto_generichash_state state_;
};

namespace detail {

template <std::size_t N>
digest commitment(const std::array<std::uint8_t, N>& value, const block& nonce) {
    digester h("tandem auth commitment");
    h.update(value.data(), value.size());
    h.update(&nonce, sizeof nonce);
    return h.finish();
}

inline bool same(const digest& a, const digest& b) { return sodium_memcmp(a.data(), b.data(), a.size()) == 0; }

[[noreturn]] inline void cheated(const char* step, const char* what) {
    throw security_error(std::string("authenticated garbling: ") + step + ": " + what +
                         "; the peer cheated or the link was tampered with — the run is aborted");
}

/// Alice commits to `mine`, Bob answers with his value, Alice opens; returns
/// the peer's value, Alice's checked against her commitment on Bob's side.
/// `before_opening(theirs)` runs on Alice's side before she opens (F_EQ:
/// she refuses to open to a peer whose value differs).
template <std::size_t N, class Check>
std::array<std::uint8_t, N> exchange_committed(net::channel& ch, party me, const std::array<std::uint8_t, N>& mine,
                                               prg& rng, const char* step, Check before_opening) {
    std::array<std::uint8_t, N> theirs;
    if (me == party::alice) {
        const block nonce = rng.next();
        ch.send_value(commitment(mine, nonce));
        theirs = ch.recv_value<std::array<std::uint8_t, N>>();
        before_opening(theirs);
        ch.send_value(mine);
        ch.send_value(nonce);
        ch.flush();
    } else {
        const auto promised = ch.recv_value<digest>();
        ch.send_value(mine);
        theirs = ch.recv_value<std::array<std::uint8_t, N>>();
        const auto nonce = ch.recv_value<block>();
        if (!same(commitment(theirs, nonce), promised))
            cheated(step, "the peer opened a commitment to another value");
    }
    return theirs;
}

}  // namespace detail

/// F_EQ: returns if the peer's digest equals `mine`, throws security_error
/// naming `step` if not. Both parties call it at the same point.
inline void check_equal(net::channel& ch, party me, const digest& mine, prg& rng, const char* step) {
    auto differs = [&](const digest& theirs) {
        if (!detail::same(theirs, mine))
            detail::cheated(step, "the parties' checks of the batch disagree");
    };
    differs(detail::exchange_committed(ch, me, mine, rng, step, differs));
}

/// A uniformly random block that neither party chose. Both call it at the
/// same point; throws security_error naming `step` on a false opening.
inline block coin_toss(net::channel& ch, party me, prg& rng, const char* step) {
    std::array<std::uint8_t, 16> mine;
    rng.next().store(mine.data());
    const auto theirs = detail::exchange_committed(ch, me, mine, rng, step, [](const auto&) {});
    return block::load(mine.data()) ^ block::load(theirs.data());
}

}  // namespace tandem::auth

TANDEM_CRYPTO_END

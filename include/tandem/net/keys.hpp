// tandem/net/keys.hpp — what authenticates the peer on a session's links
// (docs/DESIGN.md §9.3): each party's X25519 key pair with the peer's public
// key pinned, or a key both parties were given in advance; and the files
// that hold them (what tandem-run's --key, --peer-key and --psk read).
//
//   auto mine = tandem::net::key_pair::generate();            // once per party
//   tandem::net::save_key_pair(mine, "alice.key", "alice.pub");
//   ...                                                        // exchange the .pub files
//   options.encrypt_links = tandem::net::link_credentials::pinned(
//       tandem::net::load_key_pair("alice.key"), tandem::net::load_public_key("bob.pub"));
//
// The handshake and the ciphers are in net/noise.hpp and
// net/secure_channel.hpp; this header stays free of libsodium.
#pragma once

#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/linkage.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tandem::net {

/// 32 bytes: an X25519 key or a pre-shared key.
using key_bytes = std::array<std::uint8_t, 32>;

/// An X25519 public key: a party's identity on the links. Public: give it
/// to the peer by any channel that keeps it from being swapped.
struct public_key {
    key_bytes bytes{};
    bool operator==(const public_key&) const = default;
};

/// An X25519 key pair. The secret half is wiped when the object dies.
class key_pair {
public:
    /// A fresh pair from the OS's generator (libsodium).
    static key_pair generate();
    /// The pair of a given secret (e.g. read from a file).
    static key_pair from_secret(const key_bytes& secret);

    key_pair(const key_pair&) = default;
    key_pair& operator=(const key_pair&) = default;
    ~key_pair() { tandem::detail::wipe(secret_.data(), secret_.size()); }

    const public_key& public_part() const noexcept { return public_; }
    /// The secret half (for the handshake and for saving it).
    const key_bytes& secret() const noexcept { return secret_; }

private:
    key_pair() = default;
    key_bytes secret_{};
    public_key public_;
};

/// A 256-bit secret both parties hold; wiped when the object dies.
class pre_shared_key {
public:
    static pre_shared_key generate();
    explicit pre_shared_key(const key_bytes& bytes) : bytes_(bytes) {}
    pre_shared_key(const pre_shared_key&) = default;
    pre_shared_key& operator=(const pre_shared_key&) = default;
    ~pre_shared_key() { tandem::detail::wipe(bytes_.data(), bytes_.size()); }
    const key_bytes& bytes() const noexcept { return bytes_; }

private:
    key_bytes bytes_{};
};

/// How every link of a session is authenticated: session_options::encrypt_links.
class link_credentials {
public:
    /// This party's key pair, and the peer's public key, pinned: a peer that
    /// does not hold the matching secret is refused (Noise KK).
    static link_credentials pinned(key_pair own, public_key peer) {
        link_credentials c;
        c.own_ = std::move(own);
        c.peer_ = peer;
        return c;
    }
    /// A key both parties were given in advance (Noise NNpsk0).
    static link_credentials pre_shared(pre_shared_key key) {
        link_credentials c;
        c.psk_ = std::move(key);
        return c;
    }

    bool is_pre_shared() const noexcept { return psk_.has_value(); }
    const key_pair* own() const noexcept { return own_ ? &*own_ : nullptr; }
    const public_key& peer() const noexcept { return peer_; }
    const pre_shared_key* psk() const noexcept { return psk_ ? &*psk_ : nullptr; }

private:
    link_credentials() = default;
    std::optional<key_pair> own_;
    public_key peer_;
    std::optional<pre_shared_key> psk_;
};

/// Files, one line of text each: "tandem-secret-key <64 hex digits>",
/// "tandem-public-key <…>", "tandem-pre-shared-key <…>". Secret files are
/// written readable by their owner only (mode 0600), and a secret file that
/// others may read is refused, as ssh refuses such keys. A missing,
/// unreadable or malformed file is a usage_error naming it.
void save_key_pair(const key_pair& k, const std::string& secret_path, const std::string& public_path);
key_pair load_key_pair(const std::string& secret_path);
public_key load_public_key(const std::string& path);
void save_pre_shared_key(const pre_shared_key& k, const std::string& path);
pre_shared_key load_pre_shared_key(const std::string& path);

/// 64 lower-case hex digits.
std::string to_hex(const key_bytes& k);

}  // namespace tandem::net

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/net/keys_impl.hpp>
#endif

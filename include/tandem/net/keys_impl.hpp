// tandem/net/keys_impl.hpp — the definitions of net/keys.hpp: key
// generation (libsodium) and the key files (POSIX). Compiled once into the
// library, or included by keys.hpp when tandem is used header-only.
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/crypto/sodium.hpp>
#include <tandem/error.hpp>
#include <tandem/net/keys.hpp>

#include <sodium.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace tandem::net {

namespace detail {

inline constexpr const char* secret_tag = "tandem-secret-key";
inline constexpr const char* public_tag = "tandem-public-key";
inline constexpr const char* psk_tag = "tandem-pre-shared-key";

// Writes "<tag> <hex>\n" to path (mode 0600 for secrets, 0644 otherwise).
inline void write_key_file(const std::string& path, const char* tag, const key_bytes& k, bool secret) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, secret ? 0600 : 0644);
    if (fd < 0) throw usage_error("cannot write key file " + path + ": " + std::strerror(errno));
    if (secret && ::fchmod(fd, 0600) != 0) {  // an existing file keeps its mode through O_CREAT
        ::close(fd);
        throw usage_error("cannot make key file " + path + " private: " + std::strerror(errno));
    }
    std::string line = std::string(tag) + " " + to_hex(k) + "\n";
    const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    tandem::detail::wipe(line.data(), line.size());
    if (::close(fd) != 0 || !ok) throw usage_error("cannot write key file " + path + ": " + std::strerror(errno));
}

inline key_bytes read_key_file(const std::string& path, const char* tag, bool secret) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw usage_error("cannot read key file " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (secret && ::fstat(fd, &st) == 0 && (st.st_mode & 077) != 0) {
        ::close(fd);
        throw usage_error("key file " + path + " may be read by other users; a secret key must be private (chmod 600 " +
                          path + ")");
    }
    char buf[160];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    const std::string want = std::string(tag) + " ";
    key_bytes k{};
    bool ok = n > 0;
    if (ok) {
        buf[n] = 0;
        std::size_t len = static_cast<std::size_t>(n);
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ')) --len;
        ok = len == want.size() + 64 && std::memcmp(buf, want.data(), want.size()) == 0;
        std::size_t bin_len = 0;
        ok = ok && sodium_hex2bin(k.data(), k.size(), buf + want.size(), 64, nullptr, &bin_len, nullptr) == 0 &&
             bin_len == k.size();
    }
    tandem::detail::wipe(buf, sizeof buf);
    if (!ok)
        throw usage_error("key file " + path + " is not a tandem key of this kind: expected one line \"" + tag +
                          " <64 hex digits>\" (tandem-run keygen writes them)");
    return k;
}

}  // namespace detail

TANDEM_INLINE key_pair key_pair::generate() {
    tandem::detail::require_sodium();
    key_bytes s;
    randombytes_buf(s.data(), s.size());
    key_pair k = from_secret(s);
    tandem::detail::wipe(s.data(), s.size());
    return k;
}

TANDEM_INLINE key_pair key_pair::from_secret(const key_bytes& secret) {
    tandem::detail::require_sodium();
    key_pair k;
    k.secret_ = secret;
    crypto_scalarmult_base(k.public_.bytes.data(), k.secret_.data());
    return k;
}

TANDEM_INLINE pre_shared_key pre_shared_key::generate() {
    tandem::detail::require_sodium();
    key_bytes b;
    randombytes_buf(b.data(), b.size());
    pre_shared_key k(b);
    tandem::detail::wipe(b.data(), b.size());
    return k;
}

TANDEM_INLINE std::string to_hex(const key_bytes& k) {
    char hex[65];
    sodium_bin2hex(hex, sizeof hex, k.data(), k.size());
    return std::string(hex, 64);
}

TANDEM_INLINE void save_key_pair(const key_pair& k, const std::string& secret_path, const std::string& public_path) {
    detail::write_key_file(secret_path, detail::secret_tag, k.secret(), true);
    detail::write_key_file(public_path, detail::public_tag, k.public_part().bytes, false);
}

TANDEM_INLINE key_pair load_key_pair(const std::string& secret_path) {
    key_bytes s = detail::read_key_file(secret_path, detail::secret_tag, true);
    key_pair k = key_pair::from_secret(s);
    tandem::detail::wipe(s.data(), s.size());
    return k;
}

TANDEM_INLINE public_key load_public_key(const std::string& path) {
    return public_key{detail::read_key_file(path, detail::public_tag, false)};
}

TANDEM_INLINE void save_pre_shared_key(const pre_shared_key& k, const std::string& path) {
    detail::write_key_file(path, detail::psk_tag, k.bytes(), true);
}

TANDEM_INLINE pre_shared_key load_pre_shared_key(const std::string& path) {
    key_bytes b = detail::read_key_file(path, detail::psk_tag, true);
    pre_shared_key k(b);
    tandem::detail::wipe(b.data(), b.size());
    return k;
}

}  // namespace tandem::net

// tandem/crypto/prg.hpp — AES-CTR pseudorandom generator, seeded from the OS.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include <sys/random.h>

TANDEM_CRYPTO_BEGIN

namespace tandem {

/// A random block from the operating system (getrandom(2)).
inline block os_random_block() {
    unsigned char bytes[16];
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw error(std::string("tandem: getrandom failed: ") + std::strerror(errno));
        }
        got += static_cast<std::size_t>(n);
    }
    return block::load(bytes);
}

/// AES-128 in counter mode: block i of the stream is AES_seed(i).
/// Seeded from the OS by default; a fixed seed makes runs reproducible (tests).
class prg {
public:
    prg() : prg(os_random_block()) {}
    explicit prg(block seed) : key_((detail::require_aes_instructions(), seed)) {
        detail::mark_secret(&key_, sizeof key_);  // so is everything drawn: Δ, labels (detail/secret.hpp)
    }
    prg(const prg&) = delete;  // two copies would repeat the stream
    prg& operator=(const prg&) = delete;
    ~prg() { detail::wipe(&key_, sizeof key_); }

    block next() {
        block b(0, counter_++);
        return key_.encrypt(b);
    }
    /// Moves to block `position` of the stream (a part of it drawn apart).
    void seek(std::uint64_t position) noexcept { counter_ = position; }
    void fill(block* out, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) out[i] = block(0, counter_++);
        key_.encrypt(out, n);
    }

private:
    aes_key key_;
    std::uint64_t counter_ = 0;
};

}  // namespace tandem

TANDEM_CRYPTO_END

// tandem/crypto/sodium.hpp — libsodium, initialised once before its first
// use (the base OTs, the link handshake and ciphers, link keys).
#pragma once

#include <tandem/error.hpp>

#include <sodium.h>

namespace tandem::detail {

/// Initialises libsodium (thread-safe and idempotent); throws
/// tandem::error if it cannot.
inline void require_sodium() {
    static const bool ok = sodium_init() >= 0;
    if (!ok) throw error("tandem: libsodium failed to initialise (sodium_init)");
}

}  // namespace tandem::detail

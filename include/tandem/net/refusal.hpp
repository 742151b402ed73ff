// tandem/net/refusal.hpp — how a server that is full turns a peer away.
//
// An async_listener (tandem/async.hpp) at its limit of open sessions still
// accepts the connection, sends this 16-byte frame in place of anything
// else, and closes it. The peer reads it where it expects the other side's
// first bytes — the session hello, the Noise greeting, a TLS record header:
// each of those checks for it first — and fails with network_error saying
// that the server is full, which a client can retry, instead of a protocol
// error about bytes it did not understand.
#pragma once

#include <tandem/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace tandem::net::detail {

inline constexpr std::uint64_t refusal_magic = 0x314c4c5546444e54ull;  // "TNDFULL1" little-endian
inline constexpr std::size_t refusal_bytes = 16;                        // magic, the limit (u32), 4 zero bytes

inline std::array<std::uint8_t, refusal_bytes> refusal(std::uint32_t max_sessions) {
    std::array<std::uint8_t, refusal_bytes> f{};
    std::memcpy(f.data(), &refusal_magic, 8);
    std::memcpy(f.data() + 8, &max_sessions, 4);
    return f;
}

/// Whether `first` — the peer's first bytes, at least 5 — begin a refusal.
inline bool is_refusal(const void* first, std::size_t n) noexcept {
    return n >= 5 && std::memcmp(first, &refusal_magic, std::min<std::size_t>(n, 8)) == 0;
}

/// The error of a refused peer; `frame` holds the whole refusal.
[[noreturn]] inline void fail_refused(const std::string& where, const void* frame) {
    std::uint32_t limit;
    std::memcpy(&limit, static_cast<const std::uint8_t*>(frame) + 8, 4);
    throw network_error(where + ": the server refused this session: it is full (" + std::to_string(limit) +
                        " open sessions, its limit); try again later");
}

}  // namespace tandem::net::detail

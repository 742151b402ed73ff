// tandem/session/link_preface.hpp — the clear preface of a worker link over
// TCP: what lets one listening port tell a peer's worker links from new
// peers, and give each link to its session.
//
// A session with threads > 1 or IPP opens more connections to the same
// port once its main link is set up (session/setup.hpp, open_worker_links).
// The party that connects sends, before anything else on each of them,
//
//   magic "LNKTNDM1" (8 bytes) | session id (8) | link index (4)   (little-endian)
//
// — the session id is Alice's public draw, sent on the main link. The
// magic's first byte, 'L', is no first byte a party sends on a main link
// ('T' of a hello or a Noise greeting, 0x16 of a TLS record), so a server
// of many peers (tandem/async.hpp's listener) reads one byte to route a
// connection. The preface is in the clear and authenticates nothing: on
// protected links, the link's intro inside the protection (the same id and
// index, checked) does. In-process channels and a user's own openers send
// none: it is the TCP openers' business (session/session_impl.hpp, async).
#pragma once

#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/session/options.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

namespace tandem::detail {

inline constexpr std::uint64_t link_preface_magic = 0x314d444e544b4e4cull;  // "LNKTNDM1" little-endian
inline constexpr auto link_preface_first_byte = static_cast<std::uint8_t>(link_preface_magic & 0xff);  // 'L'
inline constexpr std::size_t link_preface_bytes = 20;

/// The preface of link `id`, as sent.
inline std::array<std::uint8_t, link_preface_bytes> link_preface(const link_id& id) noexcept {
    std::array<std::uint8_t, link_preface_bytes> p{};
    std::memcpy(p.data(), &link_preface_magic, 8);
    std::memcpy(p.data() + 8, &id.session, 8);
    std::memcpy(p.data() + 16, &id.index, 4);
    return p;
}

/// The link a received preface names; false if it is none.
inline bool read_link_preface(const std::uint8_t* p, link_id& id) noexcept {
    std::uint64_t magic = 0;
    std::memcpy(&magic, p, 8);
    if (magic != link_preface_magic) return false;
    std::memcpy(&id.session, p + 8, 8);
    std::memcpy(&id.index, p + 16, 4);
    return true;
}

/// Sends link `id`'s preface on a connection just made.
inline void send_link_preface(net::channel& link, const link_id& id) {
    const auto p = link_preface(id);
    link.send(p.data(), p.size());
    link.flush();
}

/// The error of worker connection `index` that turned out to be another's
/// (a wrong preface, or a wrong intro inside a protected link).
inline protocol_error foreign_worker_link(std::uint32_t index, const std::string& link_name) {
    return protocol_error("session set-up: worker connection " + std::to_string(index) + " on " + link_name +
                          " does not belong to this session (another client connected to the port?); retry on a "
                          "port only the peer uses");
}

/// Receives a preface on a connection just accepted, for a session that
/// expects link `id` there (one peer per port: session::listen/accept).
inline void expect_link_preface(net::channel& link, const link_id& id) {
    std::array<std::uint8_t, link_preface_bytes> p{};
    link.recv(p.data(), p.size());
    link_id got{};
    if (!read_link_preface(p.data(), got) || got.session != id.session || got.index != id.index)
        throw foreign_worker_link(id.index, link.name());
}

}  // namespace tandem::detail

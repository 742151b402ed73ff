// tandem/net/tcp.hpp — channels over TCP (IPv4 and IPv6), on standalone Asio.
//
// Connecting and accepting are bounded by a deadline; once connected, the
// socket is non-blocking and data moves with Asio's read_some/write_some
// straight from and into the channel's buffers, a wait for readiness bounded
// by the channel's timeout between them. Writes never raise SIGPIPE (Asio
// sends with MSG_NOSIGNAL): a peer that vanished gives network_error. Name
// lookup is the system resolver's (Asio's resolver over getaddrinfo): it takes
// as long as the resolver's own timeouts allow (resolv.conf), which a numeric
// address never waits for.
//
// Asio stays out of this header: the definitions are in net/tcp_impl.hpp,
// compiled once into the library (src/net.cpp) with CMake's tandem::tandem,
// or included below when tandem is used header-only (docs/DESIGN.md §10).
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/net/channel.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tandem::net {

namespace detail {
struct tcp_socket;    // an Asio socket and the io_context its waits run on
struct tcp_acceptor;  // an Asio acceptor and its io_context

/// Whether two ends of a connection, by their IP addresses (text, IPv4 or
/// IPv6), are on one host: the peer's is a loopback address or equal to this
/// end's (an IPv4 address mapped into IPv6 counts as the IPv4 one). False
/// for text that is not an address. (tcp_channel::peer_on_this_host.)
bool same_host(const std::string& mine, const std::string& peer);
}  // namespace detail

/// A channel over one TCP connection (tcp_listener::accept, tcp_connect).
class tcp_channel final : public channel {
public:
    /// Kernel send and receive buffers asked for at set-up.
    static constexpr int kernel_buffer_bytes = 4 << 20;

    /// For tcp_listener::accept and tcp_connect: a connected socket.
    tcp_channel(std::unique_ptr<detail::tcp_socket> socket, std::string name);
    ~tcp_channel() override;

    /// Closes the connection; the peer's next call fails with network_error.
    void close() noexcept override;
    /// Shuts the socket down without releasing the descriptor, so a thread
    /// waiting on it wakes and fails instead of touching a reused descriptor.
    void interrupt() noexcept override;
    bool peer_on_this_host() const noexcept override;
    bool waits_suspend() const noexcept override { return true; }

protected:
    void write_all(const std::byte* p, std::size_t n, const char* op) override;
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) override;

private:
    /// Waits until the socket is ready to write (or read) or timeout() passes.
    void wait(bool for_write, const char* op);

    std::unique_ptr<detail::tcp_socket> s_;
};

/// Listens on a port; accept() takes one connection at a time. Port 0 picks a
/// free port (see port()).
class tcp_listener {
public:
    /// Listens on `address` (an IPv4 or IPv6 address; usage_error otherwise).
    explicit tcp_listener(std::uint16_t port, const std::string& address = "0.0.0.0");
    tcp_listener(tcp_listener&&) noexcept;
    tcp_listener& operator=(tcp_listener&&) noexcept;
    ~tcp_listener();

    /// The port listened on.
    std::uint16_t port() const;

    /// Waits up to `timeout` for the peer to connect.
    std::unique_ptr<tcp_channel> accept(std::chrono::milliseconds timeout = default_connect_timeout);

private:
    std::unique_ptr<detail::tcp_acceptor> a_;
};

/// Connects to host:port, retrying (the peer may not listen yet) until
/// `timeout`; each address the name has is tried in the resolver's order.
std::unique_ptr<tcp_channel> tcp_connect(const std::string& host, std::uint16_t port,
                                         std::chrono::milliseconds timeout = default_connect_timeout);

}  // namespace tandem::net

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/net/tcp_impl.hpp>
#endif

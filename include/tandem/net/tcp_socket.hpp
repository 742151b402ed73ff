// tandem/net/tcp_socket.hpp — what a TCP channel holds (net/tcp.hpp): an
// Asio socket, and how it waits. Internal: included by the definitions of
// the TCP channel (net/tcp_impl.hpp) and of asynchronous sessions
// (session/async_impl.hpp), never by a program's own headers.
#pragma once

#include <tandem/net/channel.hpp>

#include <asio/any_io_executor.hpp>
#include <asio/error.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/steady_timer.hpp>

#include <fcntl.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tandem::net::detail {

struct tcp_socket {
    /// A blocking socket: an io_context of its own, run by the channel's
    /// thread only while it waits.
    tcp_socket() : own(std::in_place, 1), socket(*own) {}  // (concurrency hint: one thread runs it)
    /// A socket of an asynchronous session: on `executor` (a strand of the
    /// user's io_context), where its waits suspend their task
    /// (net/tcp_impl.hpp).
    explicit tcp_socket(const asio::any_io_executor& executor) : socket(executor), timer(std::in_place, executor) {}

    std::optional<asio::io_context> own;
    asio::ip::tcp::socket socket;
    std::optional<asio::steady_timer> timer;  // an asynchronous socket's deadline

};

/// A blocking socket's descriptor seen from tandem's background I/O thread
/// (net/suspend.hpp), for one suspended wait of a oneTBB task that uses it.
/// It never owns the descriptor: it is released, not closed, as soon as the
/// wait is over — on the background thread, before the task resumes — since
/// a registered descriptor would wake that thread at every segment the
/// socket receives from then on.
struct background_view {
    background_view(asio::io_context& io, int fd) : descriptor(io, fd), timer(io) {}
    background_view(const background_view&) = delete;
    background_view& operator=(const background_view&) = delete;
    ~background_view() { forget(); }
    void forget() noexcept {
        if (descriptor.is_open()) (void)descriptor.release();
    }
    asio::posix::stream_descriptor descriptor;
    asio::steady_timer timer;
};

struct tcp_acceptor {
    asio::io_context io{1};
    asio::ip::tcp::acceptor acceptor{io};
};

/// Keeps a socket from leaking into programs this process executes (Asio
/// opens descriptors without close-on-exec).
inline void close_on_exec(int fd) noexcept {
    if (fd >= 0) ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

/// "address:port", for messages.
inline std::string endpoint_name(const asio::ip::tcp::endpoint& e) {
    return e.address().to_string() + ":" + std::to_string(e.port());
}

/// Makes `a` listen on address:port (port 0: a free one) — tcp_listener's and
/// async_listener's acceptors alike; `who` names the caller in errors.
inline void listen_on(asio::ip::tcp::acceptor& a, std::uint16_t port, const std::string& address, const char* who) {
    asio::error_code ec;
    const asio::ip::address ip = asio::ip::make_address(address, ec);
    if (ec) throw usage_error(std::string(who) + ": '" + address + "' is not an IP address (IPv4 or IPv6)");
    const asio::ip::tcp::endpoint at(ip, port);
    a.open(at.protocol(), ec);
    if (!ec) {
        close_on_exec(a.native_handle());
        a.set_option(asio::socket_base::reuse_address(true), ec);
    }
    if (!ec) a.bind(at, ec);
    if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw network_error("cannot listen on " + endpoint_name(at) + ": " + ec.message() +
                            " (is another program using the port?)");
}

/// The port `a` listens on.
inline std::uint16_t listening_port(const asio::ip::tcp::acceptor& a, const char* who) {
    asio::error_code ec;
    const asio::ip::tcp::endpoint at = a.local_endpoint(ec);
    if (ec) throw network_error(std::string(who) + ": cannot read the local port: " + ec.message());
    return at.port();
}

/// Whether an accept that failed with `ec` should wait for the next peer:
/// the peer went before it was taken, or a signal. Anything else (no
/// descriptors left, …) is an error to report, not to retry at once.
inline bool accept_again(const asio::error_code& ec) noexcept {
    return ec == asio::error::connection_aborted || ec == asio::error::interrupted ||
           ec == asio::error::would_block || ec == asio::error::try_again;
}

/// The errors of a connection that could not be made (tcp_connect, async_connect).
inline network_error cannot_resolve(const std::string& target, const std::string& host, const asio::error_code& ec) {
    return network_error("connect to " + target + ": cannot resolve '" + host + "': " + ec.message());
}
inline network_error no_connection(const std::string& target, std::chrono::milliseconds timeout,
                                   const std::string& last) {
    return network_error("connect to " + target + ": no connection within " + std::to_string(timeout.count()) +
                         " ms (last attempt: " + last + "); is the other party running and listening there?");
}

}  // namespace tandem::net::detail

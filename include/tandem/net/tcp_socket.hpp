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
#include <asio/steady_timer.hpp>

#include <fcntl.h>

#include <optional>
#include <string>

namespace tandem::net::detail {

struct tcp_socket;

/// How the socket of an asynchronous session waits (tandem/async.hpp): the
/// oneTBB task that runs the session suspends, and the wait is one
/// async_wait on the user's io_context, so no thread is parked on the socket.
struct async_waits {
    virtual ~async_waits() = default;
    /// Waits until `s` is ready to write (or read) or `timeout` passes; the
    /// wait's error code, or nothing when the timeout passed first.
    virtual std::optional<asio::error_code> wait(tcp_socket& s, bool for_write, clock::duration timeout) = 0;
};

struct tcp_socket {
    /// A blocking socket: an io_context of its own, run by the channel's
    /// thread only while it waits.
    tcp_socket() : own(std::in_place, 1), socket(*own) {}  // (concurrency hint: one thread runs it)
    /// A socket of an asynchronous session: on `executor` (a strand of the
    /// user's io_context), waiting through `waits`.
    tcp_socket(const asio::any_io_executor& executor, async_waits& w)
        : socket(executor), timer(std::in_place, executor), waits(&w) {}

    std::optional<asio::io_context> own;
    asio::ip::tcp::socket socket;
    std::optional<asio::steady_timer> timer;  // an asynchronous socket's deadline
    async_waits* waits = nullptr;
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

}  // namespace tandem::net::detail

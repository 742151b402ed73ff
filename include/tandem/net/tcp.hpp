// tandem/net/tcp.hpp — channels over TCP (standalone Asio).
//
// Asio resolves, connects and accepts (asynchronously, bounded by run_for so
// every wait has a deadline). Once connected, the socket is switched to
// non-blocking mode and data moves with send/recv + poll on the native
// handle: no io_context round trip per buffer on the hot path, and each wait
// is bounded by the channel's timeout. Writes use MSG_NOSIGNAL, so a peer
// that vanished gives network_error, never SIGPIPE.
#pragma once

#include <tandem/net/channel.hpp>

#include <asio.hpp>

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace tandem::net {


/// A channel over one TCP connection (tcp_listener::accept, tcp_connect).
class tcp_channel final : public channel {
public:
    static constexpr int kernel_buffer_bytes = 4 << 20;

    tcp_channel(std::unique_ptr<asio::io_context> io, asio::ip::tcp::socket socket, std::string name)
        : channel(std::move(name)), io_(std::move(io)), socket_(std::move(socket)) {
        std::error_code ec;
        socket_.set_option(asio::ip::tcp::no_delay(true), ec);  // we batch ourselves; flush means now
        // Large kernel buffers from the start: garbled tables stream at GB/s,
        // and the autotuned windows would take several runs to grow.
        socket_.set_option(asio::socket_base::send_buffer_size(kernel_buffer_bytes), ec);
        socket_.set_option(asio::socket_base::receive_buffer_size(kernel_buffer_bytes), ec);
        ec.clear();  // a smaller buffer than asked for only costs speed
        socket_.non_blocking(true, ec);
        if (ec) fail("set-up", ec.message());
    }
    ~tcp_channel() override {
        std::error_code ec;
        socket_.close(ec);
    }

    /// Closes the connection; the peer's next call fails with network_error.
    void close() noexcept override {
        std::error_code ec;
        socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
        socket_.close(ec);
    }

    /// Shuts the socket down without releasing the descriptor, so a thread
    /// blocked in poll() wakes and fails instead of touching a reused fd.
    void interrupt() noexcept override { ::shutdown(socket_.native_handle(), SHUT_RDWR); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char* op) override {
        while (n > 0) {
            const ssize_t k = ::send(socket_.native_handle(), p, n, MSG_NOSIGNAL);
            if (k > 0) {
                p += k;
                n -= static_cast<std::size_t>(k);
            } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                wait(POLLOUT, op);
            } else if (k < 0 && errno == EINTR) {
                continue;
            } else if (k < 0 && (errno == EPIPE || errno == ECONNRESET)) {
                fail_closed(op);
            } else {
                fail(op, std::strerror(errno));
            }
        }
    }

    std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) override {
        std::size_t got = 0;
        while (got < min) {
            const ssize_t k = ::recv(socket_.native_handle(), p + got, max - got, 0);
            if (k > 0) {
                got += static_cast<std::size_t>(k);
            } else if (k == 0) {
                fail_closed("recv");
            } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                wait(POLLIN, "recv");
            } else if (errno == EINTR) {
                continue;
            } else if (errno == ECONNRESET) {
                fail_closed("recv");
            } else {
                fail("recv", std::strerror(errno));
            }
        }
        return got;
    }

private:
    /// Waits until the socket is ready for `events` or timeout() passes.
    void wait(short events, const char* op) {
        pollfd fd{socket_.native_handle(), events, 0};
        for (;;) {
            const int r = ::poll(&fd, 1, static_cast<int>(timeout().count()));
            if (r > 0) return;  // ready, or an error the next send/recv reports
            if (r == 0) fail_deadline(op);
            if (errno != EINTR) fail(op, std::strerror(errno));
        }
    }

    std::unique_ptr<asio::io_context> io_;  // outlives the socket
    asio::ip::tcp::socket socket_;
};

namespace detail {

/// Runs io until `done` or the deadline; false on timeout (operations cancelled).
template <class Closer>
bool run_until(asio::io_context& io, const bool& done, clock::time_point deadline, Closer&& cancel) {
    io.restart();
    while (!done && clock::now() < deadline) io.run_one_until(deadline);
    if (done) return true;
    cancel();
    io.restart();
    io.run();  // let the cancelled handlers finish before their state goes away
    return false;
}

inline std::string endpoint_name(const asio::ip::tcp::endpoint& e) {
    return e.address().to_string() + ":" + std::to_string(e.port());
}

}  // namespace detail

/// Listens on a port; accept() takes one connection at a time. Port 0 picks a
/// free port (see port()).
class tcp_listener {
public:
    explicit tcp_listener(std::uint16_t port, const std::string& address = "0.0.0.0")
        : io_(std::make_unique<asio::io_context>()), acceptor_(*io_) {
        std::error_code ec;
        asio::ip::tcp::endpoint ep(asio::ip::make_address(address, ec), port);
        if (ec) throw usage_error("tcp_listener: '" + address + "' is not an IP address: " + ec.message());
        acceptor_.open(ep.protocol(), ec);
        if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
        if (!ec) acceptor_.bind(ep, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
        if (ec)
            throw network_error("cannot listen on " + detail::endpoint_name(ep) + ": " + ec.message() +
                                " (is another program using the port?)");
    }

    std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

    /// Waits up to `timeout` for the peer to connect.
    std::unique_ptr<tcp_channel> accept(std::chrono::milliseconds timeout = default_connect_timeout) {
        auto io = std::make_unique<asio::io_context>();
        asio::ip::tcp::socket socket(*io);
        bool done = false;
        std::error_code result;
        acceptor_.async_accept(socket, [&](std::error_code ec) { result = ec, done = true; });
        const bool ok = detail::run_until(*io_, done, clock::now() + timeout, [&] {
            std::error_code ignored;
            acceptor_.cancel(ignored);
        });
        if (!ok)
            throw network_error("accept on port " + std::to_string(port()) + ": no peer connected within " +
                                std::to_string(timeout.count()) +
                                " ms; start the other party, or check the address and port it connects to");
        if (result) throw network_error("accept on port " + std::to_string(port()) + ": " + result.message());
        // The socket was created on *io; it is only used through its native handle from now on.
        std::string name = "tcp from " + detail::endpoint_name(socket.remote_endpoint(result));
        return std::make_unique<tcp_channel>(std::move(io), std::move(socket), std::move(name));
    }

private:
    std::unique_ptr<asio::io_context> io_;
    asio::ip::tcp::acceptor acceptor_;
};

/// Connects to host:port, retrying (the peer may not listen yet) until `timeout`.
inline std::unique_ptr<tcp_channel> tcp_connect(const std::string& host, std::uint16_t port,
                                                std::chrono::milliseconds timeout = default_connect_timeout) {
    const clock::time_point deadline = clock::now() + timeout;
    const std::string target = host + ":" + std::to_string(port);
    std::string last = "no attempt";
    auto io = std::make_unique<asio::io_context>();
    asio::ip::tcp::resolver resolver(*io);
    asio::ip::tcp::resolver::results_type endpoints;
    {  // name lookup is bounded by the same deadline
        bool done = false;
        std::error_code result;
        resolver.async_resolve(host, std::to_string(port),
                               [&](std::error_code e, asio::ip::tcp::resolver::results_type r) {
                                   result = e, endpoints = std::move(r), done = true;
                               });
        if (!detail::run_until(*io, done, deadline, [&] { resolver.cancel(); }))
            throw network_error("connect to " + target + ": resolving '" + host + "' took longer than " +
                                std::to_string(timeout.count()) + " ms");
        if (result) throw network_error("connect to " + target + ": cannot resolve '" + host + "': " + result.message());
    }
    while (clock::now() < deadline) {
        asio::ip::tcp::socket socket(*io);
        bool done = false;
        std::error_code result;
        asio::async_connect(socket, endpoints, [&](std::error_code e, const asio::ip::tcp::endpoint&) {
            result = e, done = true;
        });
        const bool ok = detail::run_until(*io, done, deadline, [&] {
            std::error_code ignored;
            socket.close(ignored);
        });
        if (ok && !result) return std::make_unique<tcp_channel>(std::move(io), std::move(socket), "tcp to " + target);
        last = ok ? result.message() : "timed out";
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // not listening yet: try again shortly
    }
    throw network_error("connect to " + target + ": no connection within " + std::to_string(timeout.count()) +
                        " ms (last attempt: " + last + "); is the other party running and listening there?");
}

}  // namespace tandem::net

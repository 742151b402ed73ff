// tandem/net/tcp.hpp — channels over TCP, on POSIX sockets.
//
// Connecting and accepting are bounded by a deadline (a non-blocking connect
// or a listening socket, polled); once connected, the socket is non-blocking
// and data moves with send/recv + poll, each wait bounded by the channel's
// timeout. Writes use MSG_NOSIGNAL, so a peer that vanished gives
// network_error, never SIGPIPE. Name lookup is getaddrinfo's: it takes as
// long as the system resolver's own timeouts allow (resolv.conf), which a
// numeric address never waits for.
//
// Until issue 29 the set-up went through standalone Asio; it was the largest
// single cost of compiling a program that includes the whole library
// (~4 s of 27 s, bench/RESULTS.md), for three calls that POSIX has directly.
#pragma once

#include <tandem/net/channel.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>

namespace tandem::net {

namespace detail {

/// A socket descriptor, closed on destruction.
class socket_fd {
public:
    socket_fd() noexcept = default;
    explicit socket_fd(int fd) noexcept : fd_(fd) {}
    socket_fd(socket_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    socket_fd& operator=(socket_fd&& o) noexcept {
        if (this != &o) reset(std::exchange(o.fd_, -1));
        return *this;
    }
    ~socket_fd() { reset(); }
    int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

/// Milliseconds left until `deadline` (0 when it passed), for poll().
inline int millis_left(clock::time_point deadline) noexcept {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
    return static_cast<int>(std::clamp<decltype(left)>(left, 0, 1 << 30));
}

/// Waits until fd is ready for `events` or the deadline passes; false on timeout.
inline bool poll_until(int fd, short events, clock::time_point deadline) {
    pollfd p{fd, events, 0};
    for (;;) {
        const int r = ::poll(&p, 1, millis_left(deadline));
        if (r > 0) return true;
        if (r == 0) return false;
        if (errno != EINTR) return true;  // the call that follows reports the error
    }
}

/// "address:port" of a socket address (IPv4 or IPv6).
inline std::string endpoint_name(const sockaddr_storage& a) {
    char text[INET6_ADDRSTRLEN] = "?";
    std::uint16_t port = 0;
    if (a.ss_family == AF_INET) {
        const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
        ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
        port = ntohs(v4.sin_port);
    } else if (a.ss_family == AF_INET6) {
        const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
        ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
        port = ntohs(v6.sin6_port);
    }
    return std::string(text) + ":" + std::to_string(port);
}

inline std::string errno_text(int e) { return std::strerror(e); }

/// Whether a connection's two ends are on one host: the peer's address is a
/// loopback one, or the same as this end's (IPv4, IPv6, or IPv4 mapped into IPv6).
inline bool same_host(const sockaddr_storage& mine, const sockaddr_storage& peer) noexcept {
    // Both as 16-byte IPv6 addresses (IPv4 mapped), or false for other families.
    const auto as_v6 = [](const sockaddr_storage& a, in6_addr& out) {
        if (a.ss_family == AF_INET6) {
            out = reinterpret_cast<const sockaddr_in6&>(a).sin6_addr;
            return true;
        }
        if (a.ss_family != AF_INET) return false;
        out = in6_addr{};
        out.s6_addr[10] = out.s6_addr[11] = 0xff;
        std::memcpy(&out.s6_addr[12], &reinterpret_cast<const sockaddr_in&>(a).sin_addr, 4);
        return true;
    };
    in6_addr m{}, p{};
    if (!as_v6(mine, m) || !as_v6(peer, p)) return false;
    const bool loopback = IN6_IS_ADDR_LOOPBACK(&p) || (IN6_IS_ADDR_V4MAPPED(&p) && p.s6_addr[12] == 127);
    return loopback || std::memcmp(&m, &p, sizeof m) == 0;
}

}  // namespace detail

/// A channel over one TCP connection (tcp_listener::accept, tcp_connect).
class tcp_channel final : public channel {
public:
    static constexpr int kernel_buffer_bytes = 4 << 20;

    tcp_channel(detail::socket_fd socket, std::string name) : channel(std::move(name)), socket_(std::move(socket)) {
        const int fd = socket_.get();
        const int one = 1, bytes = kernel_buffer_bytes;
        // Failures here only cost speed: we batch ourselves (flush means now),
        // and large kernel buffers from the start let tables stream at GB/s
        // where the autotuned windows would take several runs to grow.
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) fail("set-up", detail::errno_text(errno));
    }

    /// Closes the connection; the peer's next call fails with network_error.
    void close() noexcept override {
        if (socket_) ::shutdown(socket_.get(), SHUT_RDWR);
        socket_.reset();
    }

    /// Shuts the socket down without releasing the descriptor, so a thread
    /// blocked in poll() wakes and fails instead of touching a reused fd.
    void interrupt() noexcept override { ::shutdown(socket_.get(), SHUT_RDWR); }

    bool peer_on_this_host() const noexcept override {
        sockaddr_storage mine{}, peer{};
        socklen_t mine_size = sizeof mine, peer_size = sizeof peer;
        return ::getsockname(socket_.get(), reinterpret_cast<sockaddr*>(&mine), &mine_size) == 0 &&
               ::getpeername(socket_.get(), reinterpret_cast<sockaddr*>(&peer), &peer_size) == 0 &&
               detail::same_host(mine, peer);
    }

protected:
    void write_all(const std::byte* p, std::size_t n, const char* op) override {
        while (n > 0) {
            const ssize_t k = ::send(socket_.get(), p, n, MSG_NOSIGNAL);
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
                fail(op, detail::errno_text(errno));
            }
        }
    }

    std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) override {
        std::size_t got = 0;
        while (got < min) {
            const ssize_t k = ::recv(socket_.get(), p + got, max - got, 0);
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
                fail("recv", detail::errno_text(errno));
            }
        }
        return got;
    }

private:
    /// Waits until the socket is ready for `events` or timeout() passes.
    void wait(short events, const char* op) {
        pollfd fd{socket_.get(), events, 0};
        for (;;) {
            const int r = ::poll(&fd, 1, static_cast<int>(timeout().count()));
            if (r > 0) return;  // ready, or an error the next send/recv reports
            if (r == 0) fail_deadline(op);
            if (errno != EINTR) fail(op, detail::errno_text(errno));
        }
    }

    detail::socket_fd socket_;
};

/// Listens on a port; accept() takes one connection at a time. Port 0 picks a
/// free port (see port()).
class tcp_listener {
public:
    explicit tcp_listener(std::uint16_t port, const std::string& address = "0.0.0.0") {
        sockaddr_storage a{};
        socklen_t size = 0;
        if (auto& v4 = reinterpret_cast<sockaddr_in&>(a); ::inet_pton(AF_INET, address.c_str(), &v4.sin_addr) == 1) {
            v4.sin_family = AF_INET;
            v4.sin_port = htons(port);
            size = sizeof v4;
        } else if (auto& v6 = reinterpret_cast<sockaddr_in6&>(a);
                   ::inet_pton(AF_INET6, address.c_str(), &v6.sin6_addr) == 1) {
            v6.sin6_family = AF_INET6;
            v6.sin6_port = htons(port);
            size = sizeof v6;
        } else {
            throw usage_error("tcp_listener: '" + address + "' is not an IP address (IPv4 or IPv6)");
        }
        const int one = 1;
        socket_.reset(::socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (!socket_ || ::setsockopt(socket_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
            ::bind(socket_.get(), reinterpret_cast<const sockaddr*>(&a), size) != 0 ||
            ::listen(socket_.get(), SOMAXCONN) != 0)
            throw network_error("cannot listen on " + detail::endpoint_name(a) + ": " + detail::errno_text(errno) +
                                " (is another program using the port?)");
    }

    std::uint16_t port() const {
        sockaddr_storage a{};
        socklen_t size = sizeof a;
        if (::getsockname(socket_.get(), reinterpret_cast<sockaddr*>(&a), &size) != 0)
            throw network_error("tcp_listener: cannot read the local port: " + detail::errno_text(errno));
        return a.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port)
                                       : ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
    }

    /// Waits up to `timeout` for the peer to connect.
    std::unique_ptr<tcp_channel> accept(std::chrono::milliseconds timeout = default_connect_timeout) {
        const clock::time_point deadline = clock::now() + timeout;
        for (;;) {
            if (!detail::poll_until(socket_.get(), POLLIN, deadline))
                throw network_error("accept on port " + std::to_string(port()) + ": no peer connected within " +
                                    std::to_string(timeout.count()) +
                                    " ms; start the other party, or check the address and port it connects to");
            sockaddr_storage peer{};
            socklen_t size = sizeof peer;
            detail::socket_fd s(::accept4(socket_.get(), reinterpret_cast<sockaddr*>(&peer), &size, SOCK_CLOEXEC));
            if (s) return std::make_unique<tcp_channel>(std::move(s), "tcp from " + detail::endpoint_name(peer));
            // Gone before we took it, or a signal: wait for the next one.
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED && errno != EINTR)
                throw network_error("accept on port " + std::to_string(port()) + ": " + detail::errno_text(errno));
        }
    }

private:
    detail::socket_fd socket_;
};

/// Connects to host:port, retrying (the peer may not listen yet) until
/// `timeout`; each address the name has is tried in the resolver's order.
inline std::unique_ptr<tcp_channel> tcp_connect(const std::string& host, std::uint16_t port,
                                                std::chrono::milliseconds timeout = default_connect_timeout) {
    const clock::time_point deadline = clock::now() + timeout;
    const std::string target = host + ":" + std::to_string(port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int e = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); e != 0)
        throw network_error("connect to " + target + ": cannot resolve '" + host +
                            "': " + (e == EAI_SYSTEM ? detail::errno_text(errno) : ::gai_strerror(e)));
    const std::unique_ptr<addrinfo, void (*)(addrinfo*)> endpoints(found, ::freeaddrinfo);
    std::string last = "no attempt";
    while (clock::now() < deadline) {
        for (const addrinfo* a = endpoints.get(); a != nullptr && clock::now() < deadline; a = a->ai_next) {
            detail::socket_fd s(::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
            if (!s) {
                last = detail::errno_text(errno);
                continue;
            }
            int error = ::connect(s.get(), a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
            if (error == EINPROGRESS || error == EINTR) {
                if (!detail::poll_until(s.get(), POLLOUT, deadline)) {
                    last = "timed out";
                    break;
                }
                socklen_t size = sizeof error;
                if (::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
            }
            if (error == 0) return std::make_unique<tcp_channel>(std::move(s), "tcp to " + target);
            last = detail::errno_text(error);
        }
        // Not listening yet: try again shortly.
        std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(20), deadline - clock::now()));
    }
    throw network_error("connect to " + target + ": no connection within " + std::to_string(timeout.count()) +
                        " ms (last attempt: " + last + "); is the other party running and listening there?");
}

}  // namespace tandem::net

// tandem/net/tcp_impl.hpp — the definitions of net/tcp.hpp, on standalone
// Asio. Included at the end of tcp.hpp when tandem is used header-only;
// compiled once into the library, by src/net.cpp, when
// TANDEM_SEPARATE_COMPILATION is defined (user code then never sees Asio).
//
// Each socket has an io_context of its own, run only by the thread that
// uses the channel and only while it waits: data moves with non-blocking
// read_some/write_some, and when the kernel has nothing to give or no room,
// the descriptor is polled without sleeping for a few µs (became_ready),
// then one async_wait is run on the io_context until it completes or the
// channel's timeout passes. Connecting and accepting are one asynchronous
// operation each, run the same way until their deadline. A wait from a
// oneTBB task suspends the task instead, after the same polling — the
// socket is then watched from tandem's background I/O thread
// (net/suspend.hpp) — unless the task is one of a session's own arena
// (exec/workers_impl.hpp) that no other task of the arena waits for: that
// one blocks its thread, with one wake-up when the peer's bytes arrive
// (detail/thread_demand.hpp).
// A socket of an asynchronous session (tandem/async.hpp) has no io_context
// of its own: it lives on the user's, where its task suspends (a thread
// that cannot suspend polls it).
#pragma once

#include <tandem/detail/linkage.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/net/suspend.hpp>
#include <tandem/net/tcp_socket.hpp>

#include <asio/error.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/address.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>

namespace tandem::net {

namespace detail {

/// Starts one asynchronous operation on `io` (start(handler)) and runs io
/// until it completes or `deadline` passes. Past the deadline, cancel()
/// stops it and its handler — which refers to this frame — runs before this
/// returns. Returns the operation's error code, or nothing when the deadline
/// passed first.
template <class Start, class Cancel>
std::optional<asio::error_code> run_one(asio::io_context& io, clock::time_point deadline, Start start, Cancel cancel) {
    std::optional<asio::error_code> result;
    start([&result](const asio::error_code& ec, auto&&...) { result = ec; });
    io.restart();
    io.run_until(deadline);  // returns as soon as the one operation completed: no work is left
    if (result) return result;
    cancel();
    io.restart();
    io.run();
    return std::nullopt;
}

/// Whether a read or write found nothing to read or no room: wait, then retry.
inline bool must_wait(const asio::error_code& ec) noexcept {
    return ec == asio::error::would_block || ec == asio::error::try_again;
}

/// Whether a read or write failed because the peer closed or reset the link.
inline bool peer_gone(const asio::error_code& ec) noexcept {
    return ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
           ec == asio::error::shut_down;
}

/// How long a blocking channel polls its socket before it sleeps in a
/// wait. A sleeping thread's core may halt, and waking it costs tens of µs
/// on a virtual machine — more than the round trip of a small run's
/// messages, which mostly arrive within this window.
inline constexpr std::chrono::microseconds spin_before_sleep{40};

/// Whether fd becomes ready (or closed) within spin_before_sleep, polled
/// without sleeping. (It does not watch a session's arena for a ready task:
/// one that stopped at a ready task's first sign suspended where the bytes
/// were about to come, and two-worker mexp runs took 1.17× as long.)
inline bool became_ready(int fd, bool for_write) noexcept {
    pollfd p{fd, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
    const clock::time_point until = clock::now() + spin_before_sleep;
    do {
        if (::poll(&p, 1, 0) > 0) return true;
    } while (clock::now() < until);
    return false;
}

/// How a wait that polls its socket ended.
enum class blocked_wait { ready, timed_out, wanted, failed };

/// Blocks until fd is ready (or closed), `deadline` passes, or — with a
/// `demand` (a task of tandem's own arena: detail/thread_demand.hpp) — a
/// ready task of the arena wants a thread: then the caller suspends instead,
/// and its thread runs that task. `err` is set when it failed.
inline blocked_wait poll_until(int fd, bool for_write, const tandem::detail::thread_demand* demand,
                               clock::time_point deadline, int& err) noexcept {
    pollfd p[2] = {{fd, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {demand ? demand->fd() : -1, POLLIN, 0}};
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
        if (left <= 0) return blocked_wait::timed_out;
        const int r = ::poll(p, demand ? 2 : 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            err = errno;
            return blocked_wait::failed;
        }
        if (p[0].revents != 0) return blocked_wait::ready;  // the next read or write says which
        if (demand && p[1].revents != 0) return blocked_wait::wanted;
    }
}

/// same_host on parsed addresses.
inline bool same_host_ip(const asio::ip::address& mine, const asio::ip::address& peer) {
    const auto as_v6 = [](const asio::ip::address& a) {
        return a.is_v4() ? asio::ip::make_address_v6(asio::ip::v4_mapped, a.to_v4()) : a.to_v6();
    };
    const asio::ip::address_v6 m = as_v6(mine), p = as_v6(peer);
    const bool loopback =
        p.is_loopback() || (p.is_v4_mapped() && asio::ip::make_address_v4(asio::ip::v4_mapped, p).is_loopback());
    return loopback || m == p;
}

TANDEM_INLINE bool same_host(const std::string& mine, const std::string& peer) {
    asio::error_code e1, e2;
    const asio::ip::address m = asio::ip::make_address(mine, e1), p = asio::ip::make_address(peer, e2);
    return !e1 && !e2 && same_host_ip(m, p);
}

}  // namespace detail

TANDEM_INLINE tcp_channel::tcp_channel(std::unique_ptr<detail::tcp_socket> socket, std::string name)
    : channel(std::move(name)), s_(std::move(socket)) {
    asio::ip::tcp::socket& s = s_->socket;
    // Failures here only cost speed: we batch ourselves (flush means now),
    // and large kernel buffers from the start let tables stream at GB/s
    // where the autotuned windows would take several runs to grow.
    asio::error_code ignored;
    s.set_option(asio::ip::tcp::no_delay(true), ignored);
    s.set_option(asio::socket_base::send_buffer_size(kernel_buffer_bytes), ignored);
    s.set_option(asio::socket_base::receive_buffer_size(kernel_buffer_bytes), ignored);
    detail::close_on_exec(s.native_handle());
    asio::error_code ec;
    s.non_blocking(true, ec);
    if (ec) fail("set-up", ec.message());
}

TANDEM_INLINE tcp_channel::~tcp_channel() = default;

TANDEM_INLINE void tcp_channel::close() noexcept {
    asio::error_code ignored;
    s_->socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    s_->socket.close(ignored);
}

TANDEM_INLINE void tcp_channel::interrupt() noexcept {
    // The descriptor's own shutdown, not the socket object's: this runs on
    // another thread than the one that may be waiting in the io_context, and
    // the descriptor stays allocated (no other socket can take its number)
    // until that thread closes it.
    ::shutdown(s_->socket.native_handle(), SHUT_RDWR);
}

TANDEM_INLINE bool tcp_channel::peer_on_this_host() const noexcept {
    asio::error_code e1, e2;
    const asio::ip::tcp::endpoint mine = s_->socket.local_endpoint(e1);
    const asio::ip::tcp::endpoint peer = s_->socket.remote_endpoint(e2);
    return !e1 && !e2 && detail::same_host_ip(mine.address(), peer.address());
}

TANDEM_INLINE void tcp_channel::write_all(const std::byte* p, std::size_t n, const char* op) {
    while (n > 0) {
        asio::error_code ec;
        const std::size_t k = s_->socket.write_some(asio::buffer(p, n), ec);
        p += k;
        n -= k;
        if (!ec || ec == asio::error::interrupted) continue;
        if (detail::must_wait(ec)) {
            wait(true, op);
        } else if (detail::peer_gone(ec)) {
            fail_closed(op);
        } else {
            fail(op, ec.message());
        }
    }
}

TANDEM_INLINE std::size_t tcp_channel::read_some(std::byte* p, std::size_t min, std::size_t max) {
    std::size_t got = 0;
    while (got < min) {
        asio::error_code ec;
        got += s_->socket.read_some(asio::buffer(p + got, max - got), ec);
        if (!ec || ec == asio::error::interrupted) continue;
        if (detail::must_wait(ec)) {
            wait(false, "recv");
        } else if (detail::peer_gone(ec)) {
            fail_closed("recv");
        } else {
            fail("recv", ec.message());
        }
    }
    return got;
}

TANDEM_INLINE void tcp_channel::wait(bool for_write, const char* op) {
    asio::ip::tcp::socket& s = s_->socket;
    const int fd = s.native_handle();
    const clock::time_point deadline = clock::now() + timeout();
    // A socket of an asynchronous session lives on the user's io_context
    // (its strand and its timer) and never spins (the runtime's workers are
    // the io_context's threads' neighbours): its task blocks while its
    // operation is the runtime's only one and no other task wants a worker
    // (detail/thread_demand.hpp), and hands its worker back at once when one
    // does.
    const bool on_users_context = s_->timer.has_value();
    const bool task = detail::can_suspend();
    const tandem::detail::thread_demand* const demand = task ? tandem::detail::current_demand() : nullptr;
    if (!on_users_context && detail::became_ready(fd, for_write)) return;
    std::optional<asio::error_code> r;
    if (!task && !on_users_context) {
        const auto what = for_write ? asio::socket_base::wait_write : asio::socket_base::wait_read;
        r = detail::run_one(
            *s_->own, deadline, [&](auto handler) { s.async_wait(what, std::move(handler)); },
            [&] {
                asio::error_code ignored;
                s.cancel(ignored);
            });
        if (!r) fail_deadline(op);
        if (*r) fail(op, r->message());  // ready otherwise, or closed: the next read or write says which
        return;
    }
    // Blocking, where the thread may not move (no task) or where no other
    // task of the arena needs it (detail/thread_demand.hpp).
    if (!task || (demand && demand->may_block())) {
        int err = 0;
        switch (detail::poll_until(fd, for_write, demand, deadline, err)) {
        case detail::blocked_wait::ready: return;
        case detail::blocked_wait::timed_out: fail_deadline(op);
        case detail::blocked_wait::failed: fail(op, asio::error_code(err, asio::error::get_system_category()).message());
        case detail::blocked_wait::wanted: break;
        }
    }
    // Suspended: the socket is watched from the user's io_context, or
    // (a blocking socket) from the background I/O thread.
    const clock::duration left = std::max<clock::duration>(deadline - clock::now(), clock::duration::zero());
    if (on_users_context) {
        const auto what = for_write ? asio::socket_base::wait_write : asio::socket_base::wait_read;
        r = detail::suspend_until(
            s.get_executor(), *s_->timer, left, [&s, what](auto handler) { s.async_wait(what, std::move(handler)); },
            [&s] {
                asio::error_code ignored;
                s.cancel(ignored);
            },
            [] {});
    } else {
        detail::background_view view(detail::background().running(), fd);
        asio::posix::stream_descriptor& d = view.descriptor;
        const auto what = for_write ? asio::posix::descriptor_base::wait_write : asio::posix::descriptor_base::wait_read;
        r = detail::suspend_until(
            d.get_executor(), view.timer, left, [&d, what](auto handler) { d.async_wait(what, std::move(handler)); },
            [&d] {
                asio::error_code ignored;
                d.cancel(ignored);
            },
            [&view] { view.forget(); });
    }
    if (!r) fail_deadline(op);
    if (*r) fail(op, r->message());
}

TANDEM_INLINE tcp_listener::tcp_listener(std::uint16_t port, const std::string& address)
    : a_(std::make_unique<detail::tcp_acceptor>()) {
    detail::listen_on(a_->acceptor, port, address, "tcp_listener");
}

TANDEM_INLINE tcp_listener::tcp_listener(tcp_listener&&) noexcept = default;
TANDEM_INLINE tcp_listener& tcp_listener::operator=(tcp_listener&&) noexcept = default;
TANDEM_INLINE tcp_listener::~tcp_listener() = default;

TANDEM_INLINE std::uint16_t tcp_listener::port() const { return detail::listening_port(a_->acceptor, "tcp_listener"); }

TANDEM_INLINE std::unique_ptr<tcp_channel> tcp_listener::accept(std::chrono::milliseconds timeout) {
    const clock::time_point deadline = clock::now() + timeout;
    asio::ip::tcp::acceptor& a = a_->acceptor;
    for (;;) {
        auto s = std::make_unique<detail::tcp_socket>();
        asio::ip::tcp::endpoint peer;
        const std::optional<asio::error_code> r = detail::run_one(
            a_->io, deadline, [&](auto handler) { a.async_accept(s->socket, peer, std::move(handler)); },
            [&] {
                asio::error_code ignored;
                a.cancel(ignored);
            });
        if (!r)
            throw network_error("accept on port " + std::to_string(port()) + ": no peer connected within " +
                                std::to_string(timeout.count()) +
                                " ms; start the other party, or check the address and port it connects to");
        // (The socket is registered with its own io_context, on which the
        // channel's waits run, not with the acceptor's.)
        if (!*r) return std::make_unique<tcp_channel>(std::move(s), "tcp from " + detail::endpoint_name(peer));
        if (!detail::accept_again(*r))
            throw network_error("accept on port " + std::to_string(port()) + ": " + r->message());
    }
}

TANDEM_INLINE std::unique_ptr<tcp_channel> tcp_connect(const std::string& host, std::uint16_t port,
                                                       std::chrono::milliseconds timeout) {
    const clock::time_point deadline = clock::now() + timeout;
    const std::string target = host + ":" + std::to_string(port);
    asio::error_code ec;
    asio::io_context lookup{1};
    asio::ip::tcp::resolver resolver(lookup);
    const auto endpoints =
        resolver.resolve(host, std::to_string(port), asio::ip::resolver_base::numeric_service, ec);
    if (ec) throw detail::cannot_resolve(target, host, ec);
    std::string last = "no attempt";
    while (clock::now() < deadline) {
        for (const auto& entry : endpoints) {
            if (clock::now() >= deadline) break;
            auto s = std::make_unique<detail::tcp_socket>();
            const std::optional<asio::error_code> r = detail::run_one(
                *s->own, deadline, [&](auto handler) { s->socket.async_connect(entry.endpoint(), std::move(handler)); },
                [&] {
                    asio::error_code ignored;
                    s->socket.close(ignored);
                });
            if (!r) {
                last = "timed out";
                break;
            }
            if (!*r) return std::make_unique<tcp_channel>(std::move(s), "tcp to " + target);
            last = r->message();
        }
        // Not listening yet: try again shortly.
        std::this_thread::sleep_for(std::min<clock::duration>(std::chrono::milliseconds(20), deadline - clock::now()));
    }
    throw detail::no_connection(target, timeout, last);
}

}  // namespace tandem::net

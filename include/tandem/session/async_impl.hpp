// tandem/session/async_impl.hpp — the definitions of tandem/async.hpp, on
// oneTBB (the arena, resumable tasks) and standalone Asio. Included at the
// end of async.hpp when tandem is used header-only; compiled once into the
// library, by src/async.cpp, when TANDEM_SEPARATE_COMPILATION is defined.
#pragma once

#include <tandem/async.hpp>
#include <tandem/detail/linkage.hpp>
#include <tandem/detail/worker_budget.hpp>
#include <tandem/net/refusal.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/net/tcp_socket.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/write.hpp>

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <variant>

namespace tandem {

namespace detail {

/// The options an asynchronous session refuses (see the top of async.hpp).
inline void check_async_options(const session_options& o, const char* where) {
    if (o.threads != 1)
        throw usage_error(std::string(where) + ": session_options::threads is " + std::to_string(o.threads) +
                          "; an asynchronous session runs one worker per party (threads = 1) — serve more "
                          "peers at once instead, or use the blocking session");
    if (o.ipp)
        throw usage_error(std::string(where) +
                          ": session_options::ipp opens more links per session; an asynchronous session runs "
                          "without it (use the blocking session)");
}

}  // namespace detail

struct async_runtime::impl {
    // The arena reserves no slot for external threads: all `threads` slots
    // are oneTBB workers', which the runtime adds to the process's limit.
    impl(asio::io_context& context, unsigned workers) : io(context), threads(workers), budget(workers) {
        arena.initialize(static_cast<int>(threads), 0);
    }

    asio::io_context& io;
    unsigned threads;
    tandem::detail::worker_budget budget;
    tbb::task_arena arena;
};

TANDEM_INLINE async_runtime::async_runtime(asio::io_context& io, unsigned threads) {
    if (threads == 0) throw usage_error("async_runtime: threads must be at least 1");
    impl_ = std::make_unique<impl>(io, threads);
}

TANDEM_INLINE async_runtime::~async_runtime() = default;

TANDEM_INLINE asio::io_context& async_runtime::io() const noexcept { return impl_->io; }
TANDEM_INLINE unsigned async_runtime::threads() const noexcept { return impl_->threads; }

TANDEM_INLINE void async_runtime::enqueue(std::function<void()> task) { impl_->arena.enqueue(std::move(task)); }

namespace detail {

/// A channel on a new socket of the runtime, on a strand of its own (its
/// waits' handlers never run at once, whatever threads run the io_context).
inline std::unique_ptr<net::detail::tcp_socket> async_socket(async_runtime& rt) {
    return std::make_unique<net::detail::tcp_socket>(asio::any_io_executor(asio::make_strand(rt.io())));
}

/// Sets a session up over `ch` as a task of the runtime.
inline asio::awaitable<async_session> async_set_up(async_runtime& rt, party me,
                                                   std::unique_ptr<net::channel> ch,
                                                   const session_options& options, std::shared_ptr<void> slot) {
    const auto set_up = [&] {
        session made(me, std::move(ch), options);
        made.trim();  // until its first run
        return made;
    };
    session s = co_await rt.run(set_up);
    co_return async_session(rt, std::move(s), std::move(slot));
}

/// Counts one set-up in flight (async_listener::serve) while alive.
struct set_up_in_flight {
    std::shared_ptr<std::atomic<std::size_t>> count;
    explicit set_up_in_flight(std::shared_ptr<std::atomic<std::size_t>> c) : count(std::move(c)) { ++*count; }
    set_up_in_flight(const set_up_in_flight&) = delete;
    set_up_in_flight& operator=(const set_up_in_flight&) = delete;
    ~set_up_in_flight() { --*count; }
};

/// One peer of async_listener::serve: its set-up, then the user's coroutine.
inline asio::awaitable<void> serve_peer(async_runtime& rt, party me, session_options options,
                                        std::unique_ptr<net::tcp_channel> ch, std::shared_ptr<void> slot,
                                        std::unique_ptr<set_up_in_flight> in_flight,
                                        std::function<asio::awaitable<void>(async_session)> body) {
    async_session s = co_await async_set_up(rt, me, std::move(ch), options, std::move(slot));
    in_flight.reset();
    co_await body(std::move(s));
}

}  // namespace detail

TANDEM_INLINE asio::awaitable<async_session> async_connect(async_runtime& rt, party me, std::string host,
                                                           std::uint16_t port, session_options options) {
    using namespace asio::experimental::awaitable_operators;
    detail::check_async_options(options, "async_connect");
    const std::string target = host + ":" + std::to_string(port);
    const net::clock::time_point deadline = net::clock::now() + options.connect_timeout;
    asio::error_code ec;
    asio::ip::tcp::resolver resolver(rt.io());
    const auto endpoints = co_await resolver.async_resolve(host, std::to_string(port),
                                                           asio::ip::resolver_base::numeric_service,
                                                           asio::redirect_error(asio::use_awaitable, ec));
    if (ec) throw net::detail::cannot_resolve(target, host, ec);
    std::string last = "no attempt";
    asio::steady_timer timer(rt.io());
    while (net::clock::now() < deadline) {
        for (const auto& entry : endpoints) {
            if (net::clock::now() >= deadline) break;
            auto s = detail::async_socket(rt);
            timer.expires_at(deadline);
            asio::error_code connected;
            const auto first = co_await (
                s->socket.async_connect(entry.endpoint(), asio::redirect_error(asio::use_awaitable, connected)) ||
                timer.async_wait(asio::use_awaitable));
            if (first.index() == 1) {
                last = "timed out";
                break;
            }
            if (!connected) {
                auto ch = std::make_unique<net::tcp_channel>(std::move(s), "tcp to " + target);
                co_return co_await detail::async_set_up(rt, me, std::move(ch), options, {});
            }
            last = connected.message();
        }
        // Not listening yet: try again shortly.
        const net::clock::duration left = deadline - net::clock::now();
        timer.expires_after(std::clamp<net::clock::duration>(left, {}, std::chrono::milliseconds(20)));
        co_await timer.async_wait(asio::use_awaitable);
    }
    throw net::detail::no_connection(target, options.connect_timeout, last);
}

struct async_listener::impl {
    impl(async_runtime& r, std::size_t max, std::size_t set_ups)
        : rt(r), acceptor(r.io()), max_sessions(max), max_set_ups(set_ups) {}

    async_runtime& rt;
    asio::ip::tcp::acceptor acceptor;
    std::size_t max_sessions;
    std::shared_ptr<std::atomic<std::size_t>> open = std::make_shared<std::atomic<std::size_t>>(0);
    std::atomic<std::uint64_t> refused{0};
    std::size_t max_set_ups;
    std::shared_ptr<std::atomic<std::size_t>> setting_up = std::make_shared<std::atomic<std::size_t>>(0);

    /// The next connection this listener does not refuse, and its slot
    /// among the open sessions (held by the session; freed when it goes).
    asio::awaitable<std::pair<std::unique_ptr<net::tcp_channel>, std::shared_ptr<void>>> next() {
        for (;;) {
            auto s = detail::async_socket(rt);
            asio::ip::tcp::endpoint peer;
            asio::error_code ec;
            co_await acceptor.async_accept(s->socket, peer, asio::redirect_error(asio::use_awaitable, ec));
            if (ec == asio::error::operation_aborted || !acceptor.is_open())
                throw network_error("async_listener: closed while waiting for a peer");
            if (ec && net::detail::accept_again(ec)) continue;
            if (ec)
                throw network_error("async_listener: accept on port " +
                                    std::to_string(net::detail::listening_port(acceptor, "async_listener")) + ": " +
                                    ec.message());
            if (open->fetch_add(1) >= max_sessions) {
                open->fetch_sub(1);
                refused.fetch_add(1);
                const auto frame = net::detail::refusal(static_cast<std::uint32_t>(max_sessions));
                asio::error_code ignored;  // the peer may be gone already: nothing to tell it then
                co_await asio::async_write(s->socket, asio::buffer(frame),
                                           asio::redirect_error(asio::use_awaitable, ignored));
                s->socket.shutdown(asio::socket_base::shutdown_both, ignored);
                continue;
            }
            std::shared_ptr<void> slot(nullptr, [count = open](void*) { count->fetch_sub(1); });
            auto ch = std::make_unique<net::tcp_channel>(std::move(s), "tcp from " + net::detail::endpoint_name(peer));
            co_return std::pair{std::move(ch), std::move(slot)};
        }
    }
};

TANDEM_INLINE async_listener::async_listener(async_runtime& rt, std::uint16_t port, const std::string& address,
                                             std::size_t max_sessions, std::size_t max_set_ups)
    : impl_(std::make_shared<impl>(rt, max_sessions, max_set_ups)) {
    if (max_sessions == 0) throw usage_error("async_listener: max_sessions must be at least 1");
    if (max_set_ups == 0) throw usage_error("async_listener: max_set_ups must be at least 1");
    net::detail::listen_on(impl_->acceptor, port, address, "async_listener");
}

TANDEM_INLINE async_listener::~async_listener() { close(); }

TANDEM_INLINE std::uint16_t async_listener::port() const {
    return net::detail::listening_port(impl_->acceptor, "async_listener");
}

TANDEM_INLINE std::size_t async_listener::max_sessions() const noexcept { return impl_->max_sessions; }
TANDEM_INLINE std::size_t async_listener::open_sessions() const noexcept { return impl_->open->load(); }
TANDEM_INLINE std::uint64_t async_listener::refused() const noexcept { return impl_->refused.load(); }

TANDEM_INLINE void async_listener::close() noexcept {
    asio::error_code ignored;
    impl_->acceptor.close(ignored);
}

TANDEM_INLINE asio::awaitable<async_session> async_listener::async_accept(party me, session_options options) {
    detail::check_async_options(options, "async_listener::async_accept");
    const std::shared_ptr<impl> keep = impl_;
    auto [ch, slot] = co_await keep->next();
    co_return co_await detail::async_set_up(keep->rt, me, std::move(ch), options, std::move(slot));
}

TANDEM_INLINE asio::awaitable<void> async_listener::serve(
    party me, session_options options, std::function<asio::awaitable<void>(async_session)> per_session,
    std::function<void(std::exception_ptr)> on_error) {
    detail::check_async_options(options, "async_listener::serve");
    const std::shared_ptr<impl> keep = impl_;
    asio::steady_timer pause(keep->rt.io());
    for (;;) {
        // At most max_set_ups set-ups at once: past that, peers wait in the
        // kernel's queue of connections, not as half-set-up sessions that
        // each hold a suspended task's stack and buffers (a flood of clients
        // then costs the server bounded memory; the cores are busy anyway).
        while (keep->setting_up->load() >= keep->max_set_ups && keep->acceptor.is_open()) {
            pause.expires_after(std::chrono::milliseconds(1));
            co_await pause.async_wait(asio::use_awaitable);
        }
        std::pair<std::unique_ptr<net::tcp_channel>, std::shared_ptr<void>> next;
        try {
            next = co_await keep->next();
        } catch (const network_error&) {
            if (!keep->acceptor.is_open()) co_return;  // close()
            throw;
        }
        asio::co_spawn(keep->rt.io(),
                       detail::serve_peer(keep->rt, me, options, std::move(next.first), std::move(next.second),
                                          std::make_unique<detail::set_up_in_flight>(keep->setting_up), per_session),
                       [on_error](std::exception_ptr e) {
                           if (e && on_error) on_error(e);
                       });
    }
}

}  // namespace tandem

// tandem/session/async_impl.hpp — the definitions of tandem/async.hpp, on
// oneTBB (the arena, resumable tasks) and standalone Asio. Included at the
// end of async.hpp when tandem is used header-only; compiled once into the
// library, by src/async.cpp, when TANDEM_SEPARATE_COMPILATION is defined.
#pragma once

#include <tandem/async.hpp>
#include <tandem/detail/linkage.hpp>
#include <tandem/detail/thread_demand.hpp>
#include <tandem/detail/worker_budget.hpp>
#include <tandem/net/refusal.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/net/task_condition.hpp>
#include <tandem/net/tcp_socket.hpp>
#include <tandem/session/link_preface.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/experimental/concurrent_channel.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/write.hpp>

#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>
#include <variant>
#include <vector>

namespace tandem {

namespace detail {

/// Whether sessions of these options open worker links (threads > 1, IPP).
inline bool has_worker_links(const session_options& o) noexcept { return worker_link_count(o.threads, o.ipp) > 0; }

/// What a listener cannot serve: a listening Bob whose links are protected
/// and who opens worker links. The connecting Alice then waits for Bob's
/// greeting on her main link (Bob initiates the Noise and TLS handshakes),
/// so the listener, which routes a connection by its first byte
/// (session/link_preface.hpp), could not tell her session from a link.
inline void check_listener_options(party me, const session_options& o, const char* where) {
    if (me == party::bob && (o.encrypt_links || o.tls) && has_worker_links(o))
        throw usage_error(std::string(where) +
                          ": a listening Bob with protected links (encrypt_links or tls) cannot open worker links "
                          "(threads > 1 or ipp): the connecting Alice waits for Bob to speak first, so her session "
                          "cannot be told from a worker link; listen as Alice, or connect as Bob");
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
    // Its tasks that wait for a worker, and its operations in flight. A
    // session's wait on its peer blocks its worker while its operation is
    // the only one and no task waits — one wake-up when the bytes arrive, as
    // a blocking session's — and otherwise suspends, handing the socket to
    // the io_context (detail/thread_demand.hpp, net/tcp_impl.hpp).
    tandem::detail::thread_demand demand;
};

TANDEM_INLINE async_runtime::async_runtime(asio::io_context& io, unsigned threads) {
    if (threads == 0) throw usage_error("async_runtime: threads must be at least 1");
    impl_ = std::make_unique<impl>(io, threads);
}

TANDEM_INLINE async_runtime::~async_runtime() = default;

TANDEM_INLINE asio::io_context& async_runtime::io() const noexcept { return impl_->io; }
TANDEM_INLINE unsigned async_runtime::threads() const noexcept { return impl_->threads; }

TANDEM_INLINE void async_runtime::enqueue(std::function<void()> task) {
    impl* const i = impl_.get();
    i->demand.operation_began();
    i->demand.ready();
    i->arena.enqueue([i, task = std::move(task)] {
        i->demand.taken();
        tandem::detail::set_current_demand(&i->demand);
        task();  // (does not throw: run_erased's body hands its exception on; may suspend, and end on another thread)
        tandem::detail::set_current_demand(nullptr);
        i->demand.operation_ended();
    });
}

namespace detail {

/// A channel on a new socket of the runtime, on a strand of its own (its
/// waits' handlers never run at once, whatever threads run the io_context).
inline std::unique_ptr<net::detail::tcp_socket> async_socket(async_runtime& rt) {
    return std::make_unique<net::detail::tcp_socket>(asio::any_io_executor(asio::make_strand(rt.io())));
}

/// Sets a session up over `ch` as a task of the runtime.
inline asio::awaitable<async_session> async_set_up(async_runtime& rt, party me,
                                                   std::unique_ptr<net::channel> ch,
                                                   const session_options& options, std::shared_ptr<void> slot,
                                                   link_opener open_link = {}) {
    const auto set_up = [&] {
        session made(me, std::move(ch), options, std::move(open_link));
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
                                        std::unique_ptr<set_up_in_flight> in_flight, link_opener open_link,
                                        std::function<asio::awaitable<void>(async_session)> body) {
    async_session s = co_await async_set_up(rt, me, std::move(ch), options, std::move(slot), std::move(open_link));
    in_flight.reset();
    co_await body(std::move(s));
}

/// The worker links of a connecting session, connected before its set-up
/// (so that its task never waits for a connect): each is handed out in
/// order, with its preface sent (session/link_preface.hpp).
inline link_opener preconnected_links(std::vector<std::unique_ptr<net::detail::tcp_socket>> sockets,
                                      std::string target) {
    auto q = std::make_shared<std::vector<std::unique_ptr<net::detail::tcp_socket>>>(std::move(sockets));
    auto next = std::make_shared<std::size_t>(0);
    return [q, next, target](const link_id& id) -> std::unique_ptr<net::channel> {
        if (*next == q->size()) internal_error("async_connect: the set-up asked for more worker links than it has");
        auto link = std::make_unique<net::tcp_channel>(std::move((*q)[(*next)++]),
                                                       "tcp to " + target + " (link " + std::to_string(id.index) + ")");
        send_link_preface(*link, id);
        return link;
    };
}

/// Worker links that reached a listener, until the set-up of their session
/// takes them — or their deadline passes (a stray connection, or a peer
/// that gave up): then they are closed.
class link_board {
public:
    /// Link `id` arrived; it waits until `by` at most.
    void post(const link_id& id, std::unique_ptr<net::tcp_channel> link, net::clock::time_point by) {
        const std::lock_guard lock(m_);
        drop_expired();
        waiting_.push_back({id, std::move(link), by});
        arrived_.notify_all();
    }
    /// Link `id`, once it arrives (within `timeout`). A set-up's task
    /// suspends while it waits (net/task_condition.hpp).
    std::unique_ptr<net::channel> take(const link_id& id, std::chrono::milliseconds timeout) {
        std::unique_lock lock(m_);
        const auto find = [&] {
            return std::find_if(waiting_.begin(), waiting_.end(), [&](const arrival& a) {
                return a.id.session == id.session && a.id.index == id.index;
            });
        };
        if (!arrived_.wait(lock, timeout, [&] { return find() != waiting_.end(); }))
            throw network_error("session set-up: the peer's worker connection " + std::to_string(id.index) +
                                " did not reach the listener within " + std::to_string(timeout.count()) +
                                " ms; check that both sides run the same threads and ipp options, and that "
                                "nothing between them drops connections");
        const auto it = find();
        std::unique_ptr<net::channel> link = std::move(it->link);
        waiting_.erase(it);
        return link;
    }

private:
    struct arrival {
        link_id id;
        std::unique_ptr<net::tcp_channel> link;
        net::clock::time_point by;
    };
    void drop_expired() {
        const auto now = net::clock::now();
        std::erase_if(waiting_, [now](const arrival& a) { return a.by < now; });
    }
    std::mutex m_;
    net::detail::task_condition arrived_;
    std::vector<arrival> waiting_;
};

}  // namespace detail

TANDEM_INLINE asio::awaitable<async_session> async_connect(async_runtime& rt, party me, std::string host,
                                                           std::uint16_t port, session_options options) {
    using namespace asio::experimental::awaitable_operators;
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
                // The worker links (threads > 1, IPP): to the address that answered.
                std::vector<std::unique_ptr<net::detail::tcp_socket>> links;
                for (std::uint32_t k = 1; k <= detail::worker_link_count(options.threads, options.ipp); ++k) {
                    links.push_back(detail::async_socket(rt));
                    timer.expires_at(deadline);
                    const auto done = co_await (links.back()->socket.async_connect(
                                                    entry.endpoint(), asio::redirect_error(asio::use_awaitable, connected)) ||
                                                timer.async_wait(asio::use_awaitable));
                    if (done.index() == 1) throw net::detail::no_connection(target, options.connect_timeout, "timed out");
                    if (connected)
                        throw network_error("async_connect to " + target + ": worker connection " + std::to_string(k) +
                                            ": " + connected.message());
                }
                co_return co_await detail::async_set_up(rt, me, std::move(ch), options, {},
                                                        detail::preconnected_links(std::move(links), target));
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
        : rt(r), acceptor(r.io()), max_sessions(max), max_set_ups(set_ups), peers(r.io().get_executor(), 0) {}

    async_runtime& rt;
    asio::ip::tcp::acceptor acceptor;
    std::size_t max_sessions;
    std::shared_ptr<std::atomic<std::size_t>> open = std::make_shared<std::atomic<std::size_t>>(0);
    std::atomic<std::uint64_t> refused{0};
    std::size_t max_set_ups;
    std::shared_ptr<std::atomic<std::size_t>> setting_up = std::make_shared<std::atomic<std::size_t>>(0);

    /// A new peer's main connection, and its slot among the open sessions
    /// (held by the session; freed when it goes).
    struct peer {
        std::unique_ptr<net::tcp_channel> ch;
        std::shared_ptr<void> slot;
    };

    // Sessions with worker links (threads > 1, IPP) have their links come to
    // the same port: then one accept loop (route) reads each connection's
    // first byte, posts worker links on the board and hands new peers to
    // next() through `peers`. Without worker links next() accepts itself
    // and reads nothing. Which of the two is fixed at the listener's first
    // use (serves()).
    enum class kind { unset, direct, routed };
    std::mutex kind_m;
    kind serving = kind::unset;
    std::shared_ptr<detail::link_board> board = std::make_shared<detail::link_board>();
    std::chrono::milliseconds link_timeout{};
    asio::experimental::concurrent_channel<void(asio::error_code, std::shared_ptr<peer>)> peers;
    std::string route_failure;  // why route stopped, when not by close()
    // The deadlines of the connections being sorted, so that close() ends
    // their waits at once (each is cancelled on its socket's strand).
    std::mutex sorting_m;
    bool closed = false;
    std::vector<std::shared_ptr<asio::steady_timer>> sorting;

    void stop_sorting() noexcept {
        const std::lock_guard lock(sorting_m);
        closed = true;
        for (const auto& t : sorting) asio::post(t->get_executor(), [t] { t->cancel(); });
    }

    /// Fixes (at the first use) or checks (later) that this listener serves
    /// sessions of these options; starts route for sessions with worker links.
    void serves(const std::shared_ptr<impl>& self, party me, const session_options& o, const char* where) {
        detail::check_listener_options(me, o, where);
        const kind wanted = detail::has_worker_links(o) ? kind::routed : kind::direct;
        const std::lock_guard lock(kind_m);
        if (serving == kind::unset) {
            serving = wanted;
            if (wanted == kind::routed) {
                link_timeout = o.timeout;
                asio::co_spawn(rt.io(), route(self), asio::detached);
            }
        } else if (serving != wanted) {
            throw usage_error(std::string(where) + ": this listener serves sessions " +
                              (wanted == kind::routed ? "without" : "with") +
                              " worker links (threads > 1 or ipp decide) already; use a listener per kind");
        }
    }

    /// A new peer's slot, or nothing when max_sessions are open: then the
    /// peer is told so and its connection closed.
    asio::awaitable<std::optional<std::shared_ptr<void>>> admit(net::detail::tcp_socket& s) {
        if (open->fetch_add(1) >= max_sessions) {
            open->fetch_sub(1);
            refused.fetch_add(1);
            const auto frame = net::detail::refusal(static_cast<std::uint32_t>(max_sessions));
            asio::error_code ignored;  // the peer may be gone already: nothing to tell it then
            co_await asio::async_write(s.socket, asio::buffer(frame), asio::redirect_error(asio::use_awaitable, ignored));
            s.socket.shutdown(asio::socket_base::shutdown_both, ignored);
            co_return std::nullopt;
        }
        co_return std::shared_ptr<void>(nullptr, [count = open](void*) { count->fetch_sub(1); });
    }

    /// The next connection accepted; nothing when the listener closed.
    asio::awaitable<std::unique_ptr<net::detail::tcp_socket>> accept_one(asio::ip::tcp::endpoint& from) {
        for (;;) {
            auto s = detail::async_socket(rt);
            asio::error_code ec;
            co_await acceptor.async_accept(s->socket, from, asio::redirect_error(asio::use_awaitable, ec));
            if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return nullptr;
            if (ec && net::detail::accept_again(ec)) continue;
            if (ec)
                throw network_error("async_listener: accept on port " +
                                    std::to_string(net::detail::listening_port(acceptor, "async_listener")) + ": " +
                                    ec.message());
            co_return s;
        }
    }

    /// The next new peer this listener does not refuse.
    asio::awaitable<peer> next() {
        if (serving == kind::routed) {
            asio::error_code ec;
            std::shared_ptr<peer> p = co_await peers.async_receive(asio::redirect_error(asio::use_awaitable, ec));
            if (ec || !p)
                throw network_error(route_failure.empty() ? "async_listener: closed while waiting for a peer"
                                                          : route_failure);
            co_return std::move(*p);
        }
        for (;;) {
            asio::ip::tcp::endpoint from;
            auto s = co_await accept_one(from);
            if (!s) throw network_error("async_listener: closed while waiting for a peer");
            std::optional<std::shared_ptr<void>> slot = co_await admit(*s);
            if (!slot) continue;
            co_return peer{std::make_unique<net::tcp_channel>(std::move(s), "tcp from " + net::detail::endpoint_name(from)),
                           std::move(*slot)};
        }
    }

    /// Accepts until close(), each connection sorted by sort() on its own.
    static asio::awaitable<void> route(std::shared_ptr<impl> self) {
        try {
            for (;;) {
                asio::ip::tcp::endpoint from;
                auto s = co_await self->accept_one(from);
                if (!s) break;
                const auto executor = s->socket.get_executor();
                asio::co_spawn(executor, sort(self, std::move(s), from), asio::detached);
            }
        } catch (const std::exception& e) {  // (a failed accept: network_error)
            self->route_failure = e.what();
        }
        self->peers.close();  // (next() then throws)
    }

    /// A connection by its first byte: a worker link's preface goes on the
    /// board, anything else is a new peer. One silent past the links'
    /// timeout, or that closes first, is dropped.
    static asio::awaitable<void> sort(std::shared_ptr<impl> self, std::unique_ptr<net::detail::tcp_socket> s,
                                      asio::ip::tcp::endpoint from) {
        using namespace asio::experimental::awaitable_operators;
        const auto deadline = std::make_shared<asio::steady_timer>(s->socket.get_executor());
        deadline->expires_after(self->link_timeout);
        {
            const std::lock_guard lock(self->sorting_m);
            if (self->closed) co_return;
            self->sorting.push_back(deadline);
        }
        struct sorted {  // (however sort ends)
            impl& listener;
            const std::shared_ptr<asio::steady_timer>& deadline;
            ~sorted() {
                const std::lock_guard lock(listener.sorting_m);
                std::erase(listener.sorting, deadline);
            }
        } done{*self, deadline};
        asio::error_code ec, expired;
        const auto deadline_passes = [&] {  // (or close())
            return deadline->async_wait(asio::redirect_error(asio::use_awaitable, expired));
        };
        std::uint8_t first = 0;
        const auto peeked = co_await (s->socket.async_receive(asio::buffer(&first, 1), asio::socket_base::message_peek,
                                                              asio::redirect_error(asio::use_awaitable, ec)) ||
                                      deadline_passes());
        if (peeked.index() == 1 || ec) co_return;
        const std::string name = "tcp from " + net::detail::endpoint_name(from);
        if (first == detail::link_preface_first_byte) {
            std::array<std::uint8_t, detail::link_preface_bytes> preface{};
            const auto read = co_await (asio::async_read(s->socket, asio::buffer(preface),
                                                         asio::redirect_error(asio::use_awaitable, ec)) ||
                                        deadline_passes());
            detail::link_id id{};
            if (read.index() == 1 || ec || !detail::read_link_preface(preface.data(), id)) co_return;
            self->board->post(id, std::make_unique<net::tcp_channel>(std::move(s), name),
                              net::clock::now() + self->link_timeout);
            co_return;
        }
        std::optional<std::shared_ptr<void>> slot = co_await self->admit(*s);
        if (!slot) co_return;
        auto p = std::make_shared<peer>(peer{std::make_unique<net::tcp_channel>(std::move(s), name), std::move(*slot)});
        co_await self->peers.async_send(asio::error_code{}, std::move(p), asio::redirect_error(asio::use_awaitable, ec));
        // (closed meanwhile: the connection goes with p)
    }

    /// What a session set up here opens its worker links with.
    detail::link_opener links() const {
        if (serving != kind::routed) return {};
        return [board = board, timeout = link_timeout](const detail::link_id& id) { return board->take(id, timeout); };
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
    impl_->stop_sorting();
}

TANDEM_INLINE asio::awaitable<async_session> async_listener::async_accept(party me, session_options options) {
    const std::shared_ptr<impl> keep = impl_;
    keep->serves(keep, me, options, "async_listener::async_accept");
    impl::peer p = co_await keep->next();
    co_return co_await detail::async_set_up(keep->rt, me, std::move(p.ch), options, std::move(p.slot), keep->links());
}

TANDEM_INLINE asio::awaitable<void> async_listener::serve(
    party me, session_options options, std::function<asio::awaitable<void>(async_session)> per_session,
    std::function<void(std::exception_ptr)> on_error) {
    const std::shared_ptr<impl> keep = impl_;
    keep->serves(keep, me, options, "async_listener::serve");
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
        impl::peer next;
        try {
            next = co_await keep->next();
        } catch (const network_error&) {
            if (!keep->acceptor.is_open()) co_return;  // close()
            throw;
        }
        asio::co_spawn(keep->rt.io(),
                       detail::serve_peer(keep->rt, me, options, std::move(next.ch), std::move(next.slot),
                                          std::make_unique<detail::set_up_in_flight>(keep->setting_up), keep->links(),
                                          per_session),
                       [on_error](std::exception_ptr e) {
                           if (e && on_error) on_error(e);
                       });
    }
}

}  // namespace tandem

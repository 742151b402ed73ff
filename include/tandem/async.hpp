// tandem/async.hpp — sessions that park no thread: many peers served from
// the user's asio::io_context, as C++20 coroutines.
//
//   asio::io_context io;
//   tandem::async_runtime rt(io, 2);                  // compute: 2 oneTBB workers
//   tandem::async_listener server(rt, 7766);          // at most 1024 sessions open
//   asio::co_spawn(io, server.serve(tandem::party::alice, {},
//       [&](tandem::async_session s) -> asio::awaitable<void> {
//           for (;;) co_await s.async_run(circ, my_list);  // until the peer leaves
//       }), asio::detached);
//   io.run();                                          // I/O: this one thread
//
//   // a client, in any coroutine on any io_context with a runtime:
//   tandem::async_session s = co_await tandem::async_connect(rt, party::bob, "server", 7766);
//   bool r = co_await s.async_run(circ, my_value);
//
// What an async_session runs is the blocking session's own code — the same
// handshake, OT, engine and bytes on the wire (session.hpp) — as a task on
// the runtime's oneTBB arena. Where that code waits for its peer, the task
// suspends (oneTBB resumable tasks, tbb::task::suspend) and the wait is one
// async_wait on the io_context; when the socket is ready (or the channel's
// timeout passes) the io_context resumes the task on the arena. So a
// session waiting for its peer holds no thread, only its suspended stack, a
// session between runs holds neither, and a process serves as many peers as
// it has memory and descriptors for, on the threads it chose: the arena's
// workers for compute, the io_context's for I/O (docs/DESIGN.md §7.10). (One
// exception, for latency: an operation alone on the runtime, which no other
// task wants a worker from, keeps its worker while it waits — one wake-up
// when the peer answers — and gives it up the moment another operation
// starts.)
//
// An operation's arguments are used while it runs: await it where it is
// called (`co_await s.async_run(...)`), as above. One operation at a time per
// session (a second one while the first runs: usage_error). Keep the
// io_context running while sessions are open (a session suspended on a
// stopped io_context waits for ever), and destroy the runtime after them.
//
// A session may run several workers per party (session_options::threads)
// and IPP: its worker tasks run on the runtime's arena too, and its worker
// links are connections to the same port, which the listener tells from new
// peers by their first bytes (session/link_preface.hpp). What a run starts
// a thread for itself — a pipelined stream's runner — still blocks that
// thread on the socket when it waits.
#pragma once

#include <tandem/error.hpp>
#include <tandem/party.hpp>
#include <tandem/session.hpp>

// Asio (1.22) enables coroutines on Clang only with libc++'s
// <experimental/coroutine>; Clang 14 and later with libstdc++ have the
// standard ones (__cpp_impl_coroutine), which Asio then uses.
#if defined(__clang__) && defined(__cpp_impl_coroutine) && !defined(ASIO_HAS_CO_AWAIT) && \
    __has_include(<coroutine>)
#define ASIO_HAS_CO_AWAIT 1
#define ASIO_HAS_STD_COROUTINE 1
#endif

#include <asio/any_io_executor.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/use_awaitable.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tandem {

/// Where asynchronous sessions run: I/O on the user's io_context, compute on
/// a oneTBB arena (see the top of this header). Outlives its sessions.
class async_runtime {
public:
    /// Sessions wait on `io` (run by the caller's threads) and compute on a
    /// oneTBB arena of `threads` workers (≥ 1).
    async_runtime(asio::io_context& io, unsigned threads);
    async_runtime(const async_runtime&) = delete;
    async_runtime& operator=(const async_runtime&) = delete;
    ~async_runtime();

    asio::io_context& io() const noexcept;
    /// Workers of the arena.
    unsigned threads() const noexcept;

    /// Runs f() as a task on the arena — where it waits on a socket of this
    /// runtime it suspends instead of blocking — and resumes the awaiting
    /// coroutine with its result, or its exception.
    template <class F>
    asio::awaitable<std::invoke_result_t<F&>> run(F f) {
        // Type-erased before the coroutine: its frame then holds no type of
        // the caller's (GCC warns of frames holding local lambdas' types).
        using result_t = std::invoke_result_t<F&>;
        return run_erased<result_t>(std::function<result_t()>(std::move(f)));
    }
    template <class R>
    asio::awaitable<R> run_erased(std::function<R()> f);

private:
    void enqueue(std::function<void()> task);

    struct impl;
    std::unique_ptr<impl> impl_;
};

/// A session run from coroutines: session.hpp's session, each operation a
/// task of the runtime. Move-only; destroying it closes the links.
class async_session {
public:
    async_session(async_runtime& rt, session s, std::shared_ptr<void> slot = {})
        : rt_(&rt), s_(std::make_unique<session>(std::move(s))), slot_(std::move(slot)) {}

    /// The session itself, for what does not wait: me(), last_run(),
    /// setup_seconds(), prepared(). Its blocking calls would park the
    /// calling thread; use the operations below.
    session& get() noexcept { return *s_; }
    const session& get() const noexcept { return *s_; }

    /// session::run with these arguments — a compiled circuit, a streamed
    /// function, with or without a reveal — as a task of the runtime.
    template <class... A>
    auto async_run(A&&... a) -> asio::awaitable<decltype(std::declval<session&>().run(a...))> {
        using result_t = decltype(std::declval<session&>().run(a...));
        return operation<result_t>([s = s_.get(), &a...] { return s->run(a...); });
    }
    /// session::run over a streamed function: async_run by its usual name.
    template <class... A>
    auto async_run_stream(A&&... a) -> asio::awaitable<decltype(std::declval<session&>().run(a...))> {
        return async_run(std::forward<A>(a)...);
    }
    /// session::run_batch.
    template <class... A>
    auto async_run_batch(A&&... a) -> asio::awaitable<decltype(std::declval<session&>().run_batch(a...))> {
        using result_t = decltype(std::declval<session&>().run_batch(a...));
        return operation<result_t>([s = s_.get(), &a...] { return s->run_batch(a...); });
    }
    /// session::prepare (malicious sessions).
    asio::awaitable<void> async_prepare(const circuit<>& c, std::size_t runs = 1) {
        return operation<void>([s = s_.get(), &c, runs] { s->prepare(c, runs); });
    }

private:
    /// Clears the session's busy flag when an operation ends, however.
    struct operation_guard {
        std::atomic<bool>& busy;
        ~operation_guard() { busy = false; }
    };

    template <class R>
    asio::awaitable<R> operation(std::function<R()> f) {
        if (busy_->exchange(true))
            throw usage_error("async_session: an operation is still running on this session; await it before "
                              "starting the next (a session runs one operation at a time)");
        const operation_guard guard{*busy_};
        // Then the buffers of a run go until the next operation (session::trim).
        // (Made before the co_await: GCC 12 destroys a temporary of a co_await's
        // full-expression twice.)
        std::function<R()> body = [s = s_.get(), f = std::move(f)]() -> R {
            if constexpr (std::is_void_v<R>) {
                f();
                s->trim();
            } else {
                R r = f();
                s->trim();
                return r;
            }
        };
        co_return co_await rt_->run_erased<R>(std::move(body));
    }

    async_runtime* rt_;
    std::unique_ptr<session> s_;
    std::unique_ptr<std::atomic<bool>> busy_ = std::make_unique<std::atomic<bool>>(false);
    std::shared_ptr<void> slot_;  // a listener's count of open sessions
};

/// Connects to a listening peer (retrying until options.connect_timeout, as
/// session::connect) and sets the session up, all without blocking a thread.
asio::awaitable<async_session> async_connect(async_runtime& rt, party me, std::string host, std::uint16_t port,
                                             session_options options = {});

/// Accepts peers on a port and sets a session up with each, at most
/// `max_sessions` open at once. A peer that arrives while that many are
/// open is refused — it gets network_error saying the server is full, and
/// can try again — and refused() counts it.
///
/// Sessions with worker links (threads > 1 or IPP) send them to the same
/// port: the listener then reads each new connection's first byte to route
/// it (a connection silent for the sessions' timeout is dropped), so one
/// listener serves sessions either with worker links or without — the first
/// accept decides; the other kind is a usage_error. Such a listener keeps
/// accepting (an accept is pending on the io_context, so io_context::run
/// does not return) until close() or its destruction. A listening Bob cannot
/// have both protected links and worker links (usage_error): the
/// connecting Alice would wait for him to speak first.
class async_listener {
public:
    /// Default limit on open sessions: a session between runs holds ~44 KiB.
    static constexpr std::size_t default_max_sessions = 1024;
    /// Default limit on set-ups at once in serve(): one in flight holds its
    /// suspended task's stack and its links' buffers (~250 KiB).
    static constexpr std::size_t default_max_set_ups = 256;

    /// Listens on `address` (IPv4 or IPv6; usage_error otherwise); port 0
    /// picks a free port (see port()). serve() sets up at most
    /// `max_set_ups` peers at once; the next wait in the kernel's queue.
    async_listener(async_runtime& rt, std::uint16_t port, const std::string& address = "0.0.0.0",
                   std::size_t max_sessions = default_max_sessions,
                   std::size_t max_set_ups = default_max_set_ups);
    async_listener(const async_listener&) = delete;
    async_listener& operator=(const async_listener&) = delete;
    ~async_listener();

    std::uint16_t port() const;
    std::size_t max_sessions() const noexcept;
    /// Sessions accepted here and still open (not yet destroyed).
    std::size_t open_sessions() const noexcept;
    /// Peers refused because max_sessions were open.
    std::uint64_t refused() const noexcept;

    /// Waits (without a deadline) for the next peer it does not refuse and
    /// sets its session up.
    asio::awaitable<async_session> async_accept(party me, session_options options = {});

    /// Accepts peers until close(): each one's set-up and then
    /// `per_session(its session)` run as a coroutine of their own, so that
    /// set-ups and runs of many peers overlap. A set-up or a per_session that
    /// throws ends that peer's session only; `on_error`, if given, is told.
    asio::awaitable<void> serve(party me, session_options options,
                                std::function<asio::awaitable<void>(async_session)> per_session,
                                std::function<void(std::exception_ptr)> on_error = {});

    /// Stops accepting: a waiting async_accept or serve ends (serve returns,
    /// async_accept throws network_error). Open sessions stay open.
    void close() noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

template <class R>
asio::awaitable<R> async_runtime::run_erased(std::function<R()> f) {
    using result_t = R;
    std::conditional_t<std::is_void_v<result_t>, bool, std::optional<result_t>> result{};
    co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(std::exception_ptr)>(
        [this, &f, &result](auto handler) {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            // Completes on the awaiting coroutine's executor, which has work
            // outstanding until then (io_context::run does not return early).
            const asio::any_io_executor done =
                asio::prefer(asio::get_associated_executor(*h, io().get_executor()),
                             asio::execution::outstanding_work.tracked);
            enqueue([&f, &result, h, done] {
                std::exception_ptr failure;
                try {
                    if constexpr (std::is_void_v<result_t>) {
                        f();
                        result = true;  // (unread: a void operation's result is that it ran)
                    } else {
                        result.emplace(f());
                    }
                } catch (...) {
                    failure = std::current_exception();
                }
                asio::post(done, [h, failure] { std::move(*h)(failure); });
            });
        },
        asio::use_awaitable);
    if constexpr (!std::is_void_v<result_t>) co_return std::move(*result);
}

}  // namespace tandem

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/session/async_impl.hpp>
#endif

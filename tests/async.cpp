// Asynchronous sessions (tandem/async.hpp): one process serving many peers
// over loopback TCP from one io_context thread and a oneTBB arena, each run
// equal to plaintext; the threads that takes; a full listener turning a peer
// away with an error that says so; a blocking peer against an asynchronous
// one (the same protocol); malicious sessions with prepare; streamed runs; a
// silent peer caught by the channel's deadline while no thread waits for it;
// blocking sessions run as tasks of a user's oneTBB arena, over TCP and
// the in-process pair, their runs' four workers per party too; four
// workers per party on sessions' own arenas when oneTBB may start no
// worker; and the refusals (threads, IPP, two operations at once).
#include "exception_text.hpp"
#include "hex_bits.hpp"
#include "memory_sessions.hpp"

#include "../examples/apps.hpp"

#include <tandem/async.hpp>
#include <tandem/detail/owned_thread.hpp>
#include <tandem/detail/sanitizers.hpp>
#include <tandem/net/suspend.hpp>
#include <tandem/session/link_preface.hpp>
#include <tandem/tandem.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace async_tests {

using namespace tandem;
using namespace std::chrono_literals;
using asio::awaitable;
using asio::use_awaitable;

auto greater_than() {
    return compile([](secure_int<32> a, secure_int<32> b) { return a > b; }, input<party::alice, secure_int<32>>,
                   input<party::bob, secure_int<32>>);
}

/// This process's threads now (/proc/self/status).
int process_threads() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
    return -1;
}

/// Rethrows a spawned coroutine's exception into `into` (the first only).
auto keep_first(std::exception_ptr& into) {
    return [&into](std::exception_ptr e) {
        if (e && !into) into = e;
    };
}

/// What serve_peers saw: got[k][r] is 1 if the server's value was the
/// greater in client k's run r.
struct served_peers {
    std::vector<std::vector<int>> got;
    int served = 0;
    std::exception_ptr server_error, client_error;
};

/// `peers` clients connect to `server` at once (both sides with `options`)
/// and each runs greater_than `runs` times, the server with `server_value`,
/// client k in run r with client_value(k, r); `on_connect` sees each
/// client's session, `before_run` is called before each client run. Runs
/// `io` until the last client is done (then the server closes).
served_peers serve_peers(asio::io_context& io, async_runtime& rt, async_listener& server,
                         const session_options& options, int peers, int runs, std::int32_t server_value,
                         const std::function<std::int32_t(int, int)>& client_value,
                         const std::function<void(async_session&)>& on_connect = {},
                         const std::function<void()>& before_run = {}) {
    const auto circ = greater_than();
    served_peers out;
    out.got.resize(static_cast<std::size_t>(peers));
    asio::co_spawn(io,
                   server.serve(
                       party::alice, options,
                       [&](async_session s) -> awaitable<void> {
                           for (int r = 0; r < runs; ++r) {
                               const bool v = co_await s.async_run(circ, server_value);
                               (void)v;
                           }
                           ++out.served;
                       },
                       keep_first(out.server_error)),
                   asio::detached);
    int clients_done = 0;
    for (int k = 0; k < peers; ++k)
        asio::co_spawn(
            io,
            [&, k]() -> awaitable<void> {
                async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", server.port(), options);
                if (on_connect) on_connect(s);
                for (int r = 0; r < runs; ++r) {
                    if (before_run) before_run();
                    out.got[static_cast<std::size_t>(k)].push_back(
                        co_await s.async_run(circ, client_value(k, r)) ? 1 : 0);
                }
                if (++clients_done == peers) server.close();
            },
            keep_first(out.client_error));
    io.run();
    return out;
}

TEST_CASE("async.one_io_thread_and_two_workers_serve_many_peers_each_run_equal_to_plaintext") {
    asio::io_context io;
    async_runtime rt(io, 2);
    async_listener server(rt, 0, "127.0.0.1", 64);
    constexpr int peers = 24, runs = 3;
    constexpr std::int32_t server_value = 1000;
    const int threads_before = process_threads();
    int threads_most = threads_before;
    // This thread is the io_context's only one.
    const served_peers p = serve_peers(
        io, rt, server, {}, peers, runs, server_value, [](int k, int r) { return std::int32_t(k * 100 + r * 30); },
        {}, [&] { threads_most = std::max(threads_most, process_threads()); });
    if (p.server_error) FAIL("server: " << message_of(p.server_error));
    if (p.client_error) FAIL("client: " << message_of(p.client_error));
    CHECK(p.served == peers);
    for (int k = 0; k < peers; ++k) {
        REQUIRE(p.got[k].size() == runs);
        for (int r = 0; r < runs; ++r) CHECK(p.got[k][r] == (server_value > k * 100 + r * 30 ? 1 : 0));
    }
    CHECK(server.open_sessions() == 0);
    // 48 sessions in flight on this thread and the arena's two workers: no
    // thread per session (a blocking server and its clients would start 48).
    INFO("threads before " << threads_before << ", at most " << threads_most);
    CHECK(threads_most <= threads_before + 3);
}

TEST_CASE("async.sealed_sessions_run_on_after_their_links_are_trimmed_between_runs") {
    // Each operation ends by trimming the session (session::trim): the
    // sealed channel's buffers and the socket's go, and come back for the
    // next run.
    asio::io_context io;
    async_runtime rt(io, 2);
    async_listener server(rt, 0, "127.0.0.1");
    session_options sealed;
    sealed.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key::generate());
    constexpr int peers = 3, runs = 4;
    const served_peers p = serve_peers(
        io, rt, server, sealed, peers, runs, 100, [](int k, int r) { return std::int32_t(40 * r + k); },
        [](async_session& s) { CHECK(s.get().channel().name().find("Noise") != std::string::npos); });
    if (p.server_error) FAIL("server: " << message_of(p.server_error));
    if (p.client_error) FAIL("client: " << message_of(p.client_error));
    for (int k = 0; k < peers; ++k) {
        REQUIRE(p.got[k].size() == runs);
        for (int r = 0; r < runs; ++r) CHECK(p.got[k][r] == (100 > 40 * r + k ? 1 : 0));
    }
}

TEST_CASE("async.a_full_listener_refuses_a_peer_with_an_error_that_says_so") {
    asio::io_context io;
    async_runtime rt(io, 1);
    async_listener server(rt, 0, "127.0.0.1", 1);
    const auto circ = greater_than();
    std::exception_ptr server_error, client_error;
    asio::co_spawn(io,
                   server.serve(
                       party::alice, {},
                       [&](async_session s) -> awaitable<void> {
                           const bool v = co_await s.async_run(circ, std::int32_t(5));
                           (void)v;
                       },
                       keep_first(server_error)),
                   asio::detached);
    std::string refusal;
    bool later_served = false;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            {
                async_session first = co_await async_connect(rt, party::bob, "127.0.0.1", server.port());
                try {
                    async_session second = co_await async_connect(rt, party::bob, "127.0.0.1", server.port());
                } catch (const network_error& e) {
                    refusal = e.what();
                }
                const bool r = co_await first.async_run(circ, std::int32_t(3));
                CHECK(r);
            }
            // The first session's slot frees when the server's side of it ends.
            asio::steady_timer pause(io);
            for (int attempt = 0; attempt < 200 && !later_served; ++attempt) {
                try {
                    async_session again = co_await async_connect(rt, party::bob, "127.0.0.1", server.port());
                    later_served = !co_await again.async_run(circ, std::int32_t(9));
                } catch (const network_error&) {  // refused: not yet freed
                }
                pause.expires_after(10ms);
                co_await pause.async_wait(use_awaitable);
            }
            server.close();
        },
        keep_first(client_error));
    io.run();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    INFO(refusal);
    CHECK(refusal.find("the server refused this session") != std::string::npos);
    CHECK(refusal.find("full (1 open sessions, its limit)") != std::string::npos);
    CHECK(server.refused() >= 1);
    CHECK(later_served);
}

TEST_CASE("async.a_blocking_peer_and_an_asynchronous_one_speak_the_same_protocol") {
    asio::io_context io;
    async_runtime rt(io, 1);
    async_listener server(rt, 0, "127.0.0.1");
    const auto circ = greater_than();
    const auto product = compile([](secure_uint<32> x, secure_uint<32> y) { return x * y + (x ^ y); },
                                 input<party::alice, secure_uint<32>>, input<party::bob, secure_uint<32>>);
    std::exception_ptr server_error;
    std::uint32_t served_product = 0;
    bool served_compare = true, client_compare = true;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session s = co_await server.async_accept(party::alice);
            served_compare = co_await s.async_run(circ, std::int32_t(-4));
            served_product = co_await s.async_run(product, std::uint32_t(123457));
            CHECK(s.get().last_run().and_gates > 0);
        },
        keep_first(server_error));
    std::uint32_t client_product = 0;
    std::exception_ptr client_error;
    std::thread client([&] {
        try {
            session s = session::connect(party::bob, "127.0.0.1", server.port());
            client_compare = s.run(circ, std::int32_t(17));
            client_product = s.run(product, std::uint32_t(99991));
        } catch (...) {
            client_error = std::current_exception();
        }
    });
    io.run();
    client.join();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    const std::uint32_t expected = 123457u * 99991u + (123457u ^ 99991u);
    CHECK_FALSE(served_compare);
    CHECK_FALSE(client_compare);
    CHECK(served_product == expected);
    CHECK(client_product == expected);
}

TEST_CASE("async.both_parties_of_blocking_sessions_run_as_tasks_of_a_users_one_thread_arena") {
    // One thread runs both parties: it can only if a task that waits for its
    // peer lets the thread go (net/suspend.hpp). A task that blocked would
    // wait for the other, which never ran, until the channel's deadline.
    const auto circ = greater_than();
    const auto product = compile([](secure_uint<32> x, secure_uint<32> y) { return x * y + (x ^ y); },
                                 input<party::alice, secure_uint<32>>, input<party::bob, secure_uint<32>>);
    for (const bool tcp : {true, false}) {
        INFO((tcp ? "tcp" : "in-process pair"));
        std::unique_ptr<net::channel> to_bob, to_alice;
        if (tcp) {
            net::tcp_listener listener(0, "127.0.0.1");
            std::thread connecting([&] { to_alice = net::tcp_connect("127.0.0.1", listener.port()); });
            to_bob = listener.accept();
            connecting.join();
        } else {
            auto [a, b] = net::memory_pair();
            to_bob = std::move(a);
            to_alice = std::move(b);
        }
        session_options o;
        o.timeout = 20s;
        std::exception_ptr alice_error, bob_error;
        std::vector<std::uint32_t> alice_products, bob_products;
        bool alice_compare = false, bob_compare = true;
        const auto started = std::chrono::steady_clock::now();
        tbb::task_arena arena(1, 1);
        arena.execute([&] {
            tbb::task_group both;
            both.run([&] {
                try {
                    session s(party::alice, std::move(to_bob), o);
                    alice_compare = s.run(circ, std::int32_t(17));
                    for (std::uint32_t x : {3u, 123457u, 4000000000u}) alice_products.push_back(s.run(product, x));
                } catch (...) {
                    alice_error = std::current_exception();
                }
            });
            both.run([&] {
                try {
                    session s(party::bob, std::move(to_alice), o);
                    bob_compare = s.run(circ, std::int32_t(-4));
                    for (std::uint32_t y : {5u, 99991u, 7u}) bob_products.push_back(s.run(product, y));
                } catch (...) {
                    bob_error = std::current_exception();
                }
            });
            both.wait();
        });
        if (alice_error) FAIL("alice: " << message_of(alice_error));
        if (bob_error) FAIL("bob: " << message_of(bob_error));
        CHECK(std::chrono::steady_clock::now() - started < o.timeout);
        CHECK(alice_compare);
        CHECK(bob_compare);
        const std::vector<std::uint32_t> expected{3u * 5u + (3u ^ 5u), 123457u * 99991u + (123457u ^ 99991u),
                                                  4000000000u * 7u + (4000000000u ^ 7u)};
        CHECK(alice_products == expected);
        CHECK(bob_products == expected);
    }
}

/// The most threads tandem itself had started at once (detail::threads_running)
/// from its construction until most() is asked, sampled every 100 µs.
class own_threads_watch {
public:
    own_threads_watch()
        : t_([this] {
              while (!done_.load()) {
                  most_.store(std::max(most_.load(), detail::threads_running().load()));
                  std::this_thread::sleep_for(100us);
              }
          }) {}
    own_threads_watch(const own_threads_watch&) = delete;
    own_threads_watch& operator=(const own_threads_watch&) = delete;
    ~own_threads_watch() { stop(); }
    int most() {
        stop();
        return most_.load();
    }

private:
    void stop() {
        done_ = true;
        if (t_.joinable()) t_.join();
    }
    std::atomic<bool> done_{false};
    std::atomic<int> most_{0};
    std::thread t_;
};

/// Both parties of biomatch and mexp with four workers each, over TCP or
/// the in-process pair (three extra links per party); `launch(alice, bob)`
/// runs the two parties' bodies and returns when both are done. Checks the
/// results against plaintext, that the runs took less than the links'
/// deadline, and returns the most threads tandem itself had started at once
/// (detail::threads_running) while they ran.
int four_workers_per_party(bool tcp, const std::function<void(std::function<void()>, std::function<void()>)>& launch) {
    INFO((tcp ? "tcp" : "in-process pair"));
    const auto bio = apps::biomatch_circuit<6, 2>();
    const auto mexp = apps::mexp_circuit<4>();
    CHECK_FALSE(exec::make_plan(bio, 4).one_worker);
    CHECK_FALSE(exec::make_plan(mexp, 4).one_worker);
    const std::uint64_t seed = 5401;
    INFO("seed " << seed);
    const auto bio_in = apps::make_biomatch_inputs<6, 2>(seed);
    const auto mexp_in = apps::make_mexp_inputs<4>(seed);
    test::wiring w = tcp ? test::make_tcp_wiring(3) : test::make_wiring(3);
    session_options o = test::with_threads(4);
    o.timeout = 20s;
    std::exception_ptr alice_error, bob_error;
    std::uint64_t alice_bio = 0, bob_bio = 0;
    std::uint32_t alice_mexp = 0, bob_mexp = 0;
    own_threads_watch own_threads;
    const auto started = std::chrono::steady_clock::now();
    launch(
        [&] {
            try {
                session s(party::alice, std::move(w.main_a), o, test::opener_of(std::move(w.links_a)));
                alice_bio = s.run(bio, bio_in.db);
                alice_mexp = s.run(mexp, mexp_in.bases);
            } catch (...) {
                alice_error = std::current_exception();
            }
        },
        [&] {
            try {
                session s(party::bob, std::move(w.main_b), o, test::opener_of(std::move(w.links_b)));
                bob_bio = s.run(bio, bio_in.sample);
                bob_mexp = s.run(mexp, mexp_in.exps);
            } catch (...) {
                bob_error = std::current_exception();
            }
        });
    const int most = own_threads.most();
    if (alice_error) FAIL("alice: " << message_of(alice_error));
    if (bob_error) FAIL("bob: " << message_of(bob_error));
    CHECK(std::chrono::steady_clock::now() - started < o.timeout);
    CHECK(alice_bio == apps::biomatch_plain<6, 2>(bio_in.db, bio_in.sample));
    CHECK(bob_bio == alice_bio);
    CHECK(alice_mexp == apps::mexp_plain<4>(mexp_in.bases, mexp_in.exps));
    CHECK(bob_mexp == alice_mexp);
    return most;
}

TEST_CASE("async.four_workers_per_party_run_on_one_thread_of_a_users_arena") {
    // Both parties as two tasks of a user's one-thread arena: the
    // executor's tasks join that arena (exec/workers_impl.hpp) and suspend
    // where they wait. A task that blocked would stall the one thread until
    // the links' deadline. tandem starts no thread of its own for them.
    for (const bool tcp : {false, true}) {
        const int own_threads = four_workers_per_party(tcp, [](std::function<void()> alice, std::function<void()> bob) {
            tbb::task_arena arena(1, 1);
            arena.execute([&] {
                tbb::task_group both;
                both.run(alice);
                both.run(bob);
                both.wait();
            });
        });
        CHECK(own_threads == 0);
    }
}

TEST_CASE("async.malicious_sessions_make_their_triples_on_one_thread_of_a_users_arena") {
    // Malicious sessions with two workers each make every batch of AND
    // triples in two parts at once, one per link (auth/garble.hpp,
    // make_triples): AES's 6,400 ANDs split in two. As two tasks of a user's
    // one-thread arena, the parts are tasks of that arena too and suspend
    // where they wait; a part that blocked would stall the only thread until
    // the links' deadline. tandem starts no thread of its own for them.
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const std::vector<std::vector<bool>> aes_in{bits_of_hex("2b7e151628aed2a6abf7158809cf4f3c"),
                                                bits_of_hex("3243f6a8885a308d313198a2e0370734")};
    const std::vector<bool> aes_out = bits_of_hex("3925841d02dc09fbdc118597196a0b32");
    for (const bool tcp : {false, true}) {
        INFO((tcp ? "tcp" : "in-process pair"));
        test::wiring w = tcp ? test::make_tcp_wiring(1) : test::make_wiring(1);
        session_options o;
        o.security = security::malicious;
        o.allow_plain_links = true;
        o.threads = 2;
        o.timeout = 20s;
        std::exception_ptr alice_error, bob_error;
        std::vector<std::vector<bool>> got[2];
        own_threads_watch own_threads;
        const auto side = [&](party me, std::unique_ptr<net::channel>& main, std::vector<std::unique_ptr<net::channel>>& links,
                              std::exception_ptr& error) {
            return [&, me] {
                try {
                    session s(me, std::move(main), o, test::opener_of(std::move(links)));
                    s.prepare(aes, 2);
                    for (int k = 0; k < 3; ++k) got[me == party::bob].push_back(s.run_bits(aes, aes.inputs_of(me, aes_in)).at(0));
                } catch (...) {
                    error = std::current_exception();
                }
            };
        };
        const auto started = std::chrono::steady_clock::now();
        tbb::task_arena arena(1, 1);
        arena.execute([&] {
            tbb::task_group both;
            both.run(side(party::alice, w.main_a, w.links_a, alice_error));
            both.run(side(party::bob, w.main_b, w.links_b, bob_error));
            both.wait();
        });
        const int most = own_threads.most();
        if (alice_error) FAIL("alice: " << message_of(alice_error));
        if (bob_error) FAIL("bob: " << message_of(bob_error));
        CHECK(std::chrono::steady_clock::now() - started < o.timeout);
        for (int p = 0; p < 2; ++p) {
            REQUIRE(got[p].size() == 3);
            for (const auto& v : got[p]) CHECK(v == aes_out);
        }
        CHECK(most == 0);
    }
}

TEST_CASE("async.four_workers_per_party_on_their_sessions_arenas_when_onetbb_may_start_no_worker") {
    // Each party on a thread of its own, its session's workers on the
    // session's arena — where a waiting task blocks its thread unless another
    // task of the arena is ready (detail/thread_demand.hpp). A user's limit
    // of one thread leaves each arena its caller alone: every wait there has
    // three ready tasks behind it, and must suspend for them to run.
    const tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    for (const bool tcp : {true, false}) {
        four_workers_per_party(tcp, [](std::function<void()> alice, std::function<void()> bob) {
            std::thread b(bob);
            alice();
            b.join();
        });
    }
}

TEST_CASE("async.a_sessions_arena_adds_its_workers_to_onetbbs_limit_while_it_lives") {
    // A session's waiting tasks may block their threads, as its dedicated
    // threads did: it brings them (detail/worker_budget.hpp) at its first
    // run outside a user's task, and takes them back when it goes. Runs
    // inside a user's task (an asynchronous session's) bring none.
    const auto limit = [] { return tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism); };
    const std::size_t before = limit();
    const auto use = [](exec::workers& w) { w.run_on_each(2, [](std::uint32_t) {}); };
    if (TANDEM_ADDRESS_SANITIZER || TANDEM_THREAD_SANITIZER) {
        // (there a session's own tasks have threads, and no arena: detail/sanitizers.hpp)
        exec::workers four(4);
        use(four);
        CHECK(limit() == before);
        return;
    }
    {
        exec::workers four(4);
        CHECK(limit() == before);
        tbb::task_arena users(2);
        users.execute([&] {
            tbb::task_group g;
            g.run([&] { use(four); });
            g.wait();
        });
        CHECK(limit() == before);
        use(four);
        CHECK(limit() == std::max(before, static_cast<std::size_t>(tbb::info::default_concurrency()) + 3));
        {
            exec::workers two(2);
            use(two);
            CHECK(limit() == std::max(before, static_cast<std::size_t>(tbb::info::default_concurrency()) + 4));
        }
        CHECK(limit() == std::max(before, static_cast<std::size_t>(tbb::info::default_concurrency()) + 3));
    }
    CHECK(limit() == before);
}

TEST_CASE("async.a_thread_that_left_an_arena_blocks_where_it_waits") {
    // oneTBB leaves a thread that once ran an arena's function attached to
    // an implicit arena; its later waits, outside any task, must block (a
    // suspended wait would hand every wait through the background thread).
    tbb::task_arena arena(2, 1);
    bool inside_task = false, inside_execute = true;
    arena.execute([&] {
        inside_execute = net::detail::can_suspend();
        tbb::task_group g;
        g.run([&] { inside_task = net::detail::can_suspend(); });
        g.wait();
    });
    CHECK(inside_task);
    CHECK_FALSE(inside_execute);
    const int slot = tbb::this_task_arena::current_thread_index(), none = tbb::task_arena::not_initialized;
    CHECK(slot != none);  // still attached
    CHECK_FALSE(net::detail::can_suspend());
    bool bound_task = true;  // a task that records a function keeps its thread (detail/thread_bound.hpp)
    arena.execute([&] {
        tbb::task_group g;
        g.run([&] {
            const detail::thread_bound_scope recording;
            bound_task = net::detail::can_suspend();
        });
        g.wait();
    });
    CHECK_FALSE(bound_task);
}

TEST_CASE("async.malicious_sessions_prepare_and_run_and_streamed_runs_equal_plaintext") {
    asio::io_context io;
    async_runtime rt(io, 2);
    async_listener server(rt, 0, "127.0.0.1");
    const auto circ = greater_than();
    session_options malicious;
    malicious.security = security::malicious;
    malicious.allow_plain_links = true;
    const auto sum_of_products = [] {
        return stream(
            [](const sequence<secure_uint<32>>& xs, secure_uint<32> y) {
                secure_uint<32> sum = 0;
                for (std::size_t i = 0; i < xs.size(); ++i) sum = sum + xs[i] * y;
                return sum;
            },
            sequence_input<party::alice, secure_uint<32>>(40), input<party::bob, secure_uint<32>>);
    };
    std::vector<std::uint32_t> xs(40);
    std::uint32_t expected_sum = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) expected_sum += (xs[i] = static_cast<std::uint32_t>(3 * i + 1)) * 7u;
    std::exception_ptr server_error, client_error;
    std::uint32_t alice_sum = 0, bob_sum = 0;
    std::size_t alice_prepared = 0, alice_left = 1;
    bool alice_got[2] = {}, bob_got[2] = {};
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session m = co_await server.async_accept(party::alice, malicious);
            co_await m.async_prepare(circ, 2);
            alice_prepared = m.get().prepared(circ);
            alice_got[0] = co_await m.async_run(circ, std::int32_t(50));
            alice_got[1] = co_await m.async_run(circ, std::int32_t(-50));
            alice_left = m.get().prepared(circ);
            async_session s = co_await server.async_accept(party::alice);
            auto fn = sum_of_products();
            alice_sum = co_await s.async_run_stream(fn, xs);
        },
        keep_first(server_error));
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session m = co_await async_connect(rt, party::bob, "127.0.0.1", server.port(), malicious);
            co_await m.async_prepare(circ, 2);
            bob_got[0] = co_await m.async_run(circ, std::int32_t(10));
            bob_got[1] = co_await m.async_run(circ, std::int32_t(10));
            async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", server.port());
            auto fn = sum_of_products();
            bob_sum = co_await s.async_run_stream(fn, std::uint32_t(7));
        },
        keep_first(client_error));
    io.run();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    CHECK(alice_prepared == 2);
    CHECK(alice_left == 0);
    for (const bool* got : {alice_got, bob_got}) {
        CHECK(got[0]);  // 50 > 10
        CHECK_FALSE(got[1]);  // -50 > 10
    }
    CHECK(alice_sum == expected_sum);
    CHECK(bob_sum == expected_sum);
}

TEST_CASE("async.malicious_sessions_with_two_workers_prepare_and_run_equal_to_plaintext") {
    // Two workers per party: each worker link makes AND triples of its own
    // (session/authenticated.hpp), its link routed by the listener.
    asio::io_context io;
    async_runtime rt(io, 2);
    async_listener server(rt, 0, "127.0.0.1");
    const auto bio = apps::biomatch_circuit<6, 2>();
    const auto circ = greater_than();
    session_options malicious;
    malicious.security = security::malicious;
    malicious.allow_plain_links = true;
    malicious.threads = 2;
    const std::uint64_t seed = 5404;
    INFO("seed " << seed);
    const auto in = apps::make_biomatch_inputs<6, 2>(seed);
    std::exception_ptr server_error, client_error;
    std::uint64_t alice_bio = 0, bob_bio = 0;
    bool alice_got = false, bob_got = false;
    std::uint32_t alice_threads = 0;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session m = co_await server.async_accept(party::alice, malicious);
            alice_threads = m.get().threads();
            co_await m.async_prepare(circ, 1);
            alice_got = co_await m.async_run(circ, std::int32_t(50));
            alice_bio = co_await m.async_run(bio, in.db);
            server.close();  // (a listener that routes worker links accepts until then)
        },
        keep_first(server_error));
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session m = co_await async_connect(rt, party::bob, "127.0.0.1", server.port(), malicious);
            co_await m.async_prepare(circ, 1);
            bob_got = co_await m.async_run(circ, std::int32_t(10));
            bob_bio = co_await m.async_run(bio, in.sample);
        },
        keep_first(client_error));
    io.run();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    CHECK(alice_threads == 2);
    CHECK(alice_got);  // 50 > 10
    CHECK(bob_got);
    CHECK(alice_bio == apps::biomatch_plain<6, 2>(in.db, in.sample));
    CHECK(bob_bio == alice_bio);
}

TEST_CASE("async.silent_peers_are_caught_by_the_deadline_whether_their_set_ups_block_or_suspend") {
    // One set-up alone on the runtime blocks its worker in its wait (no other
    // operation could want it: detail/thread_demand.hpp); three at once
    // suspend, and the io_context's timers end them. Either way the
    // deadline, not the silent peers' going away, ends them.
    for (const int peers : {1, 3}) {
        INFO(peers << " silent peer(s)");
        asio::io_context io;
        async_runtime rt(io, 1);
        async_listener server(rt, 0, "127.0.0.1");
        session_options quick;
        quick.timeout = 300ms;
        std::vector<std::string> errors;
        int set_up = 0;
        for (int k = 0; k < peers; ++k)
            asio::co_spawn(
                io,
                [&]() -> awaitable<void> {
                    try {
                        async_session s = co_await server.async_accept(party::alice, quick);
                        ++set_up;
                    } catch (const network_error& e) {
                        errors.emplace_back(e.what());
                    }
                },
                asio::detached);
        // Peers that connect and then say nothing for a second.
        std::vector<std::thread> silent;
        for (int k = 0; k < peers; ++k)
            silent.emplace_back([&] {
                auto ch = net::tcp_connect("127.0.0.1", server.port());
                std::this_thread::sleep_for(1s);
            });
        const auto start = std::chrono::steady_clock::now();
        io.run();
        const auto took = std::chrono::steady_clock::now() - start;
        for (std::thread& t : silent) t.join();
        CHECK(set_up == 0);
        REQUIRE(errors.size() == static_cast<std::size_t>(peers));
        for (const std::string& e : errors) CHECK_MESSAGE(e.find("no progress within 300 ms") != std::string::npos, e);
        CHECK(took < 900ms);
    }
}

TEST_CASE("async.an_operation_alone_that_waits_gives_its_worker_to_the_next_one") {
    // A runtime of one worker: the client's run starts alone and waits for
    // the server's, which starts 200 ms later. Alone, its wait blocks the
    // worker (one wake-up when the peer answers, as a blocking session's);
    // when the server's run arrives, the wait must hand the worker over
    // (detail/thread_demand.hpp) — a wait that kept it would hold both runs
    // until the deadline.
    asio::io_context io;
    async_runtime rt(io, 1);
    async_listener server(rt, 0, "127.0.0.1");
    session_options o;
    o.timeout = 5s;
    const auto circ = greater_than();
    std::exception_ptr server_error, client_error;
    std::optional<bool> alice_got, bob_got;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session s = co_await server.async_accept(party::alice, o);
            asio::steady_timer late(io);
            late.expires_after(200ms);
            co_await late.async_wait(use_awaitable);
            alice_got = co_await s.async_run(circ, std::int32_t(30));
        },
        keep_first(server_error));
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", server.port(), o);
            bob_got = co_await s.async_run(circ, std::int32_t(40));
        },
        keep_first(client_error));
    const auto start = std::chrono::steady_clock::now();
    io.run();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    CHECK(std::chrono::steady_clock::now() - start < o.timeout);
    CHECK(alice_got == std::optional<bool>(false));  // 30 > 40 is false
    CHECK(bob_got == std::optional<bool>(false));
}

TEST_CASE("async.refuses_listeners_it_cannot_route_and_a_second_operation_at_once") {
    asio::io_context io;
    async_runtime rt(io, 1);
    async_listener server(rt, 0, "127.0.0.1");
    const auto circ = greater_than();
    std::string threads_error, ipp_error, twice_error;
    std::exception_ptr server_error, client_error;
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            async_session s = co_await server.async_accept(party::alice);
            // Late to the run: the client's first run waits for it meanwhile.
            asio::steady_timer late(io);
            late.expires_after(200ms);
            co_await late.async_wait(use_awaitable);
            const bool r = co_await s.async_run(circ, std::int32_t(1));
            CHECK_FALSE(r);
        },
        keep_first(server_error));
    asio::co_spawn(
        io,
        [&]() -> awaitable<void> {
            // The server accepts sessions without worker links already.
            session_options two;
            two.threads = 2;
            try {
                co_await server.async_accept(party::alice, two);
            } catch (const usage_error& e) {
                threads_error = e.what();
            }
            // A listening Bob with sealed links cannot route worker links.
            async_listener bob_side(rt, 0, "127.0.0.1");
            session_options sealed_ipp;
            sealed_ipp.ipp = true;
            sealed_ipp.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key::generate());
            try {
                co_await bob_side.async_accept(party::bob, sealed_ipp);
            } catch (const usage_error& e) {
                ipp_error = e.what();
            }
            auto s = std::make_shared<async_session>(
                co_await async_connect(rt, party::bob, "127.0.0.1", server.port()));
            std::exception_ptr first_error;
            bool first = true, first_done = false;
            asio::co_spawn(
                io,
                [&, s]() -> awaitable<void> {
                    first = co_await s->async_run(circ, std::int32_t(2));
                    first_done = true;
                },
                keep_first(first_error));
            // The first run is under way (its task suspended, waiting for the
            // server): a second one is refused.
            asio::steady_timer t(io);
            t.expires_after(20ms);
            co_await t.async_wait(use_awaitable);
            try {
                co_await s->async_run(circ, std::int32_t(3));
            } catch (const usage_error& e) {
                twice_error = e.what();
            }
            while (!first_done && !first_error) {
                t.expires_after(5ms);
                co_await t.async_wait(use_awaitable);
            }
            if (first_error) std::rethrow_exception(first_error);
            CHECK_FALSE(first);  // 1 > 2
            server.close();
        },
        keep_first(client_error));
    io.run();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    CHECK(threads_error.find("serves sessions without worker links") != std::string::npos);
    CHECK(ipp_error.find("a listening Bob with protected links") != std::string::npos);
    CHECK(twice_error.find("an operation is still running") != std::string::npos);
}

/// `peers` asynchronous clients with `o` (threads, IPP) at once against one
/// server that serves them with `o`, each running BioMatch with its own
/// sample against the server's database; a stray connection that sends a
/// preface of no session and a silent one come first. Checks every result
/// against plaintext and that the sessions ran with o's workers.
void serve_peers_with_worker_links(const session_options& o, int peers) {
    const auto bio = apps::biomatch_circuit<6, 2>();
    if (o.threads > 1) REQUIRE_FALSE(exec::make_plan(bio, o.threads).one_worker);
    const std::uint64_t seed = 5402;
    INFO("seed " << seed << ", threads " << o.threads << ", ipp " << o.ipp);
    const auto server_in = apps::make_biomatch_inputs<6, 2>(seed);
    asio::io_context io;
    async_runtime rt(io, 2);
    async_listener server(rt, 0, "127.0.0.1");
    // Before the io_context runs: both wait in the kernel's queue.
    auto stray = net::tcp_connect("127.0.0.1", server.port());
    const auto bogus = detail::link_preface({0x5eed, 1});
    stray->send(bogus.data(), bogus.size());
    stray->flush();
    auto silent = net::tcp_connect("127.0.0.1", server.port());
    std::exception_ptr server_error, client_error;
    int served = 0, clients_done = 0;
    std::vector<std::uint64_t> got(static_cast<std::size_t>(peers), ~0ull);
    asio::co_spawn(io,
                   server.serve(
                       party::alice, o,
                       [&](async_session s) -> awaitable<void> {
                           CHECK(s.get().threads() == o.threads);
                           CHECK(s.get().ipp() == o.ipp);
                           (void)co_await s.async_run(bio, server_in.db);
                           ++served;
                       },
                       keep_first(server_error)),
                   asio::detached);
    for (int k = 0; k < peers; ++k)
        asio::co_spawn(
            io,
            [&, k]() -> awaitable<void> {
                const auto mine = apps::make_biomatch_inputs<6, 2>(seed + 1 + static_cast<std::uint64_t>(k));
                async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", server.port(), o);
                got[static_cast<std::size_t>(k)] = co_await s.async_run(bio, mine.sample);
                if (++clients_done == peers) server.close();
            },
            keep_first(client_error));
    io.run();
    if (server_error) FAIL("server: " << message_of(server_error));
    if (client_error) FAIL("client: " << message_of(client_error));
    CHECK(served == peers);
    for (int k = 0; k < peers; ++k) {
        const auto mine = apps::make_biomatch_inputs<6, 2>(seed + 1 + static_cast<std::uint64_t>(k));
        CHECK(got[static_cast<std::size_t>(k)] == apps::biomatch_plain<6, 2>(server_in.db, mine.sample));
    }
    CHECK(server.open_sessions() == 0);
}

TEST_CASE("async.sessions_with_worker_links_and_ipp_serve_many_peers_on_one_port_each_run_equal_to_plaintext") {
    // Every peer's worker links come to the listener's one port, mixed with
    // the other peers' and with strays: the listener routes each to its
    // session by its preface (session/link_preface.hpp).
    session_options two;
    two.threads = 2;
    serve_peers_with_worker_links(two, 6);
    session_options ipp;
    ipp.ipp = true;
    ipp.ipp_min_ands = 1;
    serve_peers_with_worker_links(ipp, 4);
    session_options both = ipp;
    both.threads = 2;
    serve_peers_with_worker_links(both, 3);
}

TEST_CASE("async.blocking_and_asynchronous_peers_with_worker_links_speak_the_same_protocol") {
    // A blocking client of an asynchronous server, and an asynchronous
    // client of a blocking server, with two workers and IPP.
    session_options o;
    o.threads = 2;
    o.ipp = true;
    o.ipp_min_ands = 1;
    const auto bio = apps::biomatch_circuit<6, 2>();
    const std::uint64_t seed = 5403;
    INFO("seed " << seed);
    const auto in = apps::make_biomatch_inputs<6, 2>(seed);
    const std::uint64_t expected = apps::biomatch_plain<6, 2>(in.db, in.sample);
    {
        asio::io_context io;
        async_runtime rt(io, 1);
        async_listener server(rt, 0, "127.0.0.1");
        std::exception_ptr server_error, client_error;
        std::uint64_t served = 0, client = 0;
        asio::co_spawn(
            io,
            [&]() -> awaitable<void> {
                async_session s = co_await server.async_accept(party::alice, o);
                served = co_await s.async_run(bio, in.db);
                server.close();
            },
            keep_first(server_error));
        std::thread blocking([&] {
            try {
                session s = session::connect(party::bob, "127.0.0.1", server.port(), o);
                client = s.run(bio, in.sample);
            } catch (...) {
                client_error = std::current_exception();
            }
        });
        io.run();
        blocking.join();
        if (server_error) FAIL("asynchronous server: " << message_of(server_error));
        if (client_error) FAIL("blocking client: " << message_of(client_error));
        CHECK(served == expected);
        CHECK(client == expected);
    }
    {
        listener blocking_server(0, "127.0.0.1");
        std::exception_ptr server_error, client_error;
        std::uint64_t served = 0, client = 0;
        std::thread blocking([&] {
            try {
                session s = blocking_server.accept(party::alice, o);
                served = s.run(bio, in.db);
            } catch (...) {
                server_error = std::current_exception();
            }
        });
        asio::io_context io;
        async_runtime rt(io, 1);
        asio::co_spawn(
            io,
            [&]() -> awaitable<void> {
                async_session s = co_await async_connect(rt, party::bob, "127.0.0.1", blocking_server.port(), o);
                client = co_await s.async_run(bio, in.sample);
            },
            keep_first(client_error));
        io.run();
        blocking.join();
        if (server_error) FAIL("blocking server: " << message_of(server_error));
        if (client_error) FAIL("asynchronous client: " << message_of(client_error));
        CHECK(served == expected);
        CHECK(client == expected);
    }
}

}  // namespace async_tests

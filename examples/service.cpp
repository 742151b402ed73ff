// A private set membership service: the server holds a list of 64 numbers
// (say, revoked badge ids); each client learns whether its number is on the
// list, and nothing else about it; the server learns nothing about the
// client's number. One server process answers many clients at once on a
// fixed number of threads (tandem/async.hpp): a client waiting on the
// network holds no thread.
//
//   service --serve [--port 7766] [--threads 2]      the server, until stopped
//   service --ask <host> <number> [--port 7766]       one client
//   service --local [--clients 16]                    a server and that many concurrent clients
//                                                     in this process, over loopback TCP
#include <tandem/async.hpp>
#include <tandem/tandem.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>

namespace {

using namespace tandem;
using id = secure_uint<32>;
constexpr std::size_t list_size = 64;
using id_list = std::array<id, list_size>;

/// Whether x is one of the list's numbers: 64 comparisons, OR-ed.
auto membership() {
    return compile(
        [](const id_list& list, id x) {
            secure_bit found = false;
            for (const id& v : list) found = found | (v == x);
            return found;
        },
        input<party::alice, id_list>, input<party::bob, id>);
}

using membership_circuit = decltype(membership());

/// The server's list: 64 numbers, 1009·k + 7.
std::array<std::uint32_t, list_size> the_list() {
    std::array<std::uint32_t, list_size> l{};
    for (std::size_t k = 0; k < list_size; ++k) l[k] = static_cast<std::uint32_t>(1009 * k + 7);
    return l;
}

/// Answers every client that connects, one session each, one question per session.
asio::awaitable<void> serve(async_listener& server, const membership_circuit& circ,
                            const std::array<std::uint32_t, list_size>& list) {
    co_await server.serve(
        party::alice, {},
        [&](async_session s) -> asio::awaitable<void> {
            const bool on_list = co_await s.async_run(circ, list);
            (void)on_list;  // the client learns it; so does the server (reveal::bob would keep it from it)
        },
        [](std::exception_ptr e) {  // one client's failure ends that client's session only
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                std::cerr << "service: a client's session failed: " << x.what() << "\n";
            }
        });
}

asio::awaitable<bool> ask(async_runtime& rt, const std::string& host, std::uint16_t port, std::uint32_t number,
                          const membership_circuit& circ) {
    async_session s = co_await async_connect(rt, party::bob, host, port);
    co_return co_await s.async_run(circ, number);
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode, host;
    std::uint16_t port = 7766;
    unsigned threads = 2;
    int clients = 16;
    std::uint32_t number = 0;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            const auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            if (a == "--serve" || a == "--local") mode = a;
            else if (a == "--ask") {
                mode = a;
                host = value();
                number = static_cast<std::uint32_t>(std::stoul(value()));
            } else if (a == "--port") port = static_cast<std::uint16_t>(std::stoi(value()));
            else if (a == "--threads") threads = static_cast<unsigned>(std::stoi(value()));
            else if (a == "--clients") clients = std::stoi(value());
            else throw std::invalid_argument("unknown argument '" + a + "'");
        }
        if (mode.empty()) throw std::invalid_argument("say --serve, --ask or --local");
    } catch (const std::exception& e) {
        std::cerr << "service: " << e.what()
                  << "\nusage: service --serve [--port P] [--threads T] | --ask <host> <number> [--port P] | "
                     "--local [--clients N]\n";
        return 2;
    }
    try {
        const auto circ = membership();
        const auto list = the_list();
        asio::io_context io;  // all I/O on this thread
        async_runtime rt(io, threads);
        if (mode == "--serve") {
            async_listener server(rt, port);
            std::cout << "service: answering on port " << port << " with " << threads << " threads\n";
            asio::co_spawn(io, serve(server, circ, list), asio::detached);
            io.run();
            return 0;
        }
        if (mode == "--ask") {
            bool on_list = false;
            asio::co_spawn(io, ask(rt, host, port, number, circ), [&](std::exception_ptr e, bool r) {
                if (e) std::rethrow_exception(e);
                on_list = r;
            });
            io.run();
            std::cout << number << (on_list ? " is" : " is not") << " on the server's list\n";
            return 0;
        }
        // --local: the server and the clients on one io_context, over loopback TCP.
        async_listener server(rt, 0, "127.0.0.1");
        asio::co_spawn(io, serve(server, circ, list), asio::detached);
        int answered = 0, wrong = 0;
        for (int k = 0; k < clients; ++k) {
            const std::uint32_t mine = k % 2 == 0 ? list[static_cast<std::size_t>(k * 5) % list_size]
                                                  : static_cast<std::uint32_t>(1009 * k + 8);
            const bool expected = std::find(list.begin(), list.end(), mine) != list.end();
            asio::co_spawn(io, ask(rt, "127.0.0.1", server.port(), mine, circ),
                           [&, expected](std::exception_ptr e, bool r) {
                               if (e) std::rethrow_exception(e);
                               wrong += r != expected;
                               if (++answered == clients) server.close();
                           });
        }
        io.run();
        std::cout << "service: " << answered << " clients asked at once, " << answered - wrong
                  << " answers equal plaintext, on " << threads << " threads\n";
        return wrong == 0 && answered == clients ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "service: " << e.what() << "\n";
        return 1;
    }
}

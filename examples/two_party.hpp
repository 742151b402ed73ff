// examples/two_party.hpp — the command line shared by the two-party examples.
//
//   <example> --party alice [--host <bind address>] [--port <port>] [args…]
//   <example> --party bob    --host <alice's address>  [--port <port>] [args…]
//   <example> --local [args…]
//
// Alice listens, Bob connects. --local runs both as two processes on this
// machine: this process listens on a free loopback port as Alice and starts a
// copy of itself as Bob, connected over TCP. Each party prints its own report.
// Not part of the library: examples may print and exit.
#pragma once

#include <tandem/tandem.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace example {

struct cli {
    tandem::party me = tandem::party::alice;
    bool party_given = false;
    std::string host;  // bob: where alice listens; alice: address to bind (default all)
    std::uint16_t port = 7766;
    bool local = false;
    tandem::session_options options;
    tandem::reveal who = tandem::reveal::both;
    bool progress = true;           // streamed runs: draw a progress line on stderr if it is a terminal
    std::vector<std::string> rest;  // the example's own arguments, in order
};

inline const char* common_usage =
    "  --party alice|bob   which party this process is (alice listens, bob connects)\n"
    "  --host <address>    bob: alice's address (default 127.0.0.1); alice: address to listen on (default all)\n"
    "  --port <port>       TCP port (default 7766)\n"
    "  --local             run both parties on this machine: two processes over loopback TCP\n"
    "  --reveal both|alice|bob   who learns the output (default both)\n"
    "  --timeout <ms>      deadline of each network wait (default 60000)\n"
    "  --threads <n>       workers per party, each with its own thread and TCP connection (default 1);\n"
    "                      both parties alike\n"
    "  --ipp               inter-party parallelization: each party garbles half of every large parallel\n"
    "                      region and evaluates the other half (opens --threads more connections);\n"
    "                      both parties alike\n"
    "  --no-progress       streamed runs: no progress line on stderr (drawn only when it is a terminal)\n"
    "  --pipeline, --no-pipeline   streamed runs: record the next segment while a second thread\n"
    "                      garbles or evaluates the last, or never (default: where this process has\n"
    "                      two cores per party on its host)\n"
    "  --hash rekeyed|fixed-key   garbling hash (default rekeyed; fixed-key is a faster opt-in with a\n"
    "                      weaker multi-instance bound, see crypto/fixed_key_hash.hpp); both parties alike\n";

/// Parses the common options; the rest go to cli::rest. Throws std::invalid_argument.
inline cli parse(int argc, char** argv) {
    cli c;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--party") {
            const std::string p = value();
            if (p != "alice" && p != "bob") throw std::invalid_argument("--party must be alice or bob, not '" + p + "'");
            c.me = p == "alice" ? tandem::party::alice : tandem::party::bob;
            c.party_given = true;
        } else if (arg == "--host") {
            c.host = value();
        } else if (arg == "--port") {
            const int p = std::stoi(value());
            if (p < 0 || p > 65535) throw std::invalid_argument("--port must be in 0..65535");
            c.port = static_cast<std::uint16_t>(p);
        } else if (arg == "--local") {
            c.local = true;
        } else if (arg == "--reveal") {
            const std::string w = value();
            if (w == "both") c.who = tandem::reveal::both;
            else if (w == "alice") c.who = tandem::reveal::alice;
            else if (w == "bob") c.who = tandem::reveal::bob;
            else throw std::invalid_argument("--reveal must be both, alice or bob");
        } else if (arg == "--hash") {
            const std::string h = value();
            if (h == "rekeyed") c.options.hash = tandem::garbling_hash::rekeyed;
            else if (h == "fixed-key") c.options.hash = tandem::garbling_hash::fixed_key;
            else throw std::invalid_argument("--hash must be rekeyed or fixed-key");
        } else if (arg == "--threads") {
            const long n = std::stol(value());
            if (n < 1 || n > 256) throw std::invalid_argument("--threads must be in 1..256");
            c.options.threads = static_cast<std::uint32_t>(n);
        } else if (arg == "--pipeline" || arg == "--no-pipeline") {
            c.options.pipeline_streams = arg == "--pipeline";
        } else if (arg == "--no-progress") {
            c.progress = false;
        } else if (arg == "--ipp") {
            c.options.ipp = true;
        } else if (arg == "--timeout") {
            c.options.timeout = std::chrono::milliseconds(std::stol(value()));
            c.options.connect_timeout = c.options.timeout;
        } else {
            c.rest.push_back(arg);
        }
    }
    if (c.local == c.party_given) throw std::invalid_argument("give either --party alice|bob or --local");
    return c;
}

/// Reports what a run cost, one line per item, prefixed with the party.
inline void report(const tandem::session& s, const std::string& result) {
    const tandem::run_stats& r = s.last_run();
    std::string who = "[";  // (appended, not "[" + std::string(...): GCC 12 warns falsely on that)
    who.append(tandem::to_string(s.me())).append("] ");
    const std::uint32_t connections = s.threads() * (s.ipp() ? 2 : 1);
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(2);
    out << who << result << "\n"
        << who << "AND gates: " << r.and_gates << "; sent " << r.bytes_sent << " bytes, received " << r.bytes_received
        << " bytes\n"
        << who << "set-up " << s.setup_seconds() * 1e3 << " ms (handshake, base OTs, " << connections
        << (connections == 1 ? " connection" : " connections") << "), online " << r.seconds * 1e3
        << " ms (of which OT extension " << r.ot_seconds * 1e3 << " ms)\n";
    if (s.ipp())
        out << who << "IPP: " << r.transferred_bits << " bits transferred between the worlds (" << r.transfer_ots
            << " OTs, " << r.transfer_seconds * 1e3 << " ms)\n";
    std::cout << out.str() << std::flush;
}

/// Connects as the command line says and calls body(session) (in --local
/// mode as Alice, with a second process as Bob). Returns the exit status.
inline int run(const cli& c, int argc, char** argv, const std::function<int(tandem::session&)>& body) {
    const std::string name = argv[0];
    try {
        if (!c.local) {
            tandem::session s = c.me == tandem::party::alice
                                    ? tandem::session::listen(c.me, c.port, c.options, c.host.empty() ? "0.0.0.0" : c.host)
                                    : tandem::session::connect(c.me, c.host.empty() ? "127.0.0.1" : c.host, c.port,
                                                               c.options);
            return body(s);
        }
        tandem::net::tcp_listener listener(0, "127.0.0.1");
        std::vector<std::string> args{name, "--party", "bob", "--host", "127.0.0.1", "--port",
                                      std::to_string(listener.port()), "--no-progress"};  // one progress line: alice's
        for (int i = 1; i < argc; ++i)
            if (std::string(argv[i]) != "--local") args.push_back(argv[i]);
        std::vector<char*> child_argv;
        for (auto& a : args) child_argv.push_back(a.data());
        child_argv.push_back(nullptr);
        pid_t bob = 0;
        if (posix_spawn(&bob, "/proc/self/exe", nullptr, nullptr, child_argv.data(), environ) != 0)
            throw std::runtime_error("cannot start the bob process");
        int status = 1;
        try {
            tandem::session s = tandem::session::accept(tandem::party::alice, listener, c.options);
            status = body(s);
        } catch (...) {
            int ignored = 0;
            waitpid(bob, &ignored, 0);
            throw;
        }
        int bob_status = 0;
        waitpid(bob, &bob_status, 0);
        const bool bob_ok = WIFEXITED(bob_status) && WEXITSTATUS(bob_status) == 0;
        return status != 0 ? status : bob_ok ? 0 : 1;
    } catch (const tandem::error& e) {
        std::cerr << name << " (" << tandem::to_string(c.local ? tandem::party::alice : c.me) << "): " << e.what()
                  << "\n";
        return 1;
    }
}

}  // namespace example

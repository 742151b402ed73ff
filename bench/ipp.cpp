// bench_ipp — inter-party parallelization (paper 001 §6.5, Tables 4 and 5):
// raw Yao (Alice garbles every region, Bob evaluates) against IPP (each party
// garbles half of every large region and evaluates the other half) for the
// three applications of paper 001 §6.2 (BioMatch, MExp, MVMul), and BioMatch
// as a streamed function ("biomatch-s": IPP planned segment by segment).
//
//   bench_ipp [--case ceiling|compute|all] [--hash rekeyed|fixed-key|both]
//             [--scheme half-gates|three-halves|both] [--threads N] [--reps N]
//             [--only NAME[,NAME...]] [--quick] [--json]
//   bench_ipp --case link --party alice|bob --host H --port P [--link NAME] [--pin CORE] [same options]
//   bench_ipp --relay LISTEN_PORT TARGET_HOST TARGET_PORT --delay-us D
//
// Cases:
//   ceiling  this machine's garbling and evaluation cost per AND, G and E
//            (one thread, tables in memory), and the compute-bound IPP
//            ceiling 2G / (G + E): with each party on one core, raw Yao is
//            bound by the garbler's G per AND, IPP by (G + E) / 2 per AND on
//            both cores (paper 001 §5.1: 1.33 when E = G / 2)
//   compute  two processes over loopback TCP, each pinned to a core of its
//            own (paper Table 4, one core per party), raw vs IPP; reports
//            the speed-up and its share of the ceiling
//   link     one party of a run over a real, shaped link: scripts/ipp-link.sh
//            puts the parties in two network namespaces joined by a veth pair
//            (paper Table 5) and runs this case in each
// --threads N: workers per party (and per world with IPP), default 1.
// --relay: a user-space delay line for kernels without netem (the script's
// fallback): forwards every connection to TARGET, each direction delayed by
// D µs. --quick uses small instances (BioMatch 64 entries, MExp 4, MVMul 4×16,
// streamed BioMatch 128). --only picks applications by name.
#include "common.hpp"
#include "app_set.hpp"
#include "processes.hpp"

#include "../examples/apps.hpp"

#include <tandem/gc/three_halves.hpp>
#include <tandem/tandem.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using namespace tandem;
using bench::app;
using bench::make_apps;
using bench::since;
using clock_type = std::chrono::steady_clock;

struct config {
    bench::options opt;
    std::string which = "all";
    std::vector<garbling_hash> hashes{garbling_hash::rekeyed};
    std::vector<garbling_scheme> schemes{garbling_scheme::half_gates};
    std::string link = "loopback";
    std::string party;  // link case: alice or bob
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
    int pin = -1;
    bool is_child = false;  // compute case: the bob process
    std::vector<std::string> only;  // --only: these applications (all if empty)
    /// Every scheme and hash compared, scheme by scheme.
    std::vector<std::pair<garbling_scheme, garbling_hash>> garblings() const {
        std::vector<std::pair<garbling_scheme, garbling_hash>> g;
        for (const garbling_scheme s : schemes)
            for (const garbling_hash h : hashes) g.emplace_back(s, h);
        return g;
    }
};

std::string hash_name(garbling_hash h) { return h == garbling_hash::rekeyed ? "rekeyed" : "fixed-key"; }

// ---- ceiling: G and E on this machine ----------------------------------------------

struct costs {
    double garble = 0, evaluate = 0;  // seconds per AND (medians)
    double ceiling() const { return 2 * garble / (garble + evaluate); }
};

template <class Hash>
costs measure_costs(const app& a, int reps, garbling_scheme scheme) {
    const circuit_data& d = a.c.data();
    prg rng(block(5, 6));
    gc::encoding enc{rng.next() | block(0, 1), std::vector<block>(d.input_bits)};
    rng.fill(enc.zero_labels.data(), d.input_bits);
    const block start = rng.next();
    gc::table_buffer tables;
    gc::byte_buffer bytes;  // three-halves'
    tables.reserve(2 * a.c.stats().and_gates);
    if (scheme == garbling_scheme::three_halves) bytes.reserve(25 * a.c.stats().and_gates);
    std::vector<block> active(d.input_bits);
    for (std::uint32_t i = 0; i < d.input_bits; ++i) active[i] = enc.zero_labels[i] ^ (enc.delta & mask_of(i % 3 == 0));
    std::vector<double> g, e;
    for (int r = 0; r <= reps; ++r) {  // the first of each is a warm-up
        tables.clear();
        bytes.clear();
        const bool half = scheme == garbling_scheme::half_gates;
        auto t0 = clock_type::now();
        if (half) (void)gc::garble<Hash>(a.c, enc, start, tables);
        else (void)gc::three_halves::garble<Hash>(a.c, enc, start, bytes);
        if (r > 0) g.push_back(since(t0));
        gc::table_reader source(tables.tables());
        gc::byte_reader byte_source(bytes.bytes());
        t0 = clock_type::now();
        if (half) (void)gc::evaluate<Hash>(a.c, start, source, active);
        else (void)gc::three_halves::evaluate<Hash>(a.c, start, byte_source, active);
        if (r > 0) e.push_back(since(t0));
    }
    const double ands = double(a.c.stats().and_gates);
    return {bench::median(g) / ands, bench::median(e) / ands};
}

costs measure(const app& a, garbling_hash h, garbling_scheme s, int reps) {
    return h == garbling_hash::rekeyed ? measure_costs<rekeyed_hash>(a, reps, s)
                                       : measure_costs<fixed_key_hash>(a, reps, s);
}

// ---- both parties: raw vs IPP over whatever link the session uses ---------------------

/// For each scheme, hash and app: a session without and one with IPP, a
/// warm-up run and --reps timed runs each; Alice prints. `open(options)`
/// opens a session.
int party_main(const config& c, const std::vector<app>& apps, const std::string& case_name,
               const std::function<session(const session_options&)>& open,
               const std::function<costs(const app&, garbling_hash, garbling_scheme)>& ceiling) {
    const bool alice = c.party != "bob" && !c.is_child;
    for (const auto& g : c.garblings()) {
        const garbling_scheme sc = g.first;
        const garbling_hash h = g.second;
        if (alice && !c.opt.json)
            std::printf("%s: raw Yao vs IPP, %s link, %s, %s hash, %d worker%s per party%s, median of %d\n",
                        case_name.c_str(), c.link.c_str(), std::string(to_string(sc)).c_str(), hash_name(h).c_str(),
                        c.opt.threads, c.opt.threads == 1 ? "" : "s", c.opt.threads == 1 ? "" : " and world",
                        c.opt.reps);
        for (const app& a : apps) {
            const costs cost = alice ? ceiling(a, h, sc) : costs{};
            double raw = 0;
            for (const bool ipp : {false, true}) {
                session_options o;
                o.threads = static_cast<std::uint32_t>(c.opt.threads);
                o.hash = h;
                o.scheme = sc;
                o.ipp = ipp;
                o.timeout = std::chrono::minutes(5);
                o.connect_timeout = std::chrono::minutes(2);
                session s = open(o);
                const auto& mine = alice ? a.alice : a.bob;
                const auto run = [&] {
                    if (a.streamed) {
                        if (!a.streamed(s, alice)) throw std::runtime_error(a.name + ": wrong result");
                        return;
                    }
                    const auto out = s.run_bits(reveal::both, a.c, mine);
                    if (!out || *out != a.expected) throw std::runtime_error(a.name + ": wrong result");
                };
                run();  // warm-up: label arrays, TCP windows
                std::vector<double> secs;
                for (int r = 0; r < c.opt.reps; ++r) {
                    bench::barrier(s);
                    const auto t0 = clock_type::now();
                    run();
                    const double me = since(t0);
                    secs.push_back(std::max(me, bench::swap_figure(s, me)));
                }
                const run_stats st = s.last_run();
                const double their_sent = bench::swap_figure(s, double(st.bytes_sent));
                const double their_transfer = bench::swap_figure(s, st.transfer_seconds);
                if (!alice) continue;
                const double med = bench::median(secs), mn = bench::minimum(secs);
                if (!ipp) raw = med;
                const double ands = double(st.and_gates);
                const double speedup = raw / med;
                if (c.opt.json) {
                    bench::record rec("ipp", case_name + "_" + a.name);
                    rec.add("ipp", ipp ? "true" : "false")
                        .add("threads", c.opt.threads)
                        .add_string("link", c.link)
                        .add_string("hash", hash_name(h))
                        .add_string("scheme", std::string(to_string(sc)))
                        .add("seconds", med)
                        .add("seconds_min", mn)
                        .add("reps", c.opt.reps)
                        .add("and_gates", st.and_gates)
                        .add("and_per_s", ands / med)
                        .add("bytes_alice", st.bytes_sent)
                        .add("bytes_bob", static_cast<std::uint64_t>(their_sent))
                        .add("speedup", speedup)
                        .add("transferred_bits", st.transferred_bits)
                        .add("transfer_ots", st.transfer_ots)
                        .add("transfer_seconds_alice", st.transfer_seconds)
                        .add("transfer_seconds_bob", their_transfer);
                    if (cost.garble > 0)
                        rec.add("garble_ns_per_and", cost.garble * 1e9)
                            .add("evaluate_ns_per_and", cost.evaluate * 1e9)
                            .add("ceiling", cost.ceiling())
                            .add("share_of_ceiling", speedup / cost.ceiling());
                    std::cout << rec.add("peak_rss_bytes", bench::peak_rss_bytes()).json() << "\n";
                } else {
                    std::printf("  %-9s %-4s %9.1f ms (min %9.1f) %6.2f M AND/s  sent A %6.1f MB, B %6.1f MB", a.name.c_str(),
                                ipp ? "IPP" : "raw", med * 1e3, mn * 1e3, ands / med / 1e6, double(st.bytes_sent) / 1e6,
                                their_sent / 1e6);
                    if (ipp) {
                        std::printf("  x%.2f", speedup);
                        if (cost.garble > 0)
                            std::printf(" (ceiling %.2f: %.0f %%)", cost.ceiling(), 100 * speedup / cost.ceiling());
                        std::printf("; transfers %llu bits, %llu OTs, %.1f / %.1f ms", (unsigned long long)st.transferred_bits,
                                    (unsigned long long)st.transfer_ots, st.transfer_seconds * 1e3, their_transfer * 1e3);
                    }
                    std::printf("\n");
                }
            }
        }
    }
    return 0;
}

// ---- 64-bit products -----------------------------------------------------------------

/// The sum of the K·K products of two vectors of 64-bit values (bench_two_party's mul64).
template <std::size_t K>
app products64(std::string name) {
    using vec = std::array<secure_int<64>, K>;
    const auto sum_of_products = [](const vec& x, const vec& y) {
        secure_int<64> sum = 0;
        for (std::size_t i = 0; i < K; ++i)
            for (std::size_t j = 0; j < K; ++j) sum = sum + x[i] * y[j];
        return sum;
    };
    return bench::make_app(std::move(name), compile(sum_of_products, input<party::alice, vec>, input<party::bob, vec>));
}

// ---- a streamed application -------------------------------------------------------

/// The plain words of a value's bits, 64 to a word, least significant first.
std::vector<std::uint64_t> words_of(const std::vector<bool>& bits) {
    std::vector<std::uint64_t> w((bits.size() + 63) / 64, 0);
    for (std::size_t k = 0; k < bits.size(); ++k) w[k / 64] |= std::uint64_t{bits[k]} << (k % 64);
    return w;
}

/// BioMatch streamed (apps::biomatch_stream, blocks of 128 entries), on the
/// compiled BioMatch's inputs: the same ANDs and result, recorded as it runs.
template <std::size_t N>
app streamed_biomatch(const std::string& name) {
    app a = bench::make_app(name, apps::biomatch_circuit<N>());
    const std::vector<std::uint64_t> db_words = words_of(a.alice[0]), sample_words = words_of(a.bob[0]);
    std::vector<std::array<std::uint64_t, 4>> db(N);
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t k = 0; k < 4; ++k) db[i][k] = db_words[4 * i + k];
    std::array<std::uint64_t, 4> sample{};
    for (std::size_t k = 0; k < 4; ++k) sample[k] = sample_words[k];
    const std::uint64_t want = words_of(a.expected[0])[0];
    a.streamed = [db, sample, want](session& s, bool alice) {
        auto fn = apps::biomatch_stream<128>(N);
        const std::uint64_t got = alice ? s.run(fn, db) : s.run(fn, sample);
        return got == want;
    };
    return a;
}

// ---- relay: a user-space delay line -------------------------------------------------

/// Copies one direction of a connection, each chunk held back until `delay`
/// after it arrived; at most 64 MiB in flight.
void pump(int from, int to, std::chrono::microseconds delay) {
    struct chunk {
        clock_type::time_point due;
        std::vector<char> bytes;
    };
    std::mutex m;
    std::condition_variable cv;
    std::deque<chunk> q;
    std::size_t held = 0;
    bool done = false;
    std::thread writer([&] {
        for (;;) {
            chunk c;
            {
                std::unique_lock lock(m);
                cv.wait(lock, [&] { return done || !q.empty(); });
                if (q.empty()) break;
                c = std::move(q.front());
                q.pop_front();
            }
            std::this_thread::sleep_until(c.due);
            for (std::size_t off = 0; off < c.bytes.size();) {
                const ssize_t n = ::send(to, c.bytes.data() + off, c.bytes.size() - off, MSG_NOSIGNAL);
                if (n <= 0) {
                    ::shutdown(from, SHUT_RDWR);
                    return;
                }
                off += static_cast<std::size_t>(n);
            }
            {
                std::lock_guard lock(m);
                held -= c.bytes.size();
            }
            cv.notify_all();
        }
        ::shutdown(to, SHUT_WR);
    });
    std::vector<char> buf(1 << 16);
    for (;;) {
        const ssize_t n = ::recv(from, buf.data(), buf.size(), 0);
        if (n <= 0) break;
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return held < (std::size_t{64} << 20); });
        q.push_back({clock_type::now() + delay, std::vector<char>(buf.begin(), buf.begin() + n)});
        held += static_cast<std::size_t>(n);
        cv.notify_all();
    }
    {
        std::lock_guard lock(m);
        done = true;
    }
    cv.notify_all();
    writer.join();
}

int tuned_socket() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1, big = 8 << 20;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    return fd;
}

int relay_main(std::uint16_t listen_port, const std::string& host, std::uint16_t port, int delay_us) {
    const int lfd = tuned_socket();
    const int one = 1;
    ::setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(listen_port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(lfd, 64) != 0) {
        std::perror("bench_ipp --relay: bind/listen");
        return 1;
    }
    sockaddr_in target{};
    target.sin_family = AF_INET;
    target.sin_port = htons(port);
    if (::inet_pton(AF_INET, host.c_str(), &target.sin_addr) != 1) {
        std::fprintf(stderr, "bench_ipp --relay: %s is not an IPv4 address\n", host.c_str());
        return 2;
    }
    const std::chrono::microseconds delay(delay_us);
    for (;;) {
        const int in = ::accept(lfd, nullptr, nullptr);
        if (in < 0) continue;
        std::thread([in, target, delay] {
            // The target may not listen yet (it starts when the client does): retry for two minutes.
            int out = -1;
            for (const auto give_up = clock_type::now() + std::chrono::minutes(2); clock_type::now() < give_up;) {
                out = tuned_socket();
                if (::connect(out, reinterpret_cast<const sockaddr*>(&target), sizeof target) == 0) break;
                ::close(out);
                out = -1;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            if (out < 0) {
                ::close(in);
                return;
            }
            std::thread back(pump, out, in, delay);
            pump(in, out, delay);
            back.join();
            ::close(in);
            ::close(out);
        }).detach();
    }
}

}  // namespace

int main(int argc, char** argv) {
    config c;
    std::vector<char*> common{argv[0]};
    std::vector<std::string> passthrough;  // for the bob process of the compute case
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            const auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            if (a == "--relay") {
                if (i + 5 >= argc || std::string(argv[i + 4]) != "--delay-us")
                    throw std::invalid_argument("--relay LISTEN_PORT TARGET_HOST TARGET_PORT --delay-us D");
                return relay_main(static_cast<std::uint16_t>(std::stoi(argv[i + 1])), argv[i + 2],
                                  static_cast<std::uint16_t>(std::stoi(argv[i + 3])), std::stoi(argv[i + 5]));
            } else if (a == "--case") {
                c.which = value();
            } else if (a == "--hash") {
                const std::string h = value();
                if (h == "rekeyed") c.hashes = {garbling_hash::rekeyed};
                else if (h == "fixed-key") c.hashes = {garbling_hash::fixed_key};
                else if (h == "both") c.hashes = {garbling_hash::rekeyed, garbling_hash::fixed_key};
                else throw std::invalid_argument("--hash must be rekeyed, fixed-key or both");
                passthrough.insert(passthrough.end(), {"--hash", h});
            } else if (a == "--scheme") {
                const std::string h = value();
                if (h == "half-gates") c.schemes = {garbling_scheme::half_gates};
                else if (h == "three-halves") c.schemes = {garbling_scheme::three_halves};
                else if (h == "both") c.schemes = {garbling_scheme::half_gates, garbling_scheme::three_halves};
                else throw std::invalid_argument("--scheme must be half-gates, three-halves or both");
                passthrough.insert(passthrough.end(), {"--scheme", h});
            } else if (a == "--link") {
                c.link = value();
            } else if (a == "--party") {
                c.party = value();
                if (c.party != "alice" && c.party != "bob") throw std::invalid_argument("--party must be alice or bob");
            } else if (a == "--host") {
                c.host = value();
            } else if (a == "--port") {
                c.port = static_cast<std::uint16_t>(std::stoi(value()));
            } else if (a == "--only") {
                const std::string list = value();
                for (std::size_t b = 0, e; b <= list.size(); b = e + 1) {
                    e = std::min(list.find(',', b), list.size());
                    c.only.push_back(list.substr(b, e - b));
                }
                passthrough.insert(passthrough.end(), {"--only", list});
            } else if (a == "--pin") {
                c.pin = std::stoi(value());
            } else if (a == "--bob-port") {  // internal: the compute case's bob process
                c.is_child = true;
                c.port = static_cast<std::uint16_t>(std::stoi(value()));
            } else {
                common.push_back(argv[i]);
                passthrough.push_back(a);
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "bench_ipp: " << e.what() << "\n";
        return 2;
    }
    const std::vector<std::string> cases{"all", "ceiling", "compute", "link"};
    if (std::find(cases.begin(), cases.end(), c.which) == cases.end()) {
        std::cerr << "bench_ipp: unknown --case " << c.which << "\n";
        return 2;
    }
    if (c.which == "link" && (c.party.empty() || c.port == 0)) {
        std::cerr << "bench_ipp: --case link needs --party alice|bob and --port (see scripts/ipp-link.sh)\n";
        return 2;
    }
    c.opt = bench::parse(static_cast<int>(common.size()), common.data(),
                         "bench_ipp [--case ceiling|compute|link|all] [--hash rekeyed|fixed-key|both] "
                         "[--scheme half-gates|three-halves|both] [--link NAME] "
                         "[--party alice|bob --host H --port P] [--pin CORE]");
    const std::string role = c.is_child || c.party == "bob" ? "bob" : "alice";
    try {
        std::vector<app> apps = make_apps(c.opt.quick);
        apps.push_back(c.opt.quick ? streamed_biomatch<128>("biomatch-s") : streamed_biomatch<512>("biomatch-s"));
        // 64-bit products with no region (IPP runs them as raw Yao): the
        // issue-56 shape besides BioMatch, where only the table bytes differ.
        apps.push_back(c.opt.quick ? products64<4>("mul64") : products64<16>("mul64"));
        if (!c.only.empty())
            std::erase_if(apps, [&](const app& a) { return std::find(c.only.begin(), c.only.end(), a.name) == c.only.end(); });
        std::map<std::tuple<std::string, garbling_hash, garbling_scheme>, costs> measured;
        const auto ceiling = [&](const app& a, garbling_hash h, garbling_scheme s) {
            const auto key = std::make_tuple(a.name, h, s);
            if (!measured.count(key)) measured[key] = measure(a, h, s, std::max(3, c.opt.reps));
            return measured[key];
        };
        if (c.is_child) {  // compute case, bob: pinned to the second core
            bench::pin_to_core(1);
            return party_main(c, apps, "compute",
                              [&](const session_options& o) { return session::connect(party::bob, "127.0.0.1", c.port, o); },
                              ceiling);
        }
        if (c.which == "link") {  // the ceiling is a compute-bound figure: not measured here
            if (c.pin >= 0) bench::pin_to_core(c.pin);
            const auto none = [](const app&, garbling_hash, garbling_scheme) { return costs{}; };
            if (c.party == "bob")
                return party_main(c, apps, "link",
                                  [&](const session_options& o) { return session::connect(party::bob, c.host, c.port, o); },
                                  none);
            net::tcp_listener listener(c.port, c.host);
            return party_main(c, apps, "link",
                              [&](const session_options& o) { return session::accept(party::alice, listener, o); },
                              none);
        }
        const bool all = c.which == "all";
        if (c.which == "ceiling" || all) {
            bench::pin_to_core(0);
            for (const auto& g : c.garblings())
                for (const app& a : apps) {
                    const garbling_scheme sc = g.first;
                    const garbling_hash h = g.second;
                    const costs k = ceiling(a, h, sc);
                    if (c.opt.json)
                        std::cout << bench::record("ipp", "ceiling_" + a.name)
                                         .add_string("hash", hash_name(h))
                                         .add_string("scheme", std::string(to_string(sc)))
                                         .add("seconds", k.garble * double(a.c.stats().and_gates))
                                         .add("seconds_min", k.garble * double(a.c.stats().and_gates))
                                         .add("reps", std::max(3, c.opt.reps))
                                         .add("and_gates", a.c.stats().and_gates)
                                         .add("garble_ns_per_and", k.garble * 1e9)
                                         .add("evaluate_ns_per_and", k.evaluate * 1e9)
                                         .add("ceiling", k.ceiling())
                                         .json()
                                  << "\n";
                    else
                        std::printf("ceiling %-9s %-9s %-12s G %6.2f ns/AND, E %6.2f ns/AND (E/G %.2f): 2G/(G+E) = %.3f\n",
                                    a.name.c_str(), hash_name(h).c_str(), std::string(to_string(sc)).c_str(),
                                    k.garble * 1e9, k.evaluate * 1e9,
                                    k.evaluate / k.garble, k.ceiling());
                }
        }
        if (c.which == "compute" || all) {
            bench::pin_to_core(0);
            net::tcp_listener listener(0, "127.0.0.1");
            std::vector<std::string> args{argv[0], "--bob-port", std::to_string(listener.port())};
            args.insert(args.end(), passthrough.begin(), passthrough.end());
            const pid_t bob = bench::spawn_self(args);
            const int status = party_main(
                c, apps, "compute", [&](const session_options& o) { return session::accept(party::alice, listener, o); },
                ceiling);
            const bool bob_ok = bench::wait_ok(bob);
            return status != 0 ? status : bob_ok ? 0 : 1;
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "bench_ipp (" << role << "): " << e.what() << "\n";
        return 1;
    }
}

// bench_two_party — end-to-end two-party runs between two processes over
// loopback TCP, each pinned to its own core when the machine has two or more
// (docs/BENCH.md). This process is Alice (garbler, listens on a free
// port); it starts a copy of itself as Bob (evaluator) and prints the figures.
//
//   bench_two_party [--case setup|mul64|aes|aes-batch|mvmul|millionaires|cot|all[,...]] [--hash rekeyed|fixed-key]
//                   [--scheme half-gates|three-halves]
//                   [--seal | --tls] [--resume] [--reps N] [--quick] [--json]
//
// Cases (paper 001 §6.2 and issue 4):
//   setup         handshake + 128 base OTs + IKNP set-up (a fresh session per repetition)
//   mul64         Σ_i Σ_j x_i·y_j over 64-bit values, Alice's x and Bob's y: 136² multiplications,
//                 about 2^26 ANDs in one run (--quick: 8²)
//   aes           Bristol AES-128, 1000 runs in one session (--quick: 10)
//   aes-batch     the same 1000 AES-128 evaluations as one session::run_bits_batch (--quick: 10)
//   mvmul         16×16 matrix (Alice) times 16-vector (Bob), 64-bit entries, one run
//   millionaires  32-bit a > b, one run (latency)
//   cot           IKNP correlated OTs per second, 2^24 per repetition (--quick: 2^16)
// --case takes a comma-separated list (e.g. aes,aes-batch to compare the two).
// --seal encrypts and authenticates every link (session_options::encrypt_links,
// a pre-shared key; docs/DESIGN.md §9.3), to measure what sealing costs;
// --tls protects them with TLS 1.3 instead (session_options::tls, the test
// certificates of tests/data/tls under their CA).
// --resume: Alice keeps a ticket_store and Bob a ticket slot
// (session/tickets.hpp); the setup case then times resumed set-ups (no
// base OTs), after one full set-up that is not counted.
// Online time of a repetition is the slower party's, both starting after a
// barrier; bytes are payload bytes each party sent.
#include "common.hpp"
#include "processes.hpp"

#include <tandem/gc/three_halves.hpp>
#include <tandem/tandem.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <thread>

namespace {

using namespace tandem;
using clock_type = std::chrono::steady_clock;

struct config {
    bench::options opt;
    std::string which = "all";
    bool is_bob = false;
    std::uint16_t port = 0;
    garbling_hash hash = garbling_hash::rekeyed;
    garbling_scheme scheme = garbling_scheme::half_gates;
    bool seal = false;
    bool tls = false;
    bool resume = false;
    std::shared_ptr<ticket_store> store = std::make_shared<ticket_store>();   // Alice's, with --resume
    std::shared_ptr<session_ticket> slot = std::make_shared<session_ticket>();  // Bob's
    session_options session() const {
        session_options o;
        o.hash = hash;
        o.scheme = scheme;
        if (resume && is_bob) o.ticket = slot;
        if (resume && !is_bob) o.ticket_store = store;
        if (tls) {
            const std::string dir = TANDEM_DATA_DIR "/tls/", me = is_bob ? "bob" : "alice";
            net::tls_credentials t;
            t.certificate = dir + me + ".pem";
            t.private_key = dir + me + ".key";
            t.ca = dir + "tandem-test-ca.pem";
            o.tls = net::tls_context(t);
        }
        if (seal) {  // a fixed key: both processes know it, nobody else is measured
            net::key_bytes k{};
            k[0] = 30;
            o.encrypt_links = net::link_credentials::pre_shared(net::pre_shared_key(k));
        }
        return o;
    }
};

using bench::barrier;
using bench::pin_to_core;
using bench::swap_figure;

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

struct measured {
    std::vector<double> seconds;  // per repetition, the slower party
    std::uint64_t and_gates = 0;
    std::uint64_t bytes_alice = 0, bytes_bob = 0;  // per repetition
};

void report(const config& c, const std::string& name, const measured& m, std::uint64_t runs_per_rep,
            const std::string& note, double garble_seconds) {
    const double med = bench::median(m.seconds), mn = bench::minimum(m.seconds);
    const std::uint64_t ands = m.and_gates * runs_per_rep;
    const double bytes_per_and = ands ? double(m.bytes_alice + m.bytes_bob) / double(ands) : 0;
    if (c.opt.json) {
        std::cout << bench::record("two_party", name)
                         .add("seconds", med)
                         .add("seconds_min", mn)
                         .add("reps", m.seconds.size())
                         .add("and_gates", ands)
                         .add("and_per_s", ands / med)
                         .add("bytes_alice", m.bytes_alice)
                         .add("bytes_bob", m.bytes_bob)
                         .add("bytes_per_and", bytes_per_and)
                         .add("runs", runs_per_rep)
                         .add("garble_only_and_per_s", m.and_gates / garble_seconds)
                         .add("threads", 1)
                         .add_string("hash", c.hash == garbling_hash::rekeyed ? "rekeyed" : "fixed-key")
                         .add_string("scheme", std::string(to_string(c.scheme)))
                         .add("peak_rss_bytes", bench::peak_rss_bytes())
                         .json()
                  << "\n";
        return;
    }
    std::printf("%-13s online %9.2f ms (min %9.2f)  %7.2f M AND/s (garbling alone %7.2f)  %6.2f bytes/AND  alice %llu "
                "B, bob %llu B  %s\n",
                name.c_str(), med * 1e3, mn * 1e3, ands / med / 1e6, m.and_gates / garble_seconds / 1e6, bytes_per_and,
                static_cast<unsigned long long>(m.bytes_alice), static_cast<unsigned long long>(m.bytes_bob),
                note.c_str());
}

/// Times `reps` repetitions of `runs` runs of c; both parties call it.
template <class Run>
measured time_runs(session& s, int reps, std::uint64_t runs, std::uint64_t and_gates, Run&& run_once) {
    measured m;
    m.and_gates = and_gates;
    run_once();  // warm-up: page faults, connection windows
    for (int r = 0; r < reps; ++r) {
        barrier(s);
        const std::uint64_t sent0 = s.channel().bytes_sent();
        const auto t0 = clock_type::now();
        for (std::uint64_t k = 0; k < runs; ++k) run_once();
        const double mine = since(t0);
        const double sent = double(s.channel().bytes_sent() - sent0);
        const double theirs = swap_figure(s, mine);
        const double their_sent = swap_figure(s, sent);
        m.seconds.push_back(std::max(mine, theirs));
        const bool alice = s.me() == party::alice;
        m.bytes_alice = static_cast<std::uint64_t>(alice ? sent : their_sent);
        m.bytes_bob = static_cast<std::uint64_t>(alice ? their_sent : sent);
    }
    return m;
}

/// Garbling alone, tables discarded (folded into a checksum), with the
/// session's hash and scheme: the bound the network run is compared with.
/// Alice's side only.
struct folding_sink {
    block sum;
    void write(const block* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) sum ^= p[i];
    }
    void write_bytes(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        std::uint64_t fold = 0;
        for (std::size_t i = 0; i < n; i += 8) {
            std::uint64_t w = 0;
            std::memcpy(&w, b + i, std::min<std::size_t>(8, n - i));
            fold ^= w;
        }
        sum ^= block(0, fold);
    }
};
volatile std::uint64_t sink_checksum = 0;  // keeps the discarded tables observable
template <class Hash>
void garble_once(const circuit<>& c, garbling_scheme scheme, prg& rng, folding_sink& sink) {
    if (scheme == garbling_scheme::half_gates) return (void)gc::garble<Hash>(c, rng, sink);
    gc::encoding e{rng.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
    rng.fill(e.zero_labels.data(), e.zero_labels.size());
    (void)gc::three_halves::garble<Hash>(c, e, rng.next(), sink);
}
double garble_only_seconds(const circuit<>& c, const config& conf) {
    prg rng(block(1, 2));
    std::vector<double> t;
    for (int r = 0; r < std::max(conf.opt.reps, 1); ++r) {
        folding_sink sink;
        const auto t0 = clock_type::now();
        if (conf.hash == garbling_hash::rekeyed) garble_once<rekeyed_hash>(c, conf.scheme, rng, sink);
        else garble_once<fixed_key_hash>(c, conf.scheme, rng, sink);
        t.push_back(since(t0));
        sink_checksum = sink_checksum ^ sink.sum.low();
    }
    return bench::median(t);
}

template <class T>
void check(session& s, const T& got, const T& expected, const char* name) {
    if (s.me() == party::alice && !(got == expected)) {
        std::cerr << "bench_two_party: " << name << " gave a wrong result\n";
        std::exit(1);
    }
}

// ---- the workloads -----------------------------------------------------------

template <std::size_t K>
void bench_mul64(const config& c, session& s) {
    using vec = std::array<secure_int<64>, K>;
    const auto circ = compile(
        [](const vec& x, const vec& y) {
            secure_int<64> sum = 0;
            for (std::size_t i = 0; i < K; ++i)
                for (std::size_t j = 0; j < K; ++j) sum = sum + x[i] * y[j];
            return sum;
        },
        input<party::alice, vec>, input<party::bob, vec>);
    std::mt19937_64 rng(26);
    std::array<std::int64_t, K> x{}, y{};
    for (auto& v : x) v = static_cast<std::int64_t>(rng());
    for (auto& v : y) v = static_cast<std::int64_t>(rng());
    const std::int64_t expected = circ.eval_plain(x, y);
    std::int64_t got = 0;
    const measured m = time_runs(s, c.opt.reps, 1, circ.stats().and_gates, [&] {
        got = s.me() == party::alice ? s.run(circ, x) : s.run(circ, y);
    });
    check(s, got, expected, "mul64");
    if (s.me() == party::alice)
        report(c, "mul64", m, 1, std::to_string(K * K) + " multiplications, " + std::to_string(circ.stats().and_depth) +
                                     " AND levels", garble_only_seconds(circ, c));
}

void bench_aes(const config& c, session& s) {
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const std::uint64_t runs = c.opt.quick ? 10 : 1000;
    std::vector<bool> key(128), text(128);
    std::mt19937_64 rng(128);
    for (std::size_t k = 0; k < 128; ++k) key[k] = rng() & 1, text[k] = rng() & 1;
    const auto expected = eval_plain_bits(aes, {key, text});
    std::vector<std::vector<bool>> got;
    const measured m = time_runs(s, c.opt.reps, runs, aes.stats().and_gates, [&] {
        got = *s.run_bits(reveal::both, aes, {s.me() == party::alice ? key : text});
    });
    check(s, got, expected, "aes");
    if (s.me() == party::alice) report(c, "aes", m, runs, std::to_string(runs) + " runs of AES-128 per repetition",
                                      garble_only_seconds(aes, c));
}

void bench_aes_batch(const config& c, session& s) {
    const circuit<> aes = bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt");
    const std::uint64_t runs = c.opt.quick ? 10 : 1000;
    std::vector<bool> key(128), text(128);
    std::mt19937_64 rng(128);  // the aes case's inputs
    for (std::size_t k = 0; k < 128; ++k) key[k] = rng() & 1, text[k] = rng() & 1;
    const auto expected = eval_plain_bits(aes, {key, text});
    const std::vector<std::vector<std::vector<bool>>> sets(runs, {s.me() == party::alice ? key : text});
    std::vector<std::vector<std::vector<bool>>> got;
    const measured m = time_runs(s, c.opt.reps, 1, aes.stats().and_gates,
                                 [&] { got = *s.run_bits_batch(reveal::both, aes, sets); });
    check(s, got.size(), static_cast<std::size_t>(runs), "aes-batch");
    for (const auto& g : got) check(s, g, expected, "aes-batch");
    if (s.me() == party::alice)
        report(c, "aes-batch", m, runs, "one batch of " + std::to_string(runs) + " AES-128 runs per repetition",
               garble_only_seconds(aes, c));
}

void bench_mvmul(const config& c, session& s) {
    using row = std::array<secure_int<64>, 16>;
    using matrix = std::array<row, 16>;
    const auto circ = compile(
        [](const matrix& a, const row& v) {
            row out;
            for (std::size_t i = 0; i < 16; ++i) {
                secure_int<64> acc = 0;
                for (std::size_t j = 0; j < 16; ++j) acc = acc + a[i][j] * v[j];
                out[i] = acc;
            }
            return out;
        },
        input<party::alice, matrix>, input<party::bob, row>);
    std::mt19937_64 rng(16);
    std::array<std::array<std::int64_t, 16>, 16> a{};
    std::array<std::int64_t, 16> v{};
    for (auto& r : a)
        for (auto& x : r) x = static_cast<std::int64_t>(rng());
    for (auto& x : v) x = static_cast<std::int64_t>(rng());
    const auto expected = circ.eval_plain(a, v);
    std::array<std::int64_t, 16> got{};
    const measured m = time_runs(s, c.opt.reps, 1, circ.stats().and_gates, [&] {
        got = s.me() == party::alice ? s.run(circ, a) : s.run(circ, v);
    });
    check(s, got, expected, "mvmul");
    if (s.me() == party::alice)
        report(c, "mvmul", m, 1, "16x16 by 16, 64-bit", garble_only_seconds(circ, c));
}

void bench_millionaires(const config& c, session& s) {
    const auto circ = compile([](secure_int<32> a, secure_int<32> b) { return a > b; },
                              input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    bool got = false;
    const measured m = time_runs(s, std::max(c.opt.reps, 10), 1, circ.stats().and_gates, [&] {
        got = s.run(circ, s.me() == party::alice ? 1'000'000 : 999'999);
    });
    check(s, got, true, "millionaires");
    if (s.me() == party::alice) report(c, "millionaires", m, 1, "32-bit", garble_only_seconds(circ, c));
}

void bench_cot(const config& c, session& s) {
    const std::size_t m = c.opt.quick ? std::size_t{1} << 16 : std::size_t{1} << 24;
    net::channel& ch = s.channel();
    std::vector<block> out(m);
    std::vector<std::uint8_t> choices(m);
    std::mt19937_64 rng(60);
    for (auto& x : choices) x = rng() & 1;
    std::vector<double> seconds;
    std::optional<ot::cot_sender> sender;
    std::optional<ot::cot_receiver> receiver;
    if (s.me() == party::alice) sender.emplace(ch, prg().next() | block(0, 1));
    else receiver.emplace(ch);
    for (int r = 0; r < c.opt.reps + 1; ++r) {  // the first is a warm-up
        barrier(s);
        const auto t0 = clock_type::now();
        if (sender) sender->extend(ch, out);
        else receiver->extend(ch, choices, out);
        ch.flush();
        const double mine = since(t0);
        const double theirs = swap_figure(s, mine);
        if (r > 0) seconds.push_back(std::max(mine, theirs));
    }
    if (s.me() != party::alice) return;
    const double med = bench::median(seconds);
    if (c.opt.json) {
        std::cout << bench::record("two_party", "cot")
                         .add("seconds", med)
                         .add("seconds_min", bench::minimum(seconds))
                         .add("reps", seconds.size())
                         .add("cots", m)
                         .add("cot_per_s", double(m) / med)
                         .add("bytes_bob", 16 * m)
                         .json()
                  << "\n";
    } else {
        std::printf("%-13s %zu COTs in %.2f ms (min %.2f): %.1f M COT/s\n", "cot", m, med * 1e3,
                    bench::minimum(seconds) * 1e3, double(m) / med / 1e6);
    }
}

// ---- the two processes -------------------------------------------------------

/// Whether --case names `name` (a comma-separated list; "all" names every case).
bool wants(const std::string& which, const std::string& name) {
    std::size_t begin = 0;
    while (begin <= which.size()) {
        const std::size_t end = std::min(which.find(',', begin), which.size());
        const std::string item = which.substr(begin, end - begin);
        if (item == name || item == "all") return true;
        begin = end + 1;
    }
    return false;
}

int party_main(const config& c, const std::function<session()>& open) {
    std::vector<double> setups;
    const int setup_reps = wants(c.which, "setup") ? std::max(c.opt.reps, 5) : 1;
    std::optional<session> s;
    if (c.resume) s.emplace(open());  // the full set-up that gives the first ticket
    for (int r = 0; r < setup_reps; ++r) {
        s.reset();
        s.emplace(open());
        if (c.resume && !s->resumed()) throw tandem::error("--resume: a set-up did not resume");
        setups.push_back(std::max(s->setup_seconds(), swap_figure(*s, s->setup_seconds())));
    }
    if (!c.is_bob && wants(c.which, "setup")) {
        if (c.opt.json) {
            std::cout << bench::record("two_party", c.resume ? "setup-resumed" : "setup")
                             .add("seconds", bench::median(setups))
                             .add("seconds_min", bench::minimum(setups))
                             .add("reps", setups.size())
                             .json()
                      << "\n";
        } else {
            std::printf("%-13s %.2f ms (min %.2f) %s, slower party\n", "setup", bench::median(setups) * 1e3,
                        bench::minimum(setups) * 1e3,
                        c.resume ? "handshake + a ticket resumed (no base OTs)" : "handshake + base OTs + IKNP set-up");
        }
    }
    if (wants(c.which, "millionaires")) bench_millionaires(c, *s);
    if (wants(c.which, "aes")) bench_aes(c, *s);
    if (wants(c.which, "aes-batch")) bench_aes_batch(c, *s);
    if (wants(c.which, "mvmul")) bench_mvmul(c, *s);
    if (wants(c.which, "mul64")) c.opt.quick ? bench_mul64<8>(c, *s) : bench_mul64<136>(c, *s);
    if (wants(c.which, "cot")) bench_cot(c, *s);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    config c;
    std::vector<char*> common{argv[0]};
    std::vector<std::string> passthrough;  // for Bob's command line
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--case" && i + 1 < argc) {
            c.which = argv[++i];
            passthrough.insert(passthrough.end(), {"--case", c.which});
        } else if (a == "--hash" && i + 1 < argc) {
            const std::string h = argv[++i];
            if (h != "rekeyed" && h != "fixed-key") {
                std::cerr << "bench_two_party: --hash must be rekeyed or fixed-key\n";
                return 2;
            }
            c.hash = h == "rekeyed" ? garbling_hash::rekeyed : garbling_hash::fixed_key;
            passthrough.insert(passthrough.end(), {"--hash", h});
        } else if (a == "--scheme" && i + 1 < argc) {
            const std::string h = argv[++i];
            if (h != "half-gates" && h != "three-halves") {
                std::cerr << "bench_two_party: --scheme must be half-gates or three-halves\n";
                return 2;
            }
            c.scheme = h == "half-gates" ? garbling_scheme::half_gates : garbling_scheme::three_halves;
            passthrough.insert(passthrough.end(), {"--scheme", h});
        } else if (a == "--seal") {
            c.seal = true;
            passthrough.push_back(a);
        } else if (a == "--resume") {
            c.resume = true;
            passthrough.push_back(a);
        } else if (a == "--tls") {
            c.tls = true;
            passthrough.push_back(a);
        } else if (a == "--bob-port" && i + 1 < argc) {
            c.is_bob = true;
            c.port = static_cast<std::uint16_t>(std::stoi(argv[++i]));
        } else {
            common.push_back(argv[i]);
            passthrough.push_back(a);
        }
    }
    static const std::array<const char*, 8> cases{"all",   "setup",        "mul64", "aes", "aes-batch",
                                                  "mvmul", "millionaires", "cot"};
    for (std::size_t begin = 0; begin <= c.which.size();) {
        const std::size_t end = std::min(c.which.find(',', begin), c.which.size());
        const std::string item = c.which.substr(begin, end - begin);
        if (std::find(cases.begin(), cases.end(), item) == cases.end()) {
            std::cerr << "bench_two_party: unknown --case " << item << "\n";
            return 2;
        }
        begin = end + 1;
    }
    c.opt = bench::parse(static_cast<int>(common.size()), common.data(),
                         "bench_two_party [--case <name>] [--hash rekeyed|fixed-key] "
                         "[--scheme half-gates|three-halves] [--seal | --tls]");
    if (c.seal && c.tls) {
        std::cerr << "bench_two_party: --seal or --tls, not both\n";
        return 2;
    }
    if (!c.opt.json && !c.is_bob) std::printf("AES kernels: %s\n", tandem::to_string(tandem::active_aes_isa()));

    try {
        if (c.is_bob) {
            pin_to_core(1);
            return party_main(c, [&] { return session::connect(party::bob, "127.0.0.1", c.port, c.session()); });
        }
        net::tcp_listener listener(0, "127.0.0.1");
        std::vector<std::string> args{argv[0], "--bob-port", std::to_string(listener.port())};
        args.insert(args.end(), passthrough.begin(), passthrough.end());
        const pid_t bob = bench::spawn_self(args);
        pin_to_core(0);
        if (!c.opt.json)
            std::printf("bench_two_party: two processes over loopback TCP, pinned to cores 0 and 1 (nproc %u), %s hash%s\n",
                        std::thread::hardware_concurrency(), std::string(to_string(c.hash)).c_str(),
                        c.seal ? ", sealed links (Noise NNpsk0)" : c.tls ? ", TLS 1.3 links" : "");
        const int status = party_main(c, [&] { return session::accept(party::alice, listener, c.session()); });
        const bool bob_ok = bench::wait_ok(bob);
        return status != 0 ? status : bob_ok ? 0 : 1;
    } catch (const tandem::error& e) {
        std::cerr << "bench_two_party (" << (c.is_bob ? "bob" : "alice") << "): " << e.what() << "\n";
        return 1;
    }
}

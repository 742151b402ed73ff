// bench_lib — the standard library (include/tandem/lib/): what each function
// costs and how fast it garbles, and a two-party sort.
//
//   bench_lib [--case functions|sort|all] [--keys LOG2] [--reps N] [--quick] [--json]
//
// functions  one line per library function: ANDs, AND depth, gates, and
//            single-core garbling speed (M AND/s, tables discarded, the
//            default re-keyed hash), each function compiled once and garbled
//            --reps times in batches of instances (a parallel_for of copies)
//            so that small circuits are timed over at least ~10^6 ANDs.
// sort       two processes over loopback TCP sort 2^LOG2 32-bit keys (default
//            2^16; --quick 2^10), half held by Alice and half by Bob, as a
//            streamed run (bounded memory); both learn the sorted keys. Runs
//            the regions form (tandem::sort: one parallel_for per layer) with
//            1 and 2 threads per party, and the same network written as one
//            sequential block with 1 thread. The time is the slower party's,
//            the whole run (recording, OT, garbling, opening). The processes
//            are not pinned: with 2 threads each, the workers need the cores.
#include "common.hpp"
#include "processes.hpp"

#include <tandem/lib/aes.hpp>
#include <tandem/lib/float.hpp>
#include <tandem/lib/set_ops.hpp>
#include <tandem/lib/sha256.hpp>
#include <tandem/lib/sha3.hpp>
#include <tandem/lib/sort.hpp>
#include <tandem/tandem.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace tandem;
using u32 = secure_uint<32>;
using clock_type = std::chrono::steady_clock;

struct config {
    bench::options opt;
    std::string which = "all";
    unsigned log2_keys = 16;
    bool reps_given = false;
    bool is_bob = false;
    std::uint16_t port = 0;
};

// ---- functions: ANDs and garbling speed ---------------------------------------

struct folding_sink {
    block sum;
    void write(const block* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) sum ^= p[i];
    }
};
volatile std::uint64_t sink_checksum = 0;

/// Seconds per garbling of c (median of reps).
std::vector<double> garble_seconds(const circuit<>& c, int reps) {
    prg rng(block(3, 4));
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        folding_sink sink;
        const auto t0 = clock_type::now();
        gc::garble<rekeyed_hash>(c, rng, sink);
        t.push_back(bench::since(t0));
        sink_checksum = sink_checksum ^ sink.sum.low();
    }
    return t;
}

/// One library function: a circuit of one call, and one of `copies` calls
/// side by side (a parallel_for), for timing.
struct function_case {
    std::string name;
    std::function<circuit<>()> single;
    std::function<circuit<>(std::size_t copies)> batch;
};

/// `copies` calls of f side by side, one parallel_for region.
template <std::size_t Copies, class F, class... In>
circuit<> batch_of(const F& f, In... in) {
    return circuit<>(compile(
        [f](const typename In::type&... args) { return parallel_for<Copies>([&](std::size_t) { return f(args...); }); },
        in...));
}

template <class F, class... In>
function_case make_case(std::string name, F f, In... in) {
    function_case fc;
    fc.name = std::move(name);
    fc.single = [f, in...] { return circuit<>(compile(f, in...)); };
    fc.batch = [f, in...](std::size_t copies) {  // the next power of 4 at or above copies, up to 4,096
        if (copies <= 1) return batch_of<1>(f, in...);
        if (copies <= 4) return batch_of<4>(f, in...);
        if (copies <= 16) return batch_of<16>(f, in...);
        if (copies <= 64) return batch_of<64>(f, in...);
        if (copies <= 256) return batch_of<256>(f, in...);
        if (copies <= 1024) return batch_of<1024>(f, in...);
        return batch_of<4096>(f, in...);
    };
    return fc;
}

void report_function(const config& c, const function_case& fc) {
    const auto c0 = clock_type::now();
    const circuit<> one = fc.single();
    const double compile_seconds = bench::since(c0);
    const auto s = one.stats();
    const std::size_t copies =
        std::max<std::size_t>(1, (c.opt.quick ? 100'000 : 2'000'000) / std::max<std::uint64_t>(1, s.and_gates));
    const circuit<> many = fc.batch(copies);
    const std::uint64_t held = many.stats().and_gates / std::max<std::uint64_t>(1, s.and_gates);
    const std::uint64_t batch_ands = many.stats().and_gates;
    const auto t = garble_seconds(many, c.opt.reps);
    const double med = bench::median(t), mn = bench::minimum(t);
    if (c.opt.json) {
        std::cout << bench::record("lib", fc.name)
                         .add("seconds", med)
                         .add("seconds_min", mn)
                         .add("reps", t.size())
                         .add("and_gates", s.and_gates)
                         .add("and_depth", s.and_depth)
                         .add("gates", s.executed_gates)
                         .add("copies", held)
                         .add("compile_seconds", compile_seconds)
                         .add("and_per_s", batch_ands / med)
                         .add("threads", 1)
                         .json()
                  << "\n";
    } else {
        std::printf("%-26s %9llu ANDs  depth %5llu  %9llu gates  compile %8.4f s  garbling %7.1f M AND/s (%zu copies)\n",
                    fc.name.c_str(), static_cast<unsigned long long>(s.and_gates),
                    static_cast<unsigned long long>(s.and_depth), static_cast<unsigned long long>(s.executed_gates),
                    compile_seconds, batch_ands / med / 1e6, static_cast<std::size_t>(held));
    }
}

/// tandem::sort of N 32-bit keys.
template <std::size_t N>
function_case sort_case() {
    using keys = std::array<u32, N>;
    return make_case(
        "sort_u32_" + std::to_string(N),
        [](const keys& k) {
            keys s = k;
            sort(s);
            return s;
        },
        input<party::alice, keys>);
}

std::vector<function_case> function_cases(bool quick) {
    std::vector<function_case> cases;
    using f32 = secure_f32;
    using f64 = secure_f64;
    const auto in32 = input<party::alice, f32>;
    const auto in32b = input<party::bob, f32>;
    const auto in64 = input<party::alice, f64>;
    const auto in64b = input<party::bob, f64>;
    cases.push_back(make_case("f32_add", [](const f32& a, const f32& b) { return a + b; }, in32, in32b));
    cases.push_back(make_case("f32_mul", [](const f32& a, const f32& b) { return a * b; }, in32, in32b));
    cases.push_back(make_case("f32_div", [](const f32& a, const f32& b) { return a / b; }, in32, in32b));
    cases.push_back(make_case("f32_sqrt", [](const f32& a) { return sqrt(a); }, in32));
    cases.push_back(make_case("f32_less", [](const f32& a, const f32& b) { return a < b; }, in32, in32b));
    cases.push_back(make_case(
        "f32_from_int32", [](const secure_int<32>& a) { return convert<f32>(a); }, input<party::alice, secure_int<32>>));
    cases.push_back(make_case("f64_add", [](const f64& a, const f64& b) { return a + b; }, in64, in64b));
    cases.push_back(make_case("f64_mul", [](const f64& a, const f64& b) { return a * b; }, in64, in64b));
    cases.push_back(make_case("f64_div", [](const f64& a, const f64& b) { return a / b; }, in64, in64b));
    cases.push_back(make_case("f64_sqrt", [](const f64& a) { return sqrt(a); }, in64));
    cases.push_back(make_case("f64_less", [](const f64& a, const f64& b) { return a < b; }, in64, in64b));
    using lib::aes_block;
    using bytes64 = std::array<secure_uint<8>, 64>;
    cases.push_back(make_case(
        "aes128", [](const lib::aes_key<16>& k, const aes_block& b) { return lib::aes_encrypt(k, b); },
        input<party::alice, lib::aes_key<16>>, input<party::bob, aes_block>));
    cases.push_back(make_case(
        "aes128_expanded_key",
        [](const std::array<secure_uint<8>, 176>& k, const aes_block& b) { return lib::aes_encrypt_expanded(k, b); },
        input<party::alice, std::array<secure_uint<8>, 176>>, input<party::bob, aes_block>));
    cases.push_back(make_case(
        "aes192", [](const lib::aes_key<24>& k, const aes_block& b) { return lib::aes_encrypt(k, b); },
        input<party::alice, lib::aes_key<24>>, input<party::bob, aes_block>));
    cases.push_back(make_case(
        "aes256", [](const lib::aes_key<32>& k, const aes_block& b) { return lib::aes_encrypt(k, b); },
        input<party::alice, lib::aes_key<32>>, input<party::bob, aes_block>));
    cases.push_back(make_case(
        "sha256_compress",
        [](const lib::sha256_state& st, const lib::sha256_block& b) { return lib::sha256_compress(st, b); },
        input<party::alice, lib::sha256_state>, input<party::bob, lib::sha256_block>));
    cases.push_back(make_case(
        "sha256_64_bytes", [](const bytes64& m) { return lib::sha256(m); }, input<party::alice, bytes64>));
    cases.push_back(make_case(
        "keccak_f1600", [](const lib::keccak_state& st) { return lib::keccak_f1600(st); },
        input<party::alice, lib::keccak_state>));
    cases.push_back(make_case(
        "sha3_256_64_bytes", [](const bytes64& m) { return lib::sha3_256(m); }, input<party::alice, bytes64>));
    cases.push_back(sort_case<1024>());
    using set = std::array<u32, 256>;
    cases.push_back(make_case(
        "psi_cardinality_256x256", [](const set& a, const set& b) { return lib::psi_cardinality(a, b); },
        input<party::alice, set>, input<party::bob, set>));
    if (!quick) cases.push_back(sort_case<4096>());
    return cases;
}

// ---- sort: two parties, streamed ----------------------------------------------

/// What a party saw of the sorted keys (opened to both as they come out).
struct sort_seen {
    bool sorted = true;
    std::uint64_t count = 0;
    std::uint64_t digest = 0;
};

/// The sorted keys are opened in chunks of 1,024: a result of 2^16 values
/// would be one array of megabytes; opening as it goes keeps memory bounded.
template <bool Regions>
auto sort_function(std::size_t half, sort_seen& seen) {
    return tandem::stream(
        [half, &seen](const sequence<u32>& a, const sequence<u32>& b) {
            std::vector<u32> all;
            all.reserve(2 * half);
            for (std::size_t i = 0; i < half; ++i) all.push_back(a[i]);
            for (std::size_t i = 0; i < half; ++i) all.push_back(b[i]);
            if constexpr (Regions) {
                sort(all);
            } else {
                for (const auto& layer : odd_even_merge_sort_network(all.size()))
                    for (const comparator& cmp : layer) compare_exchange(all[cmp.lo], all[cmp.hi]);
            }
            seen = {};
            std::uint32_t previous = 0;
            constexpr std::size_t chunk = 1024;
            for (std::size_t i = 0; i < all.size(); i += chunk) {
                std::array<u32, chunk> part;
                const std::size_t m = std::min(chunk, all.size() - i);
                for (std::size_t k = 0; k < m; ++k) part[k] = all[i + k];
                const auto plain = open(part);
                for (std::size_t k = 0; k < m; ++k) {
                    seen.sorted = seen.sorted && plain[k] >= previous;
                    previous = plain[k];
                    seen.digest += plain[k];
                    ++seen.count;
                }
            }
            return all.front();
        },
        sequence_input<party::alice, u32>(half), sequence_input<party::bob, u32>(half));
}

void bench_sort(const config& c, session& s, std::uint32_t threads, bool regions) {
    const std::size_t half = std::size_t{1} << (c.log2_keys - 1);
    std::mt19937_64 rng(s.me() == party::alice ? 1 : 2);
    std::vector<std::uint32_t> mine(half);
    for (auto& x : mine) x = static_cast<std::uint32_t>(rng());
    std::vector<std::uint32_t> all = mine;  // for Alice's check: Bob's keys from his seed
    if (s.me() == party::alice) {
        std::mt19937_64 bob_rng(2);
        for (std::size_t i = 0; i < half; ++i) all.push_back(static_cast<std::uint32_t>(bob_rng()));
        std::sort(all.begin(), all.end());
    }
    sort_seen seen;
    auto fn_regions = sort_function<true>(half, seen);
    auto fn_flat = sort_function<false>(half, seen);
    std::vector<double> t;
    std::uint64_t ands = 0, their_sent = 0;
    bool ok = true;
    const int reps = c.reps_given ? c.opt.reps : 1;
    for (int r = 0; r < reps; ++r) {
        bench::barrier(s);
        const auto t0 = clock_type::now();
        const std::uint32_t first = regions ? s.run(fn_regions, mine) : s.run(fn_flat, mine);
        const double mine_s = bench::since(t0);
        ands = s.last_run().and_gates;
        t.push_back(std::max(mine_s, bench::swap_figure(s, mine_s)));
        their_sent = static_cast<std::uint64_t>(bench::swap_figure(s, double(s.last_run().bytes_sent)));
        if (s.me() == party::alice) {
            std::uint64_t sum = 0;
            for (auto x : all) sum += x;
            ok = ok && seen.sorted && seen.count == all.size() && seen.digest == sum && first == all.front();
        }
    }
    const double rss_peer = bench::swap_figure(s, double(bench::peak_rss_bytes()));
    if (s.me() != party::alice) return;
    if (!ok) {
        std::cerr << "bench_lib: the two-party sort gave a wrong result\n";
        std::exit(1);
    }
    const std::string name = std::string(regions ? "sort_regions" : "sort_sequential") + "_2^" +
                             std::to_string(c.log2_keys) + "_t" + std::to_string(threads);
    const double med = bench::median(t), mn = bench::minimum(t);
    if (c.opt.json) {
        std::cout << bench::record("lib", name)
                         .add("seconds", med)
                         .add("seconds_min", mn)
                         .add("reps", t.size())
                         .add("and_gates", ands)
                         .add("and_per_s", ands / med)
                         .add("bytes_alice", s.last_run().bytes_sent)
                         .add("bytes_bob", their_sent)
                         .add("threads", threads)
                         .add("peak_rss_bytes", bench::peak_rss_bytes())
                         .add("peak_rss_bytes_bob", static_cast<std::uint64_t>(rss_peer))
                         .json()
                  << "\n";
    } else {
        std::printf("%-26s %8.2f s (min %8.2f)  %llu ANDs  %6.2f M AND/s  alice sent %.1f MB, bob %.1f MB  "
                    "peak RSS alice %.0f MiB, bob %.0f MiB\n",
                    name.c_str(), med, mn, static_cast<unsigned long long>(ands), ands / med / 1e6,
                    s.last_run().bytes_sent / 1e6, their_sent / 1e6, bench::peak_rss_bytes() / 1048576.0,
                    rss_peer / 1048576.0);
    }
}

int party_main(const config& c, const std::function<session(session_options)>& open) {
    const bool all = c.which == "all";
    if (!c.is_bob && (c.which == "functions" || all))
        for (const auto& fc : function_cases(c.opt.quick)) report_function(c, fc);
    if (c.which == "functions") return 0;
    for (const auto& [threads, regions] : {std::pair{1u, true}, std::pair{2u, true}, std::pair{1u, false}}) {
        session_options o;
        o.threads = threads;
        session s = open(o);
        bench_sort(c, s, threads, regions);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    config c;
    std::vector<char*> common{argv[0]};
    std::vector<std::string> passthrough;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--case" && i + 1 < argc) {
            c.which = argv[++i];
            passthrough.insert(passthrough.end(), {"--case", c.which});
        } else if (a == "--keys" && i + 1 < argc) {
            c.log2_keys = static_cast<unsigned>(std::stoul(argv[++i]));
            passthrough.insert(passthrough.end(), {"--keys", std::to_string(c.log2_keys)});
        } else if (a == "--bob-port" && i + 1 < argc) {
            c.is_bob = true;
            c.port = static_cast<std::uint16_t>(std::stoi(argv[++i]));
        } else {
            if (a == "--reps") c.reps_given = true;
            common.push_back(argv[i]);
            passthrough.push_back(a);
        }
    }
    if (c.which != "all" && c.which != "functions" && c.which != "sort") {
        std::cerr << "bench_lib: unknown --case " << c.which << " (functions, sort, all)\n";
        return 2;
    }
    c.opt = bench::parse(static_cast<int>(common.size()), common.data(),
                         "bench_lib [--case functions|sort|all] [--keys LOG2]");
    if (!c.opt.json && !c.is_bob) std::printf("AES kernels: %s\n", tandem::to_string(tandem::active_aes_isa()));
    if (c.opt.quick) c.log2_keys = std::min(c.log2_keys, 10u);
    if (c.log2_keys < 2 || c.log2_keys > 24) {
        std::cerr << "bench_lib: --keys must be in 2..24\n";
        return 2;
    }
    try {
        if (c.is_bob)
            return party_main(c, [&](session_options o) {
                return session::connect(party::bob, "127.0.0.1", c.port, o);
            });
        if (c.which == "functions") return party_main(c, nullptr);
        net::tcp_listener listener(0, "127.0.0.1");
        std::vector<std::string> args{argv[0], "--bob-port", std::to_string(listener.port())};
        args.insert(args.end(), passthrough.begin(), passthrough.end());
        const pid_t bob = bench::spawn_self(args);
        const int status =
            party_main(c, [&](session_options o) { return session::accept(party::alice, listener, o); });
        const bool bob_ok = bench::wait_ok(bob);
        return status != 0 ? status : bob_ok ? 0 : 1;
    } catch (const tandem::error& e) {
        std::cerr << "bench_lib (" << (c.is_bob ? "bob" : "alice") << "): " << e.what() << "\n";
        return 1;
    }
}

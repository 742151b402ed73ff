// bench_garble: single-core garbling and evaluation speed (half-gates, and
// three-halves with --scheme three-halves|all).
//
// Cases (one thread, tables written to memory):
//   wide     levels of 65,536 independent ANDs (each reads two outputs of the level before)
//   deep     a chain: every AND reads the previous AND's output (no batching possible)
//   aes128   Bristol AES-128, garbled again and again
//   mul64    a chain of 64-bit multiply-accumulates recorded with the DSL
// each with the default re-keyed hash (mitccr) and the opt-in fixed-key hash,
// plus this CPU's fixed-key AES rate: the speed-of-light bound (garbling needs
// 4 AES per AND, evaluation 2) and the re-keyed hash alone. Everything runs
// once per AES instruction set this CPU has (crypto/isa.hpp), widest last.
//   bench_garble [--json] [--quick] [--reps N] [--case NAME] [--isa aesni|vaes256|vaes]
//                [--scheme half-gates|three-halves|all]
// --scheme all runs both schemes on each case, one after the other, so their
// rates compare within one run; lines and JSON records name the scheme.
#include "common.hpp"

#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/three_halves.hpp>
#include <tandem/lib/aes.hpp>
#include <tandem/tandem.hpp>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cstdio>
#include <string>
#include <vector>

namespace {

using tandem::block;
namespace gc = tandem::gc;

/// The CPU's time-stamp counter: TSC on x86-64, the virtual counter
/// (CNTVCT_EL0, a fixed frequency, not cycles) on AArch64.
std::uint64_t time_stamp() noexcept {
#if defined(__x86_64__)
    return __rdtsc();
#else
    std::uint64_t t;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(t));
    return t;
#endif
}

/// Levels of `width` independent ANDs; level l reads the outputs of level l-1.
tandem::circuit<> wide_circuit(std::uint32_t width, std::uint32_t levels) {
    tandem::circuit_data d;
    d.input_bits = width;
    d.inputs.push_back({tandem::party::alice, 0, width});
    d.slot_count = 2 * width;
    d.gates.resize(std::size_t{width} * levels);
    for (std::uint32_t l = 0; l < levels; ++l) {
        const std::uint32_t src = (l % 2) * width, dst = ((l + 1) % 2) * width;
        const std::uint32_t base = l * width;
        for (std::uint32_t k = 0; k < width; ++k)
            d.gates[base + k] = {src + k, src + (k + 1) % width, dst + k, tandem::gate_kind::and_gate};
        d.levels.push_back({base, base + width, base + width});
    }
    d.steps.push_back({tandem::step_kind::sequential, 0, levels});
    const std::uint32_t last = (levels % 2) * width;
    d.outputs.push_back({tandem::party::alice, 0, 64});
    for (std::uint32_t k = 0; k < 64; ++k) d.output_slots.push_back(last + k);
    d.wire_count = std::uint64_t{width} * (levels + 1);
    return tandem::circuit<>(std::move(d));
}

/// A chain of n ANDs: AND i reads AND i-1 and an input bit.
tandem::circuit<> deep_circuit(std::uint32_t n) {
    tandem::circuit_data d;
    d.input_bits = 64;
    d.inputs.push_back({tandem::party::alice, 0, 64});
    d.slot_count = 66;
    d.gates.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t prev = i == 0 ? 0 : 64 + (i - 1) % 2;
        d.gates[i] = {prev, 1 + i % 63, 64 + i % 2, tandem::gate_kind::and_gate};
        d.levels.push_back({i, i + 1, i + 1});
    }
    d.steps.push_back({tandem::step_kind::sequential, 0, n});
    d.outputs.push_back({tandem::party::alice, 0, 1});
    d.output_slots.push_back(64 + (n - 1) % 2);
    d.wire_count = 64 + std::uint64_t{n};
    return tandem::circuit<>(std::move(d));
}

tandem::circuit<> mul64_circuit(int products) {
    using u64 = tandem::secure_uint<64>;
    return tandem::compile(
        [products](std::array<u64, 16> xs, u64 y) {
            u64 acc = y;
            for (int i = 0; i < products; ++i) acc = acc * xs[i % 16] + xs[(i * 7 + 3) % 16];
            return acc;
        },
        tandem::input<tandem::party::alice, std::array<u64, 16>>, tandem::input<tandem::party::bob, u64>);
}

/// n AES-128 encryptions (key schedule in the circuit) as one parallel_for:
/// n instances of one narrow body (levels of ~100 ANDs), run in lockstep.
template <std::size_t N>
tandem::circuit<> aes_region_circuit() {
    using keys = std::array<tandem::lib::aes_key<16>, N>;
    using blocks = std::array<tandem::lib::aes_block, N>;
    return tandem::compile(
        [](const keys& k, const blocks& b) {
            return tandem::parallel_for<N>([&](std::size_t i) { return tandem::lib::aes_encrypt(k[i], b[i]); });
        },
        tandem::input<tandem::party::alice, keys>, tandem::input<tandem::party::bob, blocks>);
}

/// n independent 64-bit products as one parallel_for.
template <std::size_t N>
tandem::circuit<> mul64_region_circuit() {
    using u64 = tandem::secure_uint<64>;
    return tandem::compile(
        [](const std::array<u64, N>& x, const std::array<u64, N>& y) {
            return tandem::parallel_for<N>([&](std::size_t i) { return x[i] * y[i]; });
        },
        tandem::input<tandem::party::alice, std::array<u64, N>>, tandem::input<tandem::party::bob, std::array<u64, N>>);
}

struct timing {
    std::vector<double> seconds;
    std::vector<double> tsc;
};

struct result {
    timing garble, evaluate;
    std::uint64_t and_gates = 0;
};

enum class scheme { half_gates, three_halves };

/// Garbles c `passes` times (tables to memory) and evaluates each garbling.
template <class Hash, scheme S>
result run(const tandem::circuit<>& c, int passes, int reps) {
    result r;
    gc::table_buffer tables;
    gc::byte_buffer bytes;
    if constexpr (S == scheme::half_gates) tables.reserve(2 * c.stats().and_gates);
    else bytes.reserve(c.stats().and_gates * 25 + 1024);  // ≥ table_bytes: at most 25 bytes per AND
    tandem::prg rng(block(0x5eed, 1));
    const std::vector<block> inputs(c.data().input_bits);  // any labels do for timing
    gc::encoding encoding{rng.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
    for (int rep = 0; rep < reps; ++rep) {
        double gs = 0, es = 0, gt = 0, et = 0;
        std::uint64_t ands = 0;
        for (int p = 0; p < passes; ++p) {
            tables.clear();
            bytes.clear();
            const block hash_start = rng.next();
            auto t0 = std::chrono::steady_clock::now();
            auto c0 = time_stamp();
            const gc::garbled_outputs g =
                S == scheme::half_gates
                    ? gc::garble<Hash>(c, encoding, hash_start, tables, ands)
                    : gc::three_halves::garble<Hash>(c, encoding, hash_start, bytes, ands);
            auto c1 = time_stamp();
            auto t1 = std::chrono::steady_clock::now();
            gc::table_reader reader(tables.tables());
            gc::byte_reader byte_reader(bytes.bytes());
            const auto out = S == scheme::half_gates
                                 ? gc::evaluate<Hash>(c, hash_start, reader, inputs, ands)
                                 : gc::three_halves::evaluate<Hash>(c, hash_start, byte_reader, inputs, ands);
            auto c2 = time_stamp();
            auto t2 = std::chrono::steady_clock::now();
            if (out.size() != c.data().output_slots.size()) std::abort();
            gs += std::chrono::duration<double>(t1 - t0).count();
            es += std::chrono::duration<double>(t2 - t1).count();
            gt += static_cast<double>(c1 - c0);
            et += static_cast<double>(c2 - c1);
            ands += g.and_gates;
        }
        r.garble.seconds.push_back(gs);
        r.evaluate.seconds.push_back(es);
        r.garble.tsc.push_back(gt);
        r.evaluate.tsc.push_back(et);
        r.and_gates = ands;
    }
    return r;
}

void report(const bench::options& opt, const std::string& cas, const std::string& hash, const char* phase,
            const timing& t, std::uint64_t ands, double bound, scheme s = scheme::half_gates) {
    const char* scheme_name = s == scheme::half_gates ? "half_gates" : "three_halves";
    const char* isa = tandem::to_string(tandem::active_aes_isa());
    const double med = bench::median(t.seconds), best = bench::minimum(t.seconds);
    const double tsc = bench::median(t.tsc) / static_cast<double>(ands);
    if (opt.json) {
        bench::record r("garble", cas);
        r.add_string("hash", hash).add_string("scheme", scheme_name).add_string("phase", phase)
            .add("seconds", med).add("seconds_min", best)
            .add("reps", opt.reps).add("and_gates", ands).add("and_per_s", ands / med)
            .add("ns_per_and", med / ands * 1e9).add("tsc_per_and", tsc).add("bound_and_per_s", bound)
            .add("threads", 1).add("peak_rss_bytes", bench::peak_rss_bytes());
        std::cout << r.json() << "\n";
    } else {
        std::printf("%-7s %-12s %-8s %-9s %-8s %12llu AND  %7.1f M AND/s  %6.2f ns/AND  %6.1f TSC/AND   (bound %6.1f M AND/s)\n",
                    isa, scheme_name, cas.c_str(), hash.c_str(), phase, static_cast<unsigned long long>(ands),
                    ands / med / 1e6, med / ands * 1e9, tsc, bound / 1e6);
    }
}

/// The fixed-key AES rate (blocks/s) and the re-keyed hash alone (AND/s) with the active kernels.
void bounds(const bench::options& opt, double& aes_rate) {
    std::vector<block> buf(4096);
    const tandem::aes_key key(block(1, 2));
    const std::size_t blocks = opt.quick ? (std::size_t{1} << 22) : (std::size_t{1} << 28);
    std::vector<double> aes_t;
    for (int rep = 0; rep < opt.reps; ++rep)
        aes_t.push_back(bench::time_reps(1, [&] {
                            for (std::size_t done = 0; done < blocks; done += buf.size()) key.encrypt(buf.data(), buf.size());
                        }).front());
    aes_rate = blocks / bench::median(aes_t);
    // The re-keyed hash alone: garbler batches (16 tweaks, 32 blocks) on 128
    // buffers in turn, so consecutive batches are independent, as a wide
    // level's are (one buffer would chain each batch to the one before).
    const tandem::rekeyed_hash h(block(3, 4));
    std::vector<double> hash_t;
    const std::size_t batches = blocks / 32;
    for (int rep = 0; rep < opt.reps; ++rep)
        hash_t.push_back(bench::time_reps(1, [&] {
                             for (std::size_t b = 0; b < batches; ++b) h.hash<16, 2>(32 * b, buf.data() + 32 * (b % 128));
                         }).front());
    const double hash_and_rate = batches * 8 / bench::median(hash_t);  // 8 ANDs per batch
    const char* isa = tandem::to_string(tandem::active_aes_isa());
    if (opt.json) {
        bench::record r("garble", "aes_fixed_key");
        r.add("seconds", bench::median(aes_t)).add("seconds_min", bench::minimum(aes_t)).add("reps", opt.reps)
            .add("blocks_per_s", aes_rate).add("garble_bound_and_per_s", aes_rate / 4)
            .add("evaluate_bound_and_per_s", aes_rate / 2);
        std::cout << r.json() << "\n";
        bench::record q("garble", "mitccr_hash_alone");
        q.add("seconds", bench::median(hash_t)).add("seconds_min", bench::minimum(hash_t)).add("reps", opt.reps)
            .add("and_per_s", hash_and_rate).add("share_of_bound", hash_and_rate / (aes_rate / 4));
        std::cout << q.json() << "\n";
    } else {
        std::printf("fixed-key AES (%s): %.0f M blocks/s -> bound %.1f M AND/s garbling, %.1f M AND/s evaluating\n", isa,
                    aes_rate / 1e6, aes_rate / 4e6, aes_rate / 2e6);
        std::printf("re-keyed hash alone (%s, garbler batches of 8 ANDs): %.1f M AND/s, %.0f %% of the bound\n", isa,
                    hash_and_rate / 1e6, 100 * hash_and_rate / (aes_rate / 4));
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string only, only_isa, schemes = "half-gates";
    std::vector<char*> args{argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--case" && i + 1 < argc) only = argv[++i];
        else if (std::string(argv[i]) == "--isa" && i + 1 < argc) only_isa = argv[++i];
        else if (std::string(argv[i]) == "--scheme" && i + 1 < argc) schemes = argv[++i];
        else args.push_back(argv[i]);
    }
    const bench::options opt = bench::parse(static_cast<int>(args.size()), args.data(), "bench_garble");
    if (schemes != "half-gates" && schemes != "three-halves" && schemes != "all") {
        std::fprintf(stderr, "bench_garble: --scheme %s: expected half-gates, three-halves or all\n", schemes.c_str());
        return 2;
    }
    const bool half = schemes != "three-halves", three = schemes != "half-gates";
    const bool quick = opt.quick;
    tandem::detail::require_aes_instructions();

    struct workload {
        std::string name;
        tandem::circuit<> c;
        int passes;
    };
    std::vector<workload> cases;
    auto want = [&](const char* n) { return only.empty() || only == n; };
    // Full runs: about 10^8 ANDs per wide/deep measurement.
    if (want("wide")) cases.push_back({"wide", wide_circuit(65536, quick ? 16 : 64), quick ? 1 : 24});
    if (want("deep")) cases.push_back({"deep", deep_circuit(quick ? (1u << 20) : (1u << 24)), quick ? 1 : 6});
    if (want("aes128"))
        cases.push_back({"aes128", tandem::bristol::read_file(TANDEM_DATA_DIR "/aes_128.txt"), quick ? 100 : 10000});
    if (want("mul64")) cases.push_back({"mul64", mul64_circuit(quick ? 10 : 100), quick ? 1 : 30});
    // The same work as regions of many narrow instances (issue 15: lockstep).
    if (want("aes128-region")) cases.push_back({"aes128-region", aes_region_circuit<1000>(), quick ? 1 : 10});
    if (want("mul64-region")) cases.push_back({"mul64-region", mul64_region_circuit<1000>(), quick ? 1 : 3});

    bool ran = false;
    for (const tandem::aes_isa isa : tandem::all_aes_isas) {
        if (!tandem::cpu_supports(isa) || (!only_isa.empty() && only_isa != tandem::to_string(isa))) continue;
        tandem::use_aes_isa(isa);
        ran = true;
        double aes_rate = 0;
        bounds(opt, aes_rate);
        // Bounds: fixed-key AES calls per AND, 4 and 2 for half-gates, 6 and 3 for three-halves.
        auto measure = [&]<scheme S>(const workload& w, std::integral_constant<scheme, S>) {
            const double per = S == scheme::half_gates ? 1.0 : 1.5;
            const result r = run<tandem::rekeyed_hash, S>(w.c, w.passes, opt.reps);
            report(opt, w.name, "mitccr", "garble", r.garble, r.and_gates, aes_rate / 4 / per, S);
            report(opt, w.name, "mitccr", "evaluate", r.evaluate, r.and_gates, aes_rate / 2 / per, S);
            const result f = run<tandem::fixed_key_hash, S>(w.c, w.passes, opt.reps);
            report(opt, w.name, "fixed_key", "garble", f.garble, f.and_gates, aes_rate / 4 / per, S);
            report(opt, w.name, "fixed_key", "evaluate", f.evaluate, f.and_gates, aes_rate / 2 / per, S);
        };
        for (const workload& w : cases) {
            if (half) measure(w, std::integral_constant<scheme, scheme::half_gates>{});
            if (three) measure(w, std::integral_constant<scheme, scheme::three_halves>{});
        }
    }
    if (!ran) {
        std::fprintf(stderr, "bench_garble: --isa %s: not an instruction set this CPU runs (aesni, vaes256, vaes; armv8)\n",
                     only_isa.c_str());
        return 2;
    }
    return 0;
}

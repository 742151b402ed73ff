// bench_record: how fast tandem::compile records and lays out a circuit, and
// how many bytes the circuit stores per gate.
//
// Workload: a chain of 64-bit multiply-accumulates over a secret array — about
// 12.6M gates (1,000 products) in the full run, 10× fewer with --quick.
//   bench_record [--json] [--quick] [--reps N]
//   bench_record --compile-peak [--json]   the mul64 workload of bench_scale
//     (68 M ANDs) compiled once: peak RSS against the stored circuit
//   bench_record --stream-minimum N [--json] [--reps R]   the streamed minimum
//     of N 20-bit values (half from each party) recorded, laid out and
//     digested segment by segment as both parties of a streamed run do,
//     nothing garbled: the recorder's cost per gate. Under callgrind
//     (`valgrind --tool=callgrind bench_record --stream-minimum 20000 --reps 1`)
//     the total instructions over the gates it prints are issue 28's
//     machine-independent measure.
//   bench_record --stream-mul64 136|16 [--json] [--reps R]   bench_scale's one-shot job,
//     Σ x_i·y_j over K 64-bit values per party, streamed and recorded the same way.
//   ... --garble   the streamed runs above, each segment also garbled as the
//     garbler does (labels in memory, tables counted, not sent): the
//     levelled stream's whole computation on the garbler's side.
//   ... --eager    the same runs garbled as they are made (gc/eager.hpp,
//     an eager builder): nothing recorded or laid out; compare with --garble.
//   ... --eager-pipelined   eager, the gates garbled on a second thread
//     (session/pipelined.hpp, pipelined_sink) while the function runs on this one.
//   ... --segment-ands N   the streamed runs' segment_ands (default 2^14).
#include "../examples/stream_apps.hpp"
#include "common.hpp"

#include <tandem/tandem.hpp>
#include <tandem/gc/eager.hpp>
#include <tandem/session/pipelined.hpp>  // detail::pipelined_sink
#include <tandem/session/stream.hpp>     // detail::chain_segment_digest

#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using u64 = tandem::secure_uint<64>;
constexpr std::size_t width = 16;

tandem::circuit<> record_chain(int products) {
    return tandem::compile(
        [products](std::array<u64, width> xs, u64 y) {
            u64 acc = y;
            for (int i = 0; i < products; ++i) acc = acc * xs[i % width] + xs[(i * 7 + 3) % width];
            return acc;
        },
        tandem::input<tandem::party::alice, std::array<u64, width>>, tandem::input<tandem::party::bob, u64>);
}

/// Bytes a laid-out circuit's own arrays hold (gates, levels, steps, layouts, region maps).
double stored_bytes(const tandem::circuit_data& d) {
    double bytes = d.gates.size() * sizeof(tandem::gate) + d.levels.size() * sizeof(tandem::level_range) +
                   d.steps.size() * sizeof(tandem::step) + d.output_slots.size() * sizeof(std::uint32_t) +
                   (d.inputs.size() + d.outputs.size()) * sizeof(tandem::value_layout);
    for (const tandem::region_data& r : d.regions) {
        bytes += r.wire_map.size() * sizeof(std::uint32_t) + r.instances.size() * sizeof(tandem::region_instance);
        for (const tandem::circuit_data& b : r.bodies) bytes += stored_bytes(b);
    }
    return bytes;
}

/// Bytes the circuit's own arrays hold, per stored gate.
double bytes_per_gate(const tandem::circuit<>& c) {
    return stored_bytes(c.data()) / static_cast<double>(c.data().gates.size());
}

/// Seconds spent running the function (recording) and laying the whole
/// recording out, timed separately through a builder that records everything
/// first (as Bristol import does; tandem::compile lays out segment by segment
/// as it records, so its time is not the sum of the two).
std::pair<double, double> record_then_layout(int products) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    tandem::detail::builder bld;
    tandem::detail::active_builder_scope scope(bld);
    std::array<u64, width> xs;
    for (auto& x : xs) {
        const auto first = bld.add_input_value(tandem::party::alice, 64);
        u64::bits_type bits;
        for (std::uint32_t k = 0; k < 64; ++k) bits[k] = tandem::detail::builder::input_bit(first, k);
        x = u64(bits, bld.serial());
    }
    u64 acc = xs[0];
    for (int i = 0; i < products; ++i) acc = acc * xs[i % width] + xs[(i * 7 + 3) % width];
    bld.add_output_value(acc.bits().data(), 64);
    const auto t1 = clock::now();
    const tandem::circuit<> c(tandem::detail::lay_out(std::move(bld).take()), tandem::detail::trusted_layout);
    const auto t2 = clock::now();
    return {std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count()};
}

/// The mul64 workload of bench_scale (Σ x_i·y_j over 136 64-bit values per
/// party, 68 M ANDs) compiled once in this fresh process: the compile's peak
/// RSS against the circuit it stores (issue 12: at most 1.25×).
int compile_peak(bool json) {
    constexpr std::size_t k = 136;
    using s64 = tandem::secure_int<64>;
    using vec = std::array<s64, k>;
    const auto t0 = std::chrono::steady_clock::now();
    const auto c = tandem::compile(
        [](const vec& x, const vec& y) {
            s64 sum = 0;
            for (std::size_t i = 0; i < k; ++i)
                for (std::size_t j = 0; j < k; ++j) sum = sum + x[i] * y[j];
            return sum;
        },
        tandem::input<tandem::party::alice, vec>, tandem::input<tandem::party::bob, vec>);
    const double seconds = bench::since(t0);
    const double stored = stored_bytes(c.data());
    const double peak = static_cast<double>(bench::peak_rss_bytes());
    if (json) {
        std::cout << bench::record("record", "compile_peak_mul64")
                         .add("seconds", seconds)
                         .add("and_gates", c.stats().and_gates)
                         .add("stored_gates", c.stats().stored_gates)
                         .add("stored_bytes", stored)
                         .add("peak_rss_bytes", peak)
                         .add("peak_over_stored", peak / stored)
                         .json()
                  << "\n";
    } else {
        std::printf("compile mul64 (136^2 products): %llu ANDs, %llu gates, %.3f s\n",
                    static_cast<unsigned long long>(c.stats().and_gates),
                    static_cast<unsigned long long>(c.stats().stored_gates), seconds);
        std::printf("  stored %.1f MiB, peak RSS %.1f MiB: %.3f x stored\n", stored / 1048576, peak / 1048576,
                    peak / stored);
    }
    return 0;
}

/// A segment runner that only digests each segment, as session/stream.hpp's
/// runners do before they garble or evaluate it; opened bits come back as 0.
struct digest_runner final : tandem::detail::segment_runner {
    tandem::circuit_fingerprint digest;
    std::uint64_t gates = 0;
    std::uint64_t ands = 0;
    std::uint64_t segments = 0;
    std::optional<std::vector<bool>> run(tandem::detail::stream_segment&& s) override {
        digest = tandem::detail::chain_segment_digest(digest, s);
        gates += s.data.gates.size();
        ands += s.and_gates;
        ++segments;
        if (!s.open) return std::nullopt;
        return std::vector<bool>(s.data.output_slots.size() - s.carried, false);
    }
};

/// Counts the tables a garbler writes (sends nothing).
struct counting_sink {
    std::uint64_t blocks = 0;
    void write(const tandem::block*, std::size_t n) noexcept { blocks += n; }
};
using bench_garbler = tandem::gc::garbler_core<tandem::rekeyed_hash, counting_sink>;

/// digest_runner, then each segment garbled as stream_runner's garbler does
/// (carried labels moved, inputs' zero labels drawn, every step run).
struct garbling_runner final : tandem::detail::segment_runner {
    digest_runner digests;
    tandem::prg rng{tandem::block(2026, 1205)};
    tandem::block delta = rng.next() | tandem::block(0, 1);
    counting_sink sink;
    bench_garbler core{rng.next(), delta, sink};
    tandem::gc::detail::label_array labels, spare;
    std::vector<std::uint32_t> carried_from;
    std::uint64_t next_and = 0;
    std::optional<std::vector<bool>> run(tandem::detail::stream_segment&& s) override {
        if (spare.size() < s.data.slot_count) spare.resize(s.data.slot_count);
        for (std::size_t c = 0; c < carried_from.size(); ++c) spare[c + 1] = labels[carried_from[c]];
        labels.swap(spare);
        for (const tandem::detail::stream_input_bit& in : s.inputs) labels[in.slot] = rng.next();
        next_and = tandem::gc::detail::run_all_steps(core, s.data, labels, next_and);
        carried_from.assign(s.data.output_slots.begin(), s.data.output_slots.begin() + s.carried);
        return digests.run(std::move(s));
    }
};

/// The garbler's side of an eager run: each gate garbled as it is made.
struct eager_garbler final : tandem::detail::gate_sink {
    tandem::prg rng{tandem::block(2026, 1205)};
    tandem::block delta = rng.next() | tandem::block(0, 1);
    counting_sink sink;
    bench_garbler core{rng.next(), delta, sink};
    tandem::gc::eager_labels<bench_garbler> labels{core, delta};
    std::uint64_t made_gates = 0, segments = 0;
    void gates(std::span<const tandem::gate> made) override {
        labels.run(made);
        made_gates += made.size();
    }
    void inputs(std::uint32_t first, tandem::party, std::uint32_t bits, const std::uint8_t*) override {
        for (std::uint32_t k = 0; k < bits; ++k) labels.set(first + k, rng.next());
    }
    std::optional<std::vector<bool>> end_segment(std::span<const std::uint32_t> carried,
                                                 std::span<const std::uint32_t> opened,
                                                 std::optional<tandem::reveal> who,
                                                 const tandem::detail::gate_sum&) override {
        ++segments;
        std::optional<std::vector<bool>> bits;
        if (who) {  // the garbler's decoding bits stand for the opened values
            bits.emplace();
            for (const std::uint32_t w : opened)
                bits->push_back(w == tandem::output_false || w == tandem::output_true ? w == tandem::output_true
                                                                                       : labels.get(w).lsb());
        }
        labels.carry(carried);
        return bits;
    }
};

/// Records, lays out and digests a streamed function `reps` times with the
/// two parties' feeds, as both parties of a streamed run do (see the top);
/// prints the median time per gate under `name` and `what`.
enum class stream_mode { record, garble, eager, eager_pipelined };

/// What one streamed run did: gates, ANDs and segments run.
struct stream_counts {
    std::uint64_t gates = 0, ands = 0, segments = 0;
    std::uint64_t windows = 0;  ///< an eager run's windows (gc/eager.hpp)
};

template <class Fn, class FeedA, class FeedB>
stream_counts run_stream_once(Fn& fn, const FeedA& a, const FeedB& b, stream_mode mode) {
    tandem::detail::stream_inputs feeds;
    feeds.feeds.push_back(tandem::detail::make_feed(std::get<0>(fn.inputs()), a));
    feeds.feeds.push_back(tandem::detail::make_feed(std::get<1>(fn.inputs()), b));
    if (mode == stream_mode::eager || mode == stream_mode::eager_pipelined) {
        eager_garbler sink;
        if (mode == stream_mode::eager_pipelined) {  // the function on this thread, the gates on another
            tandem::detail::pipelined_sink p(sink, nullptr);
            (void)fn.run(static_cast<tandem::detail::gate_sink&>(p), feeds, tandem::reveal::both);
            p.finish();
        } else {
            (void)fn.run(static_cast<tandem::detail::gate_sink&>(sink), feeds, tandem::reveal::both);
        }
        return {sink.made_gates, sink.labels.next_and(), sink.segments, sink.labels.windows()};
    }
    if (mode == stream_mode::garble) {
        garbling_runner runner;
        (void)fn.run(runner, feeds, tandem::reveal::both);
        return {runner.digests.gates, runner.digests.ands, runner.digests.segments};
    }
    digest_runner runner;
    (void)fn.run(runner, feeds, tandem::reveal::both);
    return {runner.gates, runner.ands, runner.segments};
}

/// --segment-ands N: the streamed runs' segment_ands (0: the default).
std::uint64_t segment_ands_flag = 0;

template <class Fn, class FeedA, class FeedB>
int time_stream(Fn& fn, const FeedA& a, const FeedB& b, const std::string& name, const std::string& what,
                const bench::options& opt, stream_mode mode) {
    if (segment_ands_flag != 0) fn.segment_ands = segment_ands_flag;
    std::vector<double> times;
    stream_counts last;
    for (int r = 0; r < opt.reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        last = run_stream_once(fn, a, b, mode);
        times.push_back(bench::since(t0));
    }
    const double med = bench::median(times), best = bench::minimum(times);
    static constexpr const char* mode_names[] = {"record + lay out + digest", "... + garble", "garbled as made (eager)",
                                                 "eager, gates on a 2nd thread"};
    const char* how = mode_names[static_cast<int>(mode)];
    bench::record r("record", name + (mode == stream_mode::garble ? "_garbled" : mode == stream_mode::eager ? "_eager" : mode == stream_mode::eager_pipelined ? "_eager_pipelined" : ""));
    r.add("seconds", med).add("seconds_min", best).add("reps", opt.reps).add("gates", last.gates).add("ands", last.ands)
        .add("segments", last.segments).add("ns_per_gate", med * 1e9 / static_cast<double>(last.gates))
        .add("windows", last.windows)
        .add("peak_rss_bytes", bench::peak_rss_bytes());
    if (opt.json) {
        std::cout << r.json() << "\n";
    } else {
        std::printf("record  %s: %llu gates (%llu ANDs) in %llu segments\n", what.c_str(),
                    static_cast<unsigned long long>(last.gates), static_cast<unsigned long long>(last.ands),
                    static_cast<unsigned long long>(last.segments));
        std::printf("  %-26s %7.3f s median  %7.3f s min  %6.1f ns per gate\n", how, med, best,
                    med * 1e9 / static_cast<double>(last.gates));
        if (last.windows != 0)
            std::printf("  %llu windows, %.0f ANDs per window\n", static_cast<unsigned long long>(last.windows),
                        static_cast<double>(last.ands) / static_cast<double>(last.windows));
    }
    return 0;
}

/// The streamed minimum of n values recorded, laid out and digested (see the top).
int stream_minimum(std::uint64_t n, const bench::options& opt, stream_mode mode) {
    auto fn = apps::minimum_stream<20>(n / 2, n - n / 2);
    const auto value = [](std::uint64_t i) { return static_cast<std::uint32_t>((i * 2654435761u) & 0xFFFFF); };
    return time_stream(fn, value, value, "stream_minimum_" + std::to_string(n),
                       "streamed minimum of " + std::to_string(n), opt, mode);
}

/// bench_scale's one-shot job streamed: the sum of the K^2 products of K
/// 64-bit values per party (K = 136: 18,496 products, 67 M ANDs), recorded,
/// laid out and digested — what each party's recorder does in that run.
template <std::size_t K>
int stream_mul64(const bench::options& opt, stream_mode mode) {
    using vec = std::array<tandem::secure_int<64>, K>;
    auto fn = tandem::stream(
        [](const vec& x, const vec& y) {
            tandem::secure_int<64> sum = 0;
            for (std::size_t i = 0; i < K; ++i)
                for (std::size_t j = 0; j < K; ++j) sum = sum + x[i] * y[j];
            return sum;
        },
        tandem::input<tandem::party::alice, vec>, tandem::input<tandem::party::bob, vec>);
    std::array<std::int64_t, K> x{}, y{};
    for (std::size_t i = 0; i < K; ++i) x[i] = static_cast<std::int64_t>(i * 0x9E3779B97F4A7C15ull), y[i] = -x[i] - 1;
    return time_stream(fn, x, y, "stream_mul64_" + std::to_string(K),
                       "streamed sum of " + std::to_string(K * K) + " 64-bit products", opt, mode);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> rest;
    bool peak = false;
    std::uint64_t stream_n = 0, mul64_k = 0;
    stream_mode mode = stream_mode::record;
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::string(argv[i]) == "--compile-peak") peak = true;
        else if (i > 0 && std::string(argv[i]) == "--stream-minimum" && i + 1 < argc) stream_n = std::stoull(argv[++i]);
        else if (i > 0 && std::string(argv[i]) == "--stream-mul64" && i + 1 < argc) mul64_k = std::stoull(argv[++i]);
        else if (i > 0 && std::string(argv[i]) == "--segment-ands" && i + 1 < argc) segment_ands_flag = std::stoull(argv[++i]);
        else if (i > 0 && std::string(argv[i]) == "--garble") mode = stream_mode::garble;
        else if (i > 0 && std::string(argv[i]) == "--eager") mode = stream_mode::eager;
        else if (i > 0 && std::string(argv[i]) == "--eager-pipelined") mode = stream_mode::eager_pipelined;
        else rest.push_back(argv[i]);
    }
    const bench::options opt = bench::parse(static_cast<int>(rest.size()), rest.data(),
                                            "bench_record [--compile-peak | --stream-minimum N | --stream-mul64 136|16 [--garble | --eager | --eager-pipelined] [--segment-ands N]]");
    if (peak) return compile_peak(opt.json);
    if (stream_n != 0) return stream_minimum(stream_n, opt, mode);
    if (mul64_k == 136) return stream_mul64<136>(opt, mode);
    if (mul64_k == 16) return stream_mul64<16>(opt, mode);
    if (mul64_k != 0) {
        std::cerr << "bench_record: --stream-mul64 takes 136 (bench_scale's job) or 16 (for callgrind)\n";
        return 2;
    }
    const int products = opt.quick ? 100 : 1000;

    // The first compile of a process is reported on its own: it pays for
    // fresh memory (page faults, zeroing; on a VM, first touch of guest
    // memory), which later compiles reuse (detail/big_vector.hpp).
    tandem::circuit<> c;
    const double first = bench::time_reps(1, [&] { c = record_chain(products); }).front();
    const auto times = bench::time_reps(opt.reps, [&] { c = record_chain(products); });
    std::vector<double> rec_t, lay_t;
    for (int r = 0; r < opt.reps; ++r) {
        const auto [a, b] = record_then_layout(products);
        rec_t.push_back(a);
        lay_t.push_back(b);
    }
    const auto& s = c.stats();
    const std::uint64_t gates = s.and_gates + s.xor_gates + s.not_gates;
    const double med = bench::median(times), best = bench::minimum(times);
    const std::string name = "mul64_chain_" + std::to_string(products);

    bench::record r("record", name);
    r.add("seconds", med).add("seconds_min", best).add("reps", opt.reps).add("gates", gates)
        .add("and_gates", s.and_gates).add("gates_per_s", gates / med).add("gates_per_s_best", gates / best)
        .add("first_compile_seconds", first).add("first_compile_gates_per_s", gates / first)
        .add("record_seconds", bench::median(rec_t)).add("layout_seconds", bench::median(lay_t))
        .add("record_gates_per_s", gates / bench::median(rec_t)).add("bytes_per_gate", bytes_per_gate(c))
        .add("and_depth", s.and_depth).add("peak_working_set", s.peak_working_set)
        .add("peak_rss_bytes", bench::peak_rss_bytes());
    if (opt.json) {
        std::cout << r.json() << "\n";
    } else {
        std::printf("record  %s: %llu gates, %u AND depth\n", name.c_str(), static_cast<unsigned long long>(gates),
                    s.and_depth);
        std::printf("  compile (record + layout)  %7.3f s median  %7.3f s min  %6.1f M gates/s\n", med, best,
                    gates / med / 1e6);
        std::printf("  first compile of the process %5.3f s                       %6.1f M gates/s\n", first,
                    gates / first / 1e6);
        std::printf("  recording alone            %7.3f s median                 %6.1f M gates/s\n",
                    bench::median(rec_t), gates / bench::median(rec_t) / 1e6);
        std::printf("  layout alone               %7.3f s median\n", bench::median(lay_t));
        std::printf("  storage                    %7.2f bytes per stored gate\n", bytes_per_gate(c));
    }
    return 0;
}

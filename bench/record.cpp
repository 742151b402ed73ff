// bench_record: how fast tandem::compile records and lays out a circuit, and
// how many bytes the circuit stores per gate.
//
// Workload: a chain of 64-bit multiply-accumulates over a secret array — about
// 12.6M gates (1,000 products) in the full run, 10× fewer with --quick.
//   bench_record [--json] [--quick] [--reps N]
#include "common.hpp"

#include <tandem/tandem.hpp>

#include <array>
#include <cstdio>

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

/// Bytes the circuit's own arrays hold, per stored gate.
double bytes_per_gate(const tandem::circuit<>& c) {
    const tandem::circuit_data& d = c.data();
    const double bytes = d.gates.size() * sizeof(tandem::gate) + d.levels.size() * sizeof(tandem::level_range) +
                         d.steps.size() * sizeof(tandem::step) + d.output_slots.size() * sizeof(std::uint32_t) +
                         (d.inputs.size() + d.outputs.size()) * sizeof(tandem::value_layout);
    return bytes / static_cast<double>(d.gates.size());
}

}  // namespace

int main(int argc, char** argv) {
    const bench::options opt = bench::parse(argc, argv, "bench_record");
    const int products = opt.quick ? 100 : 1000;

    tandem::circuit<> c;
    const auto times = bench::time_reps(opt.reps, [&] { c = record_chain(products); });
    const auto& s = c.stats();
    const std::uint64_t gates = s.and_gates + s.xor_gates + s.not_gates;
    const double med = bench::median(times), best = bench::minimum(times);

    bench::record r("record", "mul64_chain_" + std::to_string(products));
    r.add("seconds", med).add("seconds_min", best).add("reps", opt.reps).add("gates", gates)
        .add("and_gates", s.and_gates).add("gates_per_s", gates / med).add("gates_per_s_best", gates / best)
        .add("bytes_per_gate", bytes_per_gate(c)).add("and_depth", s.and_depth)
        .add("peak_working_set", s.peak_working_set).add("peak_rss_bytes", bench::peak_rss_bytes());
    if (opt.json) {
        std::cout << r.json() << "\n";
    } else {
        std::printf("record  %-20s %10llu gates  %7.3f s median  %7.3f s min  %6.1f M gates/s  %5.2f B/gate\n",
                    ("mul64_chain_" + std::to_string(products)).c_str(), static_cast<unsigned long long>(gates), med,
                    best, gates / med / 1e6, bytes_per_gate(c));
    }
    return 0;
}

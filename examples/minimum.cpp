// The minimum of many numbers and where it is (ME-SFE §4.2.4): Alice holds
// half the 20-bit values, Bob the other half; both learn the smallest value
// and the first index holding it (Alice's values come first). Streamed: the
// circuit (about 41 ANDs per value) is never stored, so 10^6 values run in a
// few MiB per party.
//
//   minimum --local [--count N] [--segment-ands K] [--seed S]
#include "stream_runner.hpp"

#include <limits>

int main(int argc, char** argv) {
    std::uint64_t count = 1'000'000, seed = 1, segment_ands = tandem::default_segment_ands;
    example::cli c;
    try {
        c = example::parse(argc, argv);
        for (std::size_t i = 0; i < c.rest.size(); ++i) {
            const std::string& a = c.rest[i];
            if ((a != "--count" && a != "--seed" && a != "--segment-ands") || i + 1 == c.rest.size())
                throw std::invalid_argument("unknown argument '" + a + "'");
            const std::uint64_t v = std::stoull(c.rest[++i]);
            (a == "--count" ? count : a == "--seed" ? seed : segment_ands) = v;
        }
        if (count < 2) throw std::invalid_argument("--count must be at least 2");
    } catch (const std::exception& e) {
        std::cerr << "minimum: " << e.what() << "\nusage: minimum (--local | --party alice|bob) [--count N]\n"
                  << "  --count <n>         values in all, half from each party (default 1000000)\n"
                  << "  --segment-ands <k>  ANDs per streamed segment (default " << tandem::default_segment_ands
                  << "); both parties alike\n"
                  << "  --seed <s>          seed of the demo inputs (default 1)\n"
                  << example::common_usage;
        return 2;
    }
    const std::uint64_t n_alice = count / 2, n_bob = count - count / 2;
    const auto value = [seed](std::uint64_t stream, std::uint64_t i) {
        return static_cast<std::uint32_t>(example::demo_value(seed, stream, i) & 0xFFFFF);
    };
    const auto alice_values = [&](std::uint64_t i) { return value(0, i); };
    const auto bob_values = [&](std::uint64_t i) { return value(1, i); };
    // The plaintext reference (the demo shares the seed; see stream_runner.hpp).
    std::pair<std::uint32_t, std::uint64_t> best{std::numeric_limits<std::uint32_t>::max(), 0};
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint32_t v = i < n_alice ? alice_values(i) : bob_values(i - n_alice);
        if (v < best.first) best = {v, i};
    }
    auto fn = apps::minimum_stream<20>(n_alice, n_bob);
    fn.segment_ands = segment_ands;
    if (c.progress) c.options.progress = example::progress_bar(c.local ? tandem::party::alice : c.me);
    return example::run(c, argc, argv, [&](tandem::session& s) {
        const auto result = s.me() == tandem::party::alice ? s.run(c.who, fn, alice_values) : s.run(c.who, fn, bob_values);
        example::end_progress();
        if (!result) {
            example::report_stream(s, "result: not revealed to this party");
            return 0;
        }
        const auto [min, index] = *result;
        const bool ok = min == best.first && index == best.second;
        example::report_stream(s, "minimum of " + std::to_string(count) + " values: " + std::to_string(min) +
                                      " at index " + std::to_string(index) +
                                      (ok ? " (matches the plaintext reference)" : " (MISMATCH with the reference)"));
        return ok ? 0 : 1;
    });
}

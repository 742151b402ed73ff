// The edit (Levenshtein) distance of Alice's string and Bob's (KSS §6: two
// 4095-symbol binary strings): 4 ANDs per DP cell over a binary alphabet, 5
// over four letters (examples/stream_apps.hpp), streamed anti-diagonal by
// anti-diagonal so the 67 M ANDs are never stored.
//
//   edit_distance --local [--length L] [--length-bob M] [--alphabet 2|4] [--segment-ands K] [--seed S]
#include "stream_runner.hpp"

int main(int argc, char** argv) {
    std::uint64_t n = 4095, m = 0, alphabet = 2, seed = 1, segment_ands = tandem::default_segment_ands;
    example::cli c;
    try {
        c = example::parse(argc, argv);
        for (std::size_t i = 0; i < c.rest.size(); ++i) {
            const std::string& a = c.rest[i];
            if ((a != "--length" && a != "--length-bob" && a != "--alphabet" && a != "--seed" && a != "--segment-ands") ||
                i + 1 == c.rest.size())
                throw std::invalid_argument("unknown argument '" + a + "'");
            const std::uint64_t v = std::stoull(c.rest[++i]);
            (a == "--length" ? n : a == "--length-bob" ? m : a == "--alphabet" ? alphabet : a == "--seed" ? seed : segment_ands) = v;
        }
        if (m == 0) m = n;
        if (n == 0 || n > 1'000'000 || m > 1'000'000) throw std::invalid_argument("lengths must be in 1..1000000");
        if (alphabet != 2 && alphabet != 4) throw std::invalid_argument("--alphabet must be 2 or 4");
    } catch (const std::exception& e) {
        std::cerr << "edit_distance: " << e.what() << "\nusage: edit_distance (--local | --party alice|bob) [--length L]\n"
                  << "  --length <n>        Alice's string length (default 4095)\n"
                  << "  --length-bob <m>    Bob's string length (default: Alice's)\n"
                  << "  --alphabet 2|4      letters (default 2)\n"
                  << "  --segment-ands <k>  ANDs per streamed segment (default " << tandem::default_segment_ands
                  << "); both parties alike\n"
                  << "  --seed <s>          seed of the demo inputs (default 1)\n"
                  << example::common_usage;
        return 2;
    }
    std::vector<std::uint8_t> a(n), b(m);
    for (std::uint64_t i = 0; i < n; ++i) a[i] = static_cast<std::uint8_t>(example::demo_value(seed, 0, i) % alphabet);
    for (std::uint64_t j = 0; j < m; ++j) b[j] = static_cast<std::uint8_t>(example::demo_value(seed, 1, j) % alphabet);
    const std::uint32_t expected = apps::edit_distance_plain(a, b);  // the demo's reference
    if (c.progress) c.options.progress = example::progress_bar(c.local ? tandem::party::alice : c.me);
    const auto go = [&](auto fn) {
        fn.segment_ands = segment_ands;
        return example::run(c, argc, argv, [&](tandem::session& s) {
            const auto result = s.me() == tandem::party::alice ? s.run(c.who, fn, a) : s.run(c.who, fn, b);
            example::end_progress();
            if (!result) {
                example::report_stream(s, "result: not revealed to this party");
                return 0;
            }
            const bool ok = *result == expected;
            example::report_stream(s, "edit distance of " + std::to_string(n) + " and " + std::to_string(m) + " symbols (" +
                                          std::to_string(alphabet) + " letters): " + std::to_string(*result) +
                                          (ok ? " (matches the plaintext reference)" : " (MISMATCH with the reference)"));
            return ok ? 0 : 1;
        });
    };
    return alphabet == 2 ? go(apps::edit_distance_stream<1>(n, m)) : go(apps::edit_distance_stream<2>(n, m));
}

// examples/app_runner.hpp — the command line of the paper-001 applications
// (biomatch, mexp, mvmul): two parties, --threads workers each, --ipp to
// split the parallel regions between the parties (paper 001 §5).
//
//   <app> --local [--threads N] [--ipp] [--seed S] [--repeat R]     both parties, two processes, loopback TCP
//   <app> --party alice [--port P] [--threads N] [--ipp] [--seed S] [--repeat R]
//   <app> --party bob --host <alice> [--threads N] [--ipp] [--seed S] [--repeat R]
//
// Each party derives its own input from the seed (Alice and Bob draw from
// different streams) and passes only its own to the run. For this demo the
// seed is shared, so each party can also compute the plaintext reference and
// check the garbled result against it; a real deployment would have only its
// own data and no reference.
#pragma once

#include "apps.hpp"
#include "two_party.hpp"

#include <cstdint>
#include <iostream>
#include <string>

namespace example {

/// Runs one application. `inputs(seed)` gives both parties' plain inputs
/// (.alice, .bob), `reference` the expected output from them, `show` prints an output.
template <class Circuit, class MakeInputs, class Reference, class Show>
int run_app(const char* name, const char* description, int argc, char** argv, const Circuit& circuit,
            MakeInputs&& inputs, Reference&& reference, Show&& show) {
    std::uint64_t seed = 1, repeat = 1;
    cli c;
    try {
        c = parse(argc, argv);
        for (std::size_t i = 0; i < c.rest.size(); ++i) {
            if ((c.rest[i] != "--seed" && c.rest[i] != "--repeat") || i + 1 == c.rest.size())
                throw std::invalid_argument("unknown argument '" + c.rest[i] + "'");
            (c.rest[i] == "--seed" ? seed : repeat) = std::stoull(c.rest[i + 1]);
            ++i;
        }
    } catch (const std::exception& e) {
        std::cerr << name << ": " << e.what() << "\nusage: " << name
                  << " (--local | --party alice|bob) [--threads N] [--ipp] [--seed S] [--repeat R]\n"
                  << description << "  --repeat <r>        runs in the session (default 1; the last is reported)\n"
                  << common_usage;
        return 2;
    }
    const auto in = inputs(seed);
    const auto expected = reference(in);
    return run(c, argc, argv, [&](tandem::session& s) {
        auto run_once = [&] {
            return s.me() == tandem::party::alice ? s.run(c.who, circuit, in.alice) : s.run(c.who, circuit, in.bob);
        };
        auto result = run_once();
        for (std::uint64_t k = 1; k < repeat; ++k) result = run_once();
        if (!result) {
            report(s, "result: not revealed to this party");
            return 0;
        }
        const bool ok = *result == expected;
        const tandem::circuit_stats& st = circuit.stats();
        report(s, "result: " + show(*result) + (ok ? " (matches the plaintext reference)" : " (WRONG: plaintext gives " + show(expected) + ")") +
                      "\n[" + std::string(tandem::to_string(s.me())) + "] circuit: " +
                      std::to_string(st.regions.size()) + " regions, " + std::to_string(st.stored_gates) +
                      " gates stored for " + std::to_string(st.executed_gates) + " executed; " +
                      std::to_string(s.threads()) + (s.threads() == 1 ? " worker" : " workers") + " per party" +
                      (s.ipp() ? " and world (IPP)" : ""));
        return ok ? 0 : 1;
    });
}

}  // namespace example

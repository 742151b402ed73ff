// The applications of paper 001 §6.2 as the benchmarks run them: each
// circuit with both parties' inputs as bits (from a fixed seed) and the
// plaintext result every garbled run is checked against.
#pragma once

#include "../examples/apps.hpp"

#include <tandem/tandem.hpp>

#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// One application: its circuit and inputs as bits (from a fixed seed),
/// with the plaintext result to check against.
struct app {
    std::string name;
    tandem::circuit<> c;
    std::vector<std::vector<bool>> alice, bob;  // each party's input values
    std::vector<std::vector<bool>> expected;
    /// A streamed variant (bench_ipp): runs the same function as a streamed
    /// function in a session as this party (true: Alice), returns whether its
    /// result is `expected`. Empty for compiled applications.
    std::function<bool(tandem::session&, bool)> streamed;
};

inline app make_app(std::string name, tandem::circuit<> c) {
    app a{std::move(name), std::move(c), {}, {}, {}, {}};
    std::mt19937_64 rng(20261122);
    std::vector<std::vector<bool>> all;
    for (const tandem::value_layout& v : a.c.data().inputs) {
        std::vector<bool> bits(v.bits);
        for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = (rng() & 1) != 0;
        (v.owner == tandem::party::alice ? a.alice : a.bob).push_back(bits);
        all.push_back(std::move(bits));
    }
    a.expected = tandem::eval_plain_bits(a.c, all);
    return a;
}

inline std::vector<app> make_apps(bool quick) {
    std::vector<app> apps;
    if (quick) {
        apps.push_back(make_app("biomatch", apps::biomatch_circuit<64>()));
        apps.push_back(make_app("mexp", apps::mexp_circuit<4>()));
        apps.push_back(make_app("mvmul", apps::mvmul_circuit<4, 16>()));
    } else {
        apps.push_back(make_app("biomatch", apps::biomatch_circuit()));
        apps.push_back(make_app("mexp", apps::mexp_circuit()));
        apps.push_back(make_app("mvmul", apps::mvmul_circuit()));
    }
    return apps;
}

}  // namespace bench

// Test helper: random bits for every input value of a circuit, from a seeded
// generator (tests print the seed they used).
#pragma once

#include <tandem/tandem.hpp>

#include <random>
#include <vector>

namespace tandem::test {

inline std::vector<std::vector<bool>> random_inputs(const circuit<>& c, std::mt19937_64& rng) {
    std::vector<std::vector<bool>> in;
    for (const value_layout& v : c.data().inputs) {
        std::vector<bool> bits(v.bits);
        for (std::size_t k = 0; k < v.bits; ++k) bits[k] = (rng() & 1) != 0;
        in.push_back(std::move(bits));
    }
    return in;
}

}  // namespace tandem::test

// BioMatch (paper 001 §6.2): Alice holds a database of 512 biometric
// templates of four 64-bit values, Bob a sample; they learn the minimum
// squared Euclidean distance between the sample and any template, nothing
// else. 512 distances in one parallel region, the minimum as a reduce tree.
//
//   biomatch --local --threads 2
#include "app_runner.hpp"

int main(int argc, char** argv) {
    struct both {
        std::array<std::array<std::uint64_t, 4>, 512> alice;
        std::array<std::uint64_t, 4> bob;
    };
    return example::run_app(
        "biomatch", "  --seed <s>          seed of the demo inputs (default 1)\n", argc, argv, apps::biomatch_circuit(),
        [](std::uint64_t seed) {
            const auto in = apps::make_biomatch_inputs(seed);
            return both{in.db, in.sample};
        },
        [](const both& in) { return apps::biomatch_plain(in.alice, in.bob); },
        [](std::uint64_t d) { return "minimum squared distance " + std::to_string(d); });
}

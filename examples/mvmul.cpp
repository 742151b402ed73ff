// MVMul (paper 001 §6.2): Alice holds a 16×16 matrix, Bob a 16-vector of
// 64-bit values; they learn the product (mod 2^64), as in LWE-based
// schemes. One parallel region of 16 row dot products, stored once.
//
//   mvmul --local --threads 2
#include "app_runner.hpp"

#include <sstream>

int main(int argc, char** argv) {
    struct both {
        std::array<std::array<std::uint64_t, 16>, 16> alice;
        std::array<std::uint64_t, 16> bob;
    };
    return example::run_app(
        "mvmul", "  --seed <s>          seed of the demo inputs (default 1)\n", argc, argv, apps::mvmul_circuit(),
        [](std::uint64_t seed) {
            const auto in = apps::make_mvmul_inputs(seed);
            return both{in.matrix, in.vector};
        },
        [](const both& in) { return apps::mvmul_plain(in.alice, in.bob); },
        [](const std::array<std::uint64_t, 16>& y) {
            std::ostringstream out;
            out << "y = A·v: " << y[0] << ", " << y[1] << ", …, " << y[15] << " (16 entries)";
            return out.str();
        });
}

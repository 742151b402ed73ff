// MExp (paper 001 §6.2): Alice holds 32 bases, Bob 32 exponents (32-bit);
// they learn Π base_i^exp_i mod m for the public modulus m = 2^32 - 5. The
// 32 exponentiations form one parallel region, the product a sequential tail.
//
//   mexp --local --threads 2
#include "app_runner.hpp"

int main(int argc, char** argv) {
    struct both {
        std::array<std::uint32_t, 32> alice, bob;
    };
    return example::run_app(
        "mexp", "  --seed <s>          seed of the demo inputs (default 1)\n", argc, argv, apps::mexp_circuit(),
        [](std::uint64_t seed) {
            const auto in = apps::make_mexp_inputs(seed);
            return both{in.bases, in.exps};
        },
        [](const both& in) { return apps::mexp_plain(in.alice, in.bob); },
        [](std::uint32_t r) { return "product of the powers mod m = " + std::to_string(r); });
}

// Laws, wide widths: every operator on 10,000 random operand pairs per width
// (one in eight drawn from edge values), fixed seeds.
#include "laws.hpp"

namespace dsl_laws_wide_tests {

TEST_CASE_TEMPLATE_DEFINE("dsl.laws.random", W, laws_random) {
    constexpr std::size_t n = W::value;
    laws::check_random<n, false>(10000, 0x7a3d0000 + n);
    laws::check_random<n, true>(10000, 0x5e1f0000 + n);
}
TEST_CASE_TEMPLATE_INVOKE(laws_random, std::integral_constant<std::size_t, 16>, std::integral_constant<std::size_t, 31>,
                          std::integral_constant<std::size_t, 32>, std::integral_constant<std::size_t, 33>,
                          std::integral_constant<std::size_t, 64>, std::integral_constant<std::size_t, 65>,
                          std::integral_constant<std::size_t, 128>);

}  // namespace dsl_laws_wide_tests

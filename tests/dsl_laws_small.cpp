// Laws, small widths: every operator, every pair of operands (N <= 8).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "laws.hpp"

TEST_CASE_TEMPLATE_DEFINE("dsl.laws.exhaustive", W, laws_exhaustive) {
    laws::check_exhaustive<W::value, false>();
    laws::check_exhaustive<W::value, true>();
}
TEST_CASE_TEMPLATE_INVOKE(laws_exhaustive, std::integral_constant<std::size_t, 1>,
                          std::integral_constant<std::size_t, 2>, std::integral_constant<std::size_t, 3>,
                          std::integral_constant<std::size_t, 7>, std::integral_constant<std::size_t, 8>);

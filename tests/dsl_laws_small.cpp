// Laws, small widths: every operator, every pair of operands (N <= 8).
#include "laws.hpp"

namespace dsl_laws_small_tests {

TEST_CASE_TEMPLATE_DEFINE("dsl.laws.exhaustive", W, laws_exhaustive) {
    laws::check_exhaustive<W::value, false>();
    laws::check_exhaustive<W::value, true>();
}
TEST_CASE_TEMPLATE_INVOKE(laws_exhaustive, std::integral_constant<std::size_t, 1>,
                          std::integral_constant<std::size_t, 2>, std::integral_constant<std::size_t, 3>,
                          std::integral_constant<std::size_t, 7>, std::integral_constant<std::size_t, 8>);

}  // namespace dsl_laws_small_tests

#include <tandem/tandem.hpp>
int main() {
  auto c = tandem::compile([](tandem::secure_int<32> a, tandem::secure_int<32> b) { return a + b; },
                           tandem::input<tandem::party::alice, tandem::secure_int<32>>,
                           tandem::input<tandem::party::bob, tandem::secure_int<32>>);
  return c.eval_plain(std::int32_t{2}, std::int32_t{40}) == 42 ? 0 : 1;
}

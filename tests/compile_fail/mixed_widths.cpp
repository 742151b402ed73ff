// Must not compile: adding secure integers of different widths needs an
// explicit resize. The build must fail with "widths differ".
#include <tandem/tandem.hpp>

int main() {
    auto c = tandem::compile([](tandem::secure_int<32> a, tandem::secure_int<16> b) { return a + b; },
                             tandem::input<tandem::party::alice, tandem::secure_int<32>>,
                             tandem::input<tandem::party::bob, tandem::secure_int<16>>);
    (void)c;
}

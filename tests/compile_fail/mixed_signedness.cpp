// Must not compile: secure_int<N> and secure_uint<N> do not mix implicitly.
// The build must fail with "signedness differs".
#include <tandem/tandem.hpp>

int main() {
    auto c = tandem::compile([](tandem::secure_int<32> a, tandem::secure_uint<32> b) { return a < b; },
                             tandem::input<tandem::party::alice, tandem::secure_int<32>>,
                             tandem::input<tandem::party::bob, tandem::secure_uint<32>>);
    (void)c;
}

// A first plaintext program (bench/compile_time.sh): compile a + b, evaluate it.
#include <tandem/core.hpp>

int main() {
    using namespace tandem;
    auto c = compile([](secure_int<32> a, secure_int<32> b) { return a + b; }, input<party::alice, secure_int<32>>,
                     input<party::bob, secure_int<32>>);
    return c.eval_plain(2, 3) == 5 ? 0 : 1;
}

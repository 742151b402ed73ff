// Compiled without -march=native (see run.hpp).
#include "run.hpp"

isa_mixed::result isa_mixed::run_portable(std::uint64_t a, std::uint64_t b, std::uint64_t seed) {
    using U = tandem::secure_uint<64>;
    return run([](U x, U y) { return x * y + (x ^ y); }, a, b, seed);
}

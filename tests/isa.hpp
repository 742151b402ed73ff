// Runs a test body once per AES instruction set this CPU can run (crypto/isa.hpp).
#pragma once

#include <doctest/doctest.h>
#include <tandem/crypto/isa.hpp>


namespace tandem::test {

/// Calls body(isa) with tandem switched to each instruction set this CPU
/// runs (AES-NI, then VAES on 256-bit and on 512-bit registers); the
/// process's choice is restored afterwards.
template <class Body>
void for_each_isa(Body&& body) {
    const aes_isa before = active_aes_isa();
    for (const aes_isa isa : all_aes_isas) {
        if (!cpu_supports(isa)) {
            MESSAGE("this CPU cannot run the " << to_string(isa) << " kernels; not tested here");
            continue;
        }
        use_aes_isa(isa);
        INFO("AES kernels: " << to_string(isa));
        body(isa);
    }
    use_aes_isa(before);
}

}  // namespace tandem::test

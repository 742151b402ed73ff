// Runs a test body once per AES instruction set this CPU can run (crypto/isa.hpp).
#pragma once

#include <doctest/doctest.h>
#include <tandem/crypto/isa.hpp>

#include <initializer_list>

namespace tandem::test {

/// Calls body(isa) with tandem switched to AES-NI, then to VAES where the CPU
/// has it; the process's choice is restored afterwards.
template <class Body>
void for_each_isa(Body&& body) {
    const aes_isa before = active_aes_isa();
    for (const aes_isa isa : {aes_isa::aesni, aes_isa::vaes}) {
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

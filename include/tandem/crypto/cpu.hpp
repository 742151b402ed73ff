// tandem/crypto/cpu.hpp — run-time checks for the instructions tandem's crypto needs.
#pragma once

#include <tandem/error.hpp>

namespace tandem::detail {

/// Throws usage_error, instead of dying with SIGILL later, when this CPU
/// lacks AES-NI — or VAES/AVX-512 when tandem was compiled to use them.
inline void require_aes_instructions() {
    static const bool ok = [] {
        __builtin_cpu_init();
        bool have = __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1");
#if defined(__VAES__) && defined(__AVX512F__)
        have = have && __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw");
#endif
        return have;
    }();
    if (!ok)
#if defined(__VAES__) && defined(__AVX512F__)
        throw usage_error(
            "tandem was compiled for VAES/AVX-512 (e.g. -march=native) but this CPU lacks them; rebuild for "
            "this machine or without -march=native");
#else
        throw usage_error("tandem needs AES-NI and SSE4.1, which this CPU does not have");
#endif
}

}  // namespace tandem::detail

// tandem/detail/secret.hpp — where secrets are made and where the protocol
// makes something public, for checking that no branch or memory address
// depends on a secret (tests/secret_independence.cpp, DEVELOPERS.md).
//
// Built with TANDEM_VALGRIND_SECRETS defined, mark_secret() tells valgrind's
// memcheck that the bytes are undefined and declassify() that they are
// defined again (its client requests, <valgrind/memcheck.h>). Memcheck then
// tracks everything computed from a secret and reports a conditional jump or
// a memory address that depends on one as a use of an uninitialised value.
// Without the macro (every normal build) both are empty and cost nothing.
//
// Define the macro for a whole program or for none of it: the inline
// functions that call these differ with it. Tests only; it adds nothing to
// security.
#pragma once

#include <cstddef>

#if defined(TANDEM_VALGRIND_SECRETS)
#include <valgrind/memcheck.h>
#endif

namespace tandem::detail {

/// The n bytes at p are secret (Δ, labels, keys, inputs).
inline void mark_secret([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(TANDEM_VALGRIND_SECRETS)
    (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n);
#endif
}

/// The n bytes at p are public from here on: the protocol reveals them (an
/// opened output bit, a value sent to the peer in the clear).
inline void declassify([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(TANDEM_VALGRIND_SECRETS)
    (void)VALGRIND_MAKE_MEM_DEFINED(p, n);
#endif
}

/// v, made public (see declassify).
template <class T>
T declassified(T v) noexcept {
    declassify(&v, sizeof v);
    return v;
}

}  // namespace tandem::detail

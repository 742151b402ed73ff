// tandem/crypto/wipe.hpp — erase secrets from memory (docs/DESIGN.md §9).
#pragma once

#include <cstddef>
#include <string.h>  // explicit_bzero: a memset the compiler may not drop

namespace tandem::detail {

/// Overwrites n bytes at p with zeros, even if the memory is never read again.
inline void wipe(void* p, std::size_t n) noexcept {
    if (n != 0) explicit_bzero(p, n);
}

/// Wipes the elements of a contiguous container (its capacity beyond size() too).
template <class Vector>
void wipe_all(Vector& v) noexcept {
    wipe(v.data(), v.capacity() * sizeof(*v.data()));
}

/// Wipes a vector of secrets when it leaves scope, however it leaves.
template <class V>
struct wipe_on_exit {
    V& v;
    ~wipe_on_exit() { wipe_all(v); }
};
// Aggregate deduction (P1816) arrived only in Clang 17; the sanitizer presets
// build with Clang 14.
template <class V>
wipe_on_exit(V&) -> wipe_on_exit<V>;

}  // namespace tandem::detail

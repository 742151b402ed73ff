// tandem/int128.hpp — 128-bit integer names (a GCC/Clang extension; the
// `__extension__` keeps -Wpedantic quiet in users' builds).
#pragma once

#include <type_traits>

namespace tandem {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

namespace detail {
/// std::is_signed_v, also for int128 under -std=c++20 (strict mode does not count it as integral).
template <class T>
inline constexpr bool is_signed_integer_v = std::is_signed_v<T> || std::is_same_v<T, int128>;
}  // namespace detail

}  // namespace tandem

// tandem/detail/linkage.hpp — how the definitions in the *_impl.hpp headers
// are linked. Header-only (the default for a bare -I include), each header
// includes its _impl.hpp at its end and every definition there is `inline`.
// With TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem) user code sees
// the declarations only, and the library's translation units (src/) include
// the _impl.hpp headers, defining each function once (docs/DESIGN.md §10).
#pragma once

#ifdef TANDEM_SEPARATE_COMPILATION
#define TANDEM_INLINE
#else
#define TANDEM_INLINE inline
#endif

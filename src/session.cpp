// The library's one translation unit (CMake target tandem::tandem unless
// TANDEM_HEADER_ONLY is on): the definitions of session.hpp, and with them
// the run engine for both garbling hashes, the kernels, OT and networking,
// compiled once instead of in every program that runs a session.
#ifndef TANDEM_SEPARATE_COMPILATION
#error "src/session.cpp is compiled with TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem sets it)"
#endif

#include <tandem/session/session_impl.hpp>

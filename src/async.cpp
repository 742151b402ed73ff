// The library's translation unit for asynchronous sessions (tandem/async.hpp;
// CMake target tandem::tandem unless TANDEM_HEADER_ONLY is on): the one file
// that compiles oneTBB's arena and resumable tasks, beside src/net.cpp's Asio.
#ifndef TANDEM_SEPARATE_COMPILATION
#error "src/async.cpp is compiled with TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem sets it)"
#endif

#include <tandem/session/async_impl.hpp>

// The library's translation unit for oneTBB's arenas (CMake target
// tandem::tandem unless TANDEM_HEADER_ONLY is on): the executor's workers
// (exec/workers_impl.hpp) and asynchronous sessions (tandem/async.hpp),
// beside src/net.cpp's Asio and resumable waits.
#ifndef TANDEM_SEPARATE_COMPILATION
#error "src/async.cpp is compiled with TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem sets it)"
#endif

#include <tandem/exec/workers_impl.hpp>
#include <tandem/session/async_impl.hpp>

// The library's translation unit for TCP (net/tcp.hpp; CMake target
// tandem::tandem unless TANDEM_HEADER_ONLY is on): the one file that
// compiles Asio, so that no program including tandem's headers does.
#ifndef TANDEM_SEPARATE_COMPILATION
#error "src/net.cpp is compiled with TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem sets it)"
#endif

#include <tandem/net/tcp_impl.hpp>

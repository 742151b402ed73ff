// The library's translation unit for TCP, TLS and the waits of tasks on
// conditions (net/tcp.hpp, net/tls.hpp, net/task_condition.hpp;
// CMake target tandem::tandem unless TANDEM_HEADER_ONLY is on): the one file
// that compiles Asio and OpenSSL (and the sockets' resumable waits,
// net/suspend.hpp), so that no program including tandem's headers does.
#ifndef TANDEM_SEPARATE_COMPILATION
#error "src/net.cpp is compiled with TANDEM_SEPARATE_COMPILATION (CMake's tandem::tandem sets it)"
#endif

#include <tandem/net/task_condition_impl.hpp>
#include <tandem/net/tcp_impl.hpp>
#include <tandem/net/tls_impl.hpp>

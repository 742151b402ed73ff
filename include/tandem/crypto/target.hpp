// tandem/crypto/target.hpp — compile tandem's crypto for AES-NI without
// forcing flags on the whole program.
//
// Code between TANDEM_CRYPTO_BEGIN and TANDEM_CRYPTO_END is compiled for
// SSE4.1 and AES-NI (GCC's target pragma adds to whatever the command line
// enables, e.g. -march=native), so users need no -maes, and nothing outside
// these regions can use the instructions: a CPU without AES-NI gets the clear
// error of cpu.hpp instead of SIGILL. Other compilers must enable AES-NI and
// SSE4.1 themselves (e.g. -maes -msse4.1).
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#define TANDEM_CRYPTO_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1,aes\")")
#define TANDEM_CRYPTO_END _Pragma("GCC pop_options")
#else
#define TANDEM_CRYPTO_BEGIN
#define TANDEM_CRYPTO_END
#endif

// tandem/crypto/target.hpp — compile tandem's crypto for the AES
// instructions of the CPU it targets, without forcing flags on the whole
// program.
//
// x86-64: code between TANDEM_CRYPTO_BEGIN and TANDEM_CRYPTO_END is compiled
// for SSE4.1, AES-NI and PCLMULQDQ (GF(2^128) products, crypto/gf128.hpp); code between TANDEM_VAES_BEGIN and TANDEM_VAES_END
// also for AVX2, AVX-512 (F, BW, VL), VAES and VPCLMULQDQ; TANDEM_VAES256_…
// for AVX2, VAES and VPCLMULQDQ on 256-bit registers (AMD Zen 3, Intel client cores); TANDEM_AVX2_…
// for AVX2 only (the OT transpose's middle width); TANDEM_GFNI_… for the
// VAES set plus GFNI and AVX512-VBMI (the OT transpose's bit step). Both add to whatever the
// command line enables (e.g. -march=native), so users need no -maes, and the
// wide kernels exist in every build: which one runs is chosen at run time
// from CPUID (crypto/isa.hpp), never by the flags of a translation unit. The
// VAES kernels live in namespaces of their own (`…::vaes`) and are only
// called after that check, so no function's body depends on the flags it
// was compiled with — two files of one program built with different -march
// agree on every inline function (the one-definition rule), and a CPU
// without AES-NI gets the clear error of isa.hpp instead of SIGILL.
//
// AArch64 (ARMv8-A): TANDEM_CRYPTO_BEGIN adds the Crypto Extensions' AES
// instructions (AESE, AESMC) to the baseline, whose NEON (Advanced SIMD) every
// ARMv8-A core has; the same run-time check (HWCAP_AES) guards them. There
// is one width, 128 bits, so the x86 wide kernels and their markers do not
// exist there: code for them sits under TANDEM_X86.
//
// GCC takes `#pragma GCC target`; Clang the equivalent `#pragma clang
// attribute`. Functions of one target inline into functions of a wider one,
// so the wide kernels inline the scalar helpers (block, σ) freely.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#define TANDEM_X86 1
#define TANDEM_ARM64 0
#elif defined(__aarch64__)
#define TANDEM_X86 0
#define TANDEM_ARM64 1
#else
#error "tandem's crypto runs on x86-64 (AES-NI) and AArch64 (ARMv8 Crypto Extensions); this CPU is neither"
#endif

#if TANDEM_ARM64
#if defined(__clang__)
#define TANDEM_CRYPTO_BEGIN _Pragma("clang attribute push(__attribute__((target(\"aes\"))), apply_to = function)")
#define TANDEM_CRYPTO_END _Pragma("clang attribute pop")
#elif defined(__GNUC__)
#define TANDEM_CRYPTO_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"+crypto\")")
#define TANDEM_CRYPTO_END _Pragma("GCC pop_options")
#else
#error "tandem's crypto needs GCC or Clang (target pragmas for the ARMv8 Crypto Extensions)"
#endif
#elif defined(__clang__)
#define TANDEM_CRYPTO_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"sse4.1,aes,pclmul\"))), apply_to = function)")
#define TANDEM_CRYPTO_END _Pragma("clang attribute pop")
#define TANDEM_VAES_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"sse4.1,aes,pclmul,avx2,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq\"))), apply_to = function)")
#define TANDEM_VAES_END _Pragma("clang attribute pop")
#define TANDEM_VAES256_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"sse4.1,aes,pclmul,avx2,vaes,vpclmulqdq\"))), apply_to = function)")
#define TANDEM_VAES256_END _Pragma("clang attribute pop")
#define TANDEM_AVX2_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"sse4.1,aes,pclmul,avx2\"))), apply_to = function)")
#define TANDEM_AVX2_END _Pragma("clang attribute pop")
#define TANDEM_GFNI_BEGIN \
    _Pragma("clang attribute push(__attribute__((target(\"sse4.1,aes,pclmul,avx2,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq,gfni,avx512vbmi\"))), apply_to = function)")
#define TANDEM_GFNI_END _Pragma("clang attribute pop")
#elif defined(__GNUC__)
#define TANDEM_CRYPTO_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1,aes,pclmul\")")
#define TANDEM_CRYPTO_END _Pragma("GCC pop_options")
#define TANDEM_VAES_BEGIN \
    _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1,aes,pclmul,avx2,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq\")")
#define TANDEM_VAES_END _Pragma("GCC pop_options")
#define TANDEM_VAES256_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1,aes,pclmul,avx2,vaes,vpclmulqdq\")")
#define TANDEM_VAES256_END _Pragma("GCC pop_options")
#define TANDEM_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1,aes,pclmul,avx2\")")
#define TANDEM_AVX2_END _Pragma("GCC pop_options")
#define TANDEM_GFNI_BEGIN \
    _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1,aes,pclmul,avx2,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq,gfni,avx512vbmi\")")
#define TANDEM_GFNI_END _Pragma("GCC pop_options")
#else
#error "tandem's crypto needs GCC or Clang (target pragmas for AES-NI and VAES)"
#endif

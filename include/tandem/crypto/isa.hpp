// tandem/crypto/isa.hpp — which instruction set runs tandem's AES, chosen at run time.
//
// Every build holds three kernels for each hot loop (garbling, evaluating, the
// hashes, the PRG): one on AES-NI (one AES block per instruction), one on
// VAES with 256-bit registers and AVX2 (two), one on VAES with AVX-512 (four)
// — crypto/target.hpp, crypto/lanes.hpp. The first use picks the widest this
// CPU has: AVX-512 Intel servers since Ice Lake run `vaes`; AMD Zen 3 and
// Intel client cores since Alder Lake `vaes256`; older x86 `aesni`. All give
// identical results bit for bit, so the choice may differ between the two
// parties and may change between runs (tests compare them). On AArch64 there
// is one kernel, `armv8`, on the Crypto Extensions (AESE/AESMC, one block per
// instruction; HWCAP_AES), with the same results bit for bit as the x86 ones,
// so an x86 party and an ARM party run together.
//
// The environment variable TANDEM_ISA=aesni (or vaes256, vaes, armv8, auto)
// overrides the choice for a whole process; use_aes_isa() does the same from
// code.
#pragma once

#include <tandem/error.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <tandem/crypto/target.hpp>

#if TANDEM_X86
#include <cpuid.h>
#elif defined(__linux__)
#include <sys/auxv.h>
#endif

namespace tandem {

/// The instruction sets tandem's AES kernels are written for.
enum class aes_isa : std::uint8_t {
    aesni = 1,    ///< AES-NI, PCLMULQDQ and SSE4.1: one AES block per instruction
    vaes = 2,     ///< VAES and VPCLMULQDQ with AVX-512 F/BW/VL: four blocks per instruction
    vaes256 = 3,  ///< VAES and VPCLMULQDQ with AVX2, 256-bit registers: two blocks per instruction
    armv8 = 4,    ///< AArch64 with the ARMv8 Crypto Extensions (AESE/AESMC): one block per instruction
};

/// Every instruction set of this architecture, narrowest first (tests and
/// benchmarks run each the CPU has).
#if TANDEM_X86
inline constexpr aes_isa all_aes_isas[] = {aes_isa::aesni, aes_isa::vaes256, aes_isa::vaes};
#else
inline constexpr aes_isa all_aes_isas[] = {aes_isa::armv8};
#endif

/// The one-block-per-instruction kernels every CPU tandem runs on has (AES-NI
/// or ARMv8): the reference the wide kernels are compared with.
inline constexpr aes_isa narrowest_aes_isa = all_aes_isas[0];

/// The name of an instruction set, as TANDEM_ISA spells it.
inline const char* to_string(aes_isa isa) noexcept {
    switch (isa) {
    case aes_isa::vaes: return "vaes";
    case aes_isa::vaes256: return "vaes256";
    case aes_isa::armv8: return "armv8";
    case aes_isa::aesni: break;
    }
    return "aesni";
}

namespace detail {

#if TANDEM_X86
struct cpu_features {
    bool aesni = false;  // with SSE4.1 and PCLMULQDQ
    bool avx2 = false;
    bool vaes256 = false;  // VAES and VPCLMULQDQ with AVX2
    bool vaes = false;     // VAES with AVX-512 F, BW and VL
    bool gfni512 = false;  // and GFNI with AVX512-VBMI (the OT transpose's gf2p8affineqb form)
};

/// CPUID, plus XGETBV for whether the OS saves the AVX and AVX-512 registers
/// (Intel SDM vol. 1, §13.3 and §15.2). Written out because compilers' builtins
/// differ in the features they name (Clang 14 has no "vaes").
inline const cpu_features& cpu() noexcept {
    static const cpu_features f = [] {
        cpu_features c;
        unsigned a = 0, b = 0, cx = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &cx, &d)) return c;
        const bool pclmul = (cx >> 1) & 1, sse41 = (cx >> 19) & 1, aes = (cx >> 25) & 1, osxsave = (cx >> 27) & 1, avx = (cx >> 28) & 1;
        c.aesni = sse41 && aes && pclmul;  // every AES-NI CPU has PCLMULQDQ too
        if (!osxsave || !avx) return c;
        unsigned xcr0_lo = 0, xcr0_hi = 0;
        __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
        const bool os_avx = (xcr0_lo & 0x6) == 0x6;        // XMM and YMM state
        const bool os_avx512 = (xcr0_lo & 0xE6) == 0xE6;   // and opmask, ZMM_Hi256, Hi16_ZMM
        if (!os_avx || !__get_cpuid_count(7, 0, &a, &b, &cx, &d)) return c;
        c.avx2 = (b >> 5) & 1;
        const bool vaes = (cx >> 9) & 1, vpclmul = (cx >> 10) & 1;  // every VAES CPU has VPCLMULQDQ too
        c.vaes256 = c.aesni && c.avx2 && vaes && vpclmul;
        const bool avx512 = ((b >> 16) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);  // F, BW, VL
        c.vaes = c.vaes256 && os_avx512 && avx512;
        c.gfni512 = c.vaes && ((cx >> 8) & 1) && ((cx >> 1) & 1);  // GFNI, AVX512-VBMI
        return c;
    }();
    return f;
}
#else
struct cpu_features {
    bool armv8_aes = false;  // AESE, AESD, AESMC, AESIMC (NEON is in every ARMv8-A core)
};

/// The kernel's word on the AES instructions: HWCAP_AES of the auxiliary
/// vector on Linux (user space cannot read ID_AA64ISAR0_EL1 portably). Every
/// Apple silicon core has them.
inline const cpu_features& cpu() noexcept {
    static const cpu_features f = [] {
        cpu_features c;
#if defined(__linux__)
        constexpr unsigned long hwcap_aes = 1ul << 3;  // HWCAP_AES, <asm/hwcap.h>
        c.armv8_aes = (getauxval(AT_HWCAP) & hwcap_aes) != 0;
#elif defined(__APPLE__)
        c.armv8_aes = true;
#endif
        return c;
    }();
    return f;
}
#endif

/// 0 until chosen, then an aes_isa. One per program (an inline variable).
inline std::atomic<std::uint8_t> chosen_aes_isa{0};

/// What TANDEM_ISA asks for: 0 = auto (unset, empty or "auto"), an aes_isa,
/// or 255 for a value tandem does not know.
inline std::uint8_t isa_from_environment() noexcept {
    const char* v = std::getenv("TANDEM_ISA");
    const std::string_view s = v ? v : "";
    if (s.empty() || s == "auto") return 0;
    for (const aes_isa isa : {aes_isa::aesni, aes_isa::vaes256, aes_isa::vaes, aes_isa::armv8})
        if (s == to_string(isa)) return static_cast<std::uint8_t>(isa);
    return 255;
}

inline bool cpu_runs(aes_isa isa) noexcept {
#if TANDEM_X86
    switch (isa) {
    case aes_isa::vaes: return cpu().vaes;
    case aes_isa::vaes256: return cpu().vaes256;
    case aes_isa::aesni: return cpu().aesni;
    case aes_isa::armv8: break;
    }
    return false;
#else
    return isa == aes_isa::armv8 && cpu().armv8_aes;
#endif
}

/// The widest instruction set this CPU runs.
inline aes_isa widest_aes_isa() noexcept {
#if TANDEM_X86
    return cpu().vaes ? aes_isa::vaes : cpu().vaes256 ? aes_isa::vaes256 : aes_isa::aesni;
#else
    return aes_isa::armv8;
#endif
}

/// The choice, made on first call: TANDEM_ISA if it names an instruction set
/// this CPU has, else the widest one it has. Never throws (hot paths call it);
/// require_aes_instructions() reports what this quietly falls back from.
inline aes_isa choose_aes_isa() noexcept {
    std::uint8_t c = chosen_aes_isa.load(std::memory_order_relaxed);
    if (c != 0) [[likely]]
        return static_cast<aes_isa>(c);
    const std::uint8_t want = isa_from_environment();
    const bool usable = want != 0 && want != 255 && cpu_runs(static_cast<aes_isa>(want));
    c = usable ? want : static_cast<std::uint8_t>(widest_aes_isa());
    std::uint8_t unset = 0;
    chosen_aes_isa.compare_exchange_strong(unset, c, std::memory_order_relaxed);  // the first choice wins
    return static_cast<aes_isa>(chosen_aes_isa.load(std::memory_order_relaxed));
}

/// True when the 512-bit VAES kernels run (never on AArch64).
inline bool use_vaes() noexcept { return TANDEM_X86 && choose_aes_isa() == aes_isa::vaes; }

/// What a CPU lacks that cannot run `isa`'s kernels.
inline const char* missing(aes_isa isa) noexcept {
    if (!TANDEM_X86 && isa != aes_isa::armv8) return "is not an x86-64 CPU";
    if (TANDEM_X86 && isa == aes_isa::armv8) return "is not an AArch64 CPU";
    switch (isa) {
    case aes_isa::vaes: return "lacks VAES, VPCLMULQDQ or AVX-512 (F, BW, VL)";
    case aes_isa::vaes256: return "lacks VAES, VPCLMULQDQ or AVX2";
    case aes_isa::armv8: return "lacks the ARMv8 Crypto Extensions (AES)";
    case aes_isa::aesni: break;
    }
    return "lacks AES-NI, PCLMULQDQ or SSE4.1";
}

/// Throws usage_error, instead of dying with SIGILL later, when this CPU
/// lacks AES instructions, or when TANDEM_ISA asks for what it cannot do.
/// Called by every engine's entry point (garble, evaluate, OT, the PRG).
inline void require_aes_instructions() {
    if (!cpu_runs(narrowest_aes_isa)) [[unlikely]]
        throw usage_error(TANDEM_X86 ? "tandem needs AES-NI, PCLMULQDQ and SSE4.1, which this CPU does not have"
                                     : "tandem needs the ARMv8 Crypto Extensions (AES instructions), which this "
                                       "CPU does not have (e.g. the Raspberry Pi 4's Cortex-A72 lacks them)");
    const std::uint8_t want = isa_from_environment();
    if (want == 255) [[unlikely]]
        throw usage_error(std::string("TANDEM_ISA=") + std::getenv("TANDEM_ISA") +
                          " is not an instruction set tandem knows; use aesni, vaes256, vaes, armv8 or auto (or "
                          "unset it)");
    if (want != 0 && !cpu_runs(static_cast<aes_isa>(want))) [[unlikely]]
        throw usage_error(std::string("TANDEM_ISA=") + to_string(static_cast<aes_isa>(want)) + ", but this CPU " +
                          missing(static_cast<aes_isa>(want)) + "; use TANDEM_ISA=" + to_string(widest_aes_isa()) +
                          " or auto");
    choose_aes_isa();
}

}  // namespace detail

/// True if this CPU can run tandem's kernels for `isa`.
inline bool cpu_supports(aes_isa isa) noexcept { return detail::cpu_runs(isa); }

/// The instruction set tandem's AES kernels use in this process.
inline aes_isa active_aes_isa() noexcept { return detail::choose_aes_isa(); }

/// Makes tandem use `isa` from now on, in every thread (for comparisons and
/// tests; the results do not change, only the speed). Safe at any time: the
/// kernels agree bit for bit, so a run may even switch halfway.
inline void use_aes_isa(aes_isa isa) {
    if (!cpu_supports(isa))
        throw usage_error(std::string("use_aes_isa: this CPU cannot run tandem's ") + to_string(isa) + " kernels (it " +
                          detail::missing(isa) + ")");
    detail::chosen_aes_isa.store(static_cast<std::uint8_t>(isa), std::memory_order_relaxed);
}

}  // namespace tandem

// tandem/crypto/isa.hpp — which instruction set runs tandem's AES, chosen at run time.
//
// Every build holds two kernels for each hot loop (garbling, evaluating, the
// PRG, the OT transpose): one on AES-NI, one on VAES with AVX-512 that runs
// four AES lanes per instruction (crypto/target.hpp). The first use picks
// VAES if this CPU has it, else AES-NI. Both give identical results bit for
// bit, so the choice may differ between the two parties and may change
// between runs (tests compare them).
//
// The environment variable TANDEM_ISA=aesni (or vaes, or auto) overrides the
// choice for a whole process; use_aes_isa() does the same from code.
#pragma once

#include <tandem/error.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <cpuid.h>

namespace tandem {

/// The instruction sets tandem's AES kernels are written for.
enum class aes_isa : std::uint8_t {
    aesni = 1,  ///< AES-NI and SSE4.1: one AES block per instruction
    vaes = 2,   ///< VAES with AVX-512 F/BW/VL: four blocks per instruction
};

/// The name of an instruction set, as TANDEM_ISA spells it.
inline const char* to_string(aes_isa isa) noexcept { return isa == aes_isa::vaes ? "vaes" : "aesni"; }

namespace detail {

struct cpu_features {
    bool aesni = false;  // with SSE4.1
    bool avx2 = false;
    bool vaes = false;  // with AVX-512 F, BW and VL
};

/// CPUID, plus XGETBV for whether the OS saves the AVX and AVX-512 registers
/// (Intel SDM vol. 1, §13.3 and §15.2). Written out because compilers' builtins
/// differ in the features they name (Clang 14 has no "vaes").
inline const cpu_features& cpu() noexcept {
    static const cpu_features f = [] {
        cpu_features c;
        unsigned a = 0, b = 0, cx = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &cx, &d)) return c;
        const bool sse41 = (cx >> 19) & 1, aes = (cx >> 25) & 1, osxsave = (cx >> 27) & 1, avx = (cx >> 28) & 1;
        c.aesni = sse41 && aes;
        if (!osxsave || !avx) return c;
        unsigned xcr0_lo = 0, xcr0_hi = 0;
        __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
        const bool os_avx = (xcr0_lo & 0x6) == 0x6;        // XMM and YMM state
        const bool os_avx512 = (xcr0_lo & 0xE6) == 0xE6;   // and opmask, ZMM_Hi256, Hi16_ZMM
        if (!os_avx || !__get_cpuid_count(7, 0, &a, &b, &cx, &d)) return c;
        c.avx2 = (b >> 5) & 1;
        const bool avx512 = ((b >> 16) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);  // F, BW, VL
        c.vaes = c.aesni && c.avx2 && os_avx512 && avx512 && ((cx >> 9) & 1);
        return c;
    }();
    return f;
}

/// 0 until chosen, then an aes_isa. One per program (an inline variable).
inline std::atomic<std::uint8_t> chosen_aes_isa{0};

/// What TANDEM_ISA asks for: 0 = auto (unset, empty or "auto"), an aes_isa,
/// or 255 for a value tandem does not know.
inline std::uint8_t isa_from_environment() noexcept {
    const char* v = std::getenv("TANDEM_ISA");
    const std::string_view s = v ? v : "";
    if (s.empty() || s == "auto") return 0;
    if (s == "aesni") return static_cast<std::uint8_t>(aes_isa::aesni);
    if (s == "vaes") return static_cast<std::uint8_t>(aes_isa::vaes);
    return 255;
}

/// The choice, made on first call: TANDEM_ISA if it names an instruction set
/// this CPU has, else the widest one it has. Never throws (hot paths call it);
/// require_aes_instructions() reports what this quietly falls back from.
inline aes_isa choose_aes_isa() noexcept {
    std::uint8_t c = chosen_aes_isa.load(std::memory_order_relaxed);
    if (c != 0) [[likely]]
        return static_cast<aes_isa>(c);
    const std::uint8_t want = isa_from_environment();
    c = want == static_cast<std::uint8_t>(aes_isa::aesni) || !cpu().vaes ? static_cast<std::uint8_t>(aes_isa::aesni)
                                                                         : static_cast<std::uint8_t>(aes_isa::vaes);
    std::uint8_t unset = 0;
    chosen_aes_isa.compare_exchange_strong(unset, c, std::memory_order_relaxed);  // the first choice wins
    return static_cast<aes_isa>(chosen_aes_isa.load(std::memory_order_relaxed));
}

/// True when the VAES kernels run: what every dispatching function asks.
inline bool use_vaes() noexcept { return choose_aes_isa() == aes_isa::vaes; }

/// Throws usage_error, instead of dying with SIGILL later, when this CPU
/// lacks AES-NI, or when TANDEM_ISA asks for what it cannot do. Called by
/// every engine's entry point (garble, evaluate, OT, the PRG).
inline void require_aes_instructions() {
    if (!cpu().aesni) [[unlikely]]
        throw usage_error("tandem needs AES-NI and SSE4.1, which this CPU does not have");
    const std::uint8_t want = isa_from_environment();
    if (want == 255) [[unlikely]]
        throw usage_error(std::string("TANDEM_ISA=") + std::getenv("TANDEM_ISA") +
                          " is not an instruction set tandem knows; use aesni, vaes or auto (or unset it)");
    if (want == static_cast<std::uint8_t>(aes_isa::vaes) && !cpu().vaes) [[unlikely]]
        throw usage_error(
            "TANDEM_ISA=vaes, but this CPU lacks VAES or AVX-512 (F, BW, VL); use TANDEM_ISA=aesni or auto");
    choose_aes_isa();
}

}  // namespace detail

/// True if this CPU can run tandem's kernels for `isa`.
inline bool cpu_supports(aes_isa isa) noexcept {
    return isa == aes_isa::vaes ? detail::cpu().vaes : detail::cpu().aesni;
}

/// The instruction set tandem's AES kernels use in this process.
inline aes_isa active_aes_isa() noexcept { return detail::choose_aes_isa(); }

/// Makes tandem use `isa` from now on, in every thread (for comparisons and
/// tests; the results do not change, only the speed). Safe at any time: the
/// kernels agree bit for bit, so a run may even switch halfway.
inline void use_aes_isa(aes_isa isa) {
    if (!cpu_supports(isa))
        throw usage_error(std::string("use_aes_isa: this CPU cannot run tandem's ") + to_string(isa) +
                          " kernels" + (isa == aes_isa::vaes ? " (it lacks VAES or AVX-512 F/BW/VL)" : " (no AES-NI)"));
    detail::chosen_aes_isa.store(static_cast<std::uint8_t>(isa), std::memory_order_relaxed);
}

}  // namespace tandem

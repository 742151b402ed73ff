// tandem/security.hpp — which adversary a protocol step is secure against.
#pragma once

#include <string_view>

namespace tandem {

/// The adversary a run is secure against (README, "Security").
///   semi_honest — a peer that follows the protocol but tries to learn more
///                 from what it sees (the default: fastest).
///   malicious   — a peer that deviates arbitrarily: every step it could
///                 cheat in is checked, and a failed check ends the run with
///                 tandem::security_error.
enum class security { semi_honest, malicious };

/// The adversary's name, for messages.
constexpr std::string_view to_string(security s) noexcept {
    return s == security::semi_honest ? "semi-honest" : "malicious";
}

/// The correlated OT extension that makes a malicious session's
/// authenticated bits (auth/bits.hpp; README, "Security"):
///   softspoken — SoftSpoken OT (the default): 4 bytes per COT, the fastest
///                where the link is not the limit;
///   silent     — silent OT (Ferret, ot/ferret.hpp): under half a bit per
///                COT, ~42 % fewer bytes per AND triple, more CPU per COT:
///                for slow links.
enum class cot_extension : unsigned char { softspoken, silent };

constexpr std::string_view to_string(cot_extension e) noexcept {
    return e == cot_extension::softspoken ? "SoftSpoken OT" : "silent OT";
}

}  // namespace tandem

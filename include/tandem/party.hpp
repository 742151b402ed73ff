// tandem/party.hpp — the two parties of a secure computation.
#pragma once

#include <cstdint>
#include <string_view>

namespace tandem {

/// Who owns an input (and, in a run, who learns an output). Alice is the
/// garbler of the sequential parts, Bob the evaluator (DESIGN §8).
enum class party : std::uint8_t { alice = 0, bob = 1 };

constexpr std::string_view to_string(party p) noexcept {
    return p == party::alice ? "alice" : "bob";
}

}  // namespace tandem

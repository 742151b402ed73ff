// tandem/party.hpp — the two parties of a secure computation.
#pragma once

#include <cstdint>
#include <string_view>

namespace tandem {

/// Who owns an input. Alice is the garbler of the sequential parts, Bob the
/// evaluator (docs/DESIGN.md §8).
enum class party : std::uint8_t { alice = 0, bob = 1 };

/// "alice" or "bob".
constexpr std::string_view to_string(party p) noexcept {
    return p == party::alice ? "alice" : "bob";
}

/// Who learns the outputs of a run, or a value opened in the middle of a
/// streamed run (tandem::open, dsl/stream.hpp).
enum class reveal : std::uint8_t { both = 0, alice = 1, bob = 2 };

/// Who learns, in words, for messages.
constexpr std::string_view to_string(reveal r) noexcept {
    return r == reveal::both ? "both parties" : r == reveal::alice ? "alice only" : "bob only";
}

}  // namespace tandem

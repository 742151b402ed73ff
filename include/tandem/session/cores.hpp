// tandem/session/cores.hpp — the cores a session runs, under the hash its
// parties agreed on: the one place where the garbling_hash option becomes a
// type. Everything around the cores (the engine, the executor, IPP's worlds,
// compiled and streamed runs) is compiled once and makes its cores here.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/session/options.hpp>

#include <memory>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// Makes garbler and evaluator cores on a session's links under one hash.
struct core_maker {
    std::unique_ptr<gc::core> (*garbler)(block hash_start, block delta, gc::channel_sink& sink);
    std::unique_ptr<gc::core> (*evaluator)(block hash_start, gc::channel_source& source);
};

template <tweakable_hash Hash>
inline constexpr core_maker cores_under{
    [](block hash_start, block delta, gc::channel_sink& sink) -> std::unique_ptr<gc::core> {
        return std::make_unique<gc::garbler_core<Hash, gc::channel_sink>>(hash_start, delta, sink);
    },
    [](block hash_start, gc::channel_source& source) -> std::unique_ptr<gc::core> {
        return std::make_unique<gc::evaluator_core<Hash, gc::channel_source>>(hash_start, source);
    }};

inline core_maker cores_for(garbling_hash h) noexcept {
    return h == garbling_hash::fixed_key ? cores_under<fixed_key_hash> : cores_under<rekeyed_hash>;
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END

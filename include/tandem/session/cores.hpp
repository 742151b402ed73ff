// tandem/session/cores.hpp — the cores a session runs, under the scheme and
// hash its parties agreed on: the one place where the garbling_scheme and
// garbling_hash options become types. Everything around the cores (the
// engine, the executor, IPP's worlds, compiled and streamed runs, MPI ranks)
// is compiled once and makes its cores here, and sizes their tables with
// the maker's tables() (gc/scheme.hpp).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/scheme.hpp>
#include <tandem/gc/three_halves.hpp>
#include <tandem/session/options.hpp>

#include <memory>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// Makes garbler and evaluator cores on a session's links under one scheme
/// and hash.
struct core_maker {
    std::unique_ptr<gc::core> (*garbler)(block hash_start, block delta, gc::channel_sink& sink);
    std::unique_ptr<gc::core> (*evaluator)(block hash_start, gc::channel_source& source);
    garbling_scheme scheme;
    /// What the tables of `ands` ANDs take (what an evaluator's source is allowed).
    gc::table_bytes_range tables(std::uint64_t ands) const noexcept { return gc::tables_of(scheme, ands); }
};

template <class Garbler, class Evaluator>
inline constexpr core_maker cores_under(garbling_scheme scheme) {
    return {[](block hash_start, block delta, gc::channel_sink& sink) -> std::unique_ptr<gc::core> {
                return std::make_unique<Garbler>(hash_start, delta, sink);
            },
            [](block hash_start, gc::channel_source& source) -> std::unique_ptr<gc::core> {
                return std::make_unique<Evaluator>(hash_start, source);
            },
            scheme};
}

template <tweakable_hash Hash>
inline core_maker cores_of(garbling_scheme s) noexcept {
    switch (s) {
    case garbling_scheme::half_gates:
        return cores_under<gc::garbler_core<Hash, gc::channel_sink>, gc::evaluator_core<Hash, gc::channel_source>>(s);
    case garbling_scheme::three_halves:
        return cores_under<gc::three_halves::garbler_core<Hash, gc::channel_sink>,
                           gc::three_halves::evaluator_core<Hash, gc::channel_source>>(s);
    }
    internal_error("cores_for: an unknown garbling scheme");
}

inline core_maker cores_for(garbling_hash h, garbling_scheme s = garbling_scheme::half_gates) {
    return h == garbling_hash::fixed_key ? cores_of<fixed_key_hash>(s) : cores_of<rekeyed_hash>(s);
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END

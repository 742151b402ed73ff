// tandem/dsl/compile_impl.hpp — the definitions of compile.hpp's
// segment_joiner. Included at the end of compile.hpp header-only; compiled
// once in src/core.cpp otherwise (detail/linkage.hpp).
#pragma once

#include <tandem/circuit/layout.hpp>
#include <tandem/detail/linkage.hpp>
#include <tandem/dsl/compile.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tandem::detail {

TANDEM_INLINE circuit_data segment_joiner::finish(circuit_data&& last) && {
    if (!started_) return std::move(last);  // one segment: as laid out
    all_.outputs = std::move(last.outputs);
    all_.output_slots = std::move(last.output_slots);
    append(std::move(last));
    drop_dead_gates(all_);
    return std::move(all_);
}

TANDEM_INLINE void segment_joiner::append(circuit_data&& d) {
    if (!started_) {
        started_ = true;
        all_.inputs = std::move(d.inputs);
        all_.input_bits = d.input_bits;
        all_.wire_count = d.input_bits;
    }
    const auto g0 = static_cast<std::uint32_t>(all_.gates.size());
    const auto l0 = static_cast<std::uint32_t>(all_.levels.size());
    const auto r0 = static_cast<std::uint32_t>(all_.regions.size());
    if (std::uint64_t{g0} + d.gates.size() > output_false)
        throw usage_error("tandem::compile: the circuit exceeds 2^32 gates; stream it instead (tandem::stream)");
    all_.gates.append(d.gates.begin(), d.gates.end());
    d.gates.release();
    for (const level_range& lv : d.levels) all_.levels.push_back({lv.and_begin + g0, lv.xor_begin + g0, lv.end + g0});
    for (step st : d.steps) {
        st.level_begin += l0;
        st.level_end += l0;
        if (st.kind == step_kind::region) st.region += r0;
        append_step(all_.steps, st);
    }
    for (region_data& r : d.regions) all_.regions.push_back(std::move(r));
    all_.wire_count += d.wire_count - d.input_bits;
    all_.slot_count = std::max(all_.slot_count, d.slot_count);
}

}  // namespace tandem::detail

// tandem/circuit/layout.hpp — turns a recording into the levelled, slotted circuit.
//
// Run once at the end of compile (docs/DESIGN.md §3), in three linear passes, after
// common subexpressions are merged (pass 0, merge_common_subexpressions):
//  1. backwards, in record order: dead-gate removal — a gate nobody reads
//     (use count 0) is dropped and stops using its operands, so whole dead
//     cones vanish — while counting the live gates of each bucket
//     2*level + (kind != AND). A builder counts the buckets as it records and
//     knows how many gates are unread when it closes a recording; with none
//     (the common case) this pass is skipped;
//  2. forwards, in record order: levelling, a stable counting sort into those
//     buckets. Record order is topological, so the XORs of a level stay in
//     topological order and an AND of level L reads only levels < L. Operands
//     are renamed to "nodes": input bit k is node k, the gate at levelled
//     position p is node input_bits + p;
//  3. in levelled order: slot assignment by reference counting. A node's slot
//     is released when its last reader has run and handed out again from the
//     *next* level on, so no gate of a level overwrites a slot another gate
//     of that level still reads — FGP may run a level's ANDs in any order.
//     A level's ANDs write increasing slots in gate order, so the parts FGP
//     cuts it into write disjoint cache lines but at their boundaries
//     (sort_slots).
// Passes 1 and 2 touch the operands of a gate near it in record order, pass 3
// near it in levelled order, so lookups hit recently used memory. A streamed
// run's segment skips pass 3: its wires' ids are their slots (lay_out_by_id).
#pragma once

#include <tandem/circuit/builder.hpp>
#include <tandem/circuit/circuit_data.hpp>
#include <tandem/circuit/fingerprint.hpp>
#include <tandem/detail/big_vector.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

namespace tandem::detail {

/// The bucket a live gate is levelled into: its level's ANDs, then its XORs and NOTs.
/// From level_kind = level << 2 | kind it is (level_kind + 1) >> 1, two
/// instructions on the scatter's path, as long as the kind codes keep ANDs at
/// 0 and the free kinds at 1 and 2 (checked below: a new kind revisits this).
inline std::size_t bucket_of(std::uint32_t level_kind) noexcept { return (std::size_t{level_kind} + 1) >> 1; }
static_assert([] {
    for (unsigned k = 0; k < gate_kind_count; ++k)
        if (((k + 1) >> 1) != (is_free(static_cast<gate_kind>(k)) ? 1u : 0u)) return false;
    return gate_kind_count <= 3;
}(), "bucket_of's (level_kind + 1) >> 1 needs AND = 0 and the free kinds = 1, 2");
inline std::size_t bucket_of(const recorded_gate& x) noexcept { return bucket_of(x.level_kind); }

/// Pass 0, forwards in record order: exact structural common subexpressions.
/// Two gates of the same kind reading the same operands (unordered for AND
/// and XOR) compute the same bit, so the later one's readers read the first
/// one instead: the duplicate's use count falls to 0 and pass 1 drops it, and
/// with it whatever only it kept alive. Operands are renamed before a gate is
/// looked up, so a chain of duplicates collapses in this one pass. A merged
/// gate's representative goes into its not_of field (the NOT cache is not
/// needed once recording is over, and pass 2 overwrites the field). Region outputs
/// are not gates and are never merged; the region instances' imports and the
/// outputs are renamed, except the first `kept` outputs: a streamed or
/// compiled segment carries those into the next segment as distinct inputs in
/// slots of their own, and two carried inputs sharing a slot would free it
/// twice. A pure function of the recording (no addresses, no seeds), so both
/// parties, and a Bristol export read back, lay out the same circuit.
/// A representative never sits above its duplicates: if the first gate is
/// levelled higher (its recorded operands were later duplicates of the
/// duplicate's), it moves down to the duplicate's level — its renamed
/// operands are the duplicate's, which sit below that level. An AND whose
/// two operands become one wire r is r; an XOR of r with r keeps its recorded
/// operands (x ^ x is 0, and lay-out makes no constants), so one duplicate
/// it reads stays.
///
/// The lookup: every gate kept so far is on the reader list of each of its
/// operands (newest first), and a gate looks for its twin on the shorter of
/// its two operands' lists. A duplicate reads both operands, so it is on
/// both lists, and only gates kept are listed, so there is at most one twin
/// and either list finds the same one. The lists live in arrays of a few
/// bytes per wire, indexed by wire id, next to the gates they describe (most
/// operands were made a few gates before).
///
/// Recordings made by a builder are merged as they are recorded
/// (builder::emit, rec.deduplicated) and skip this pass; it serves region
/// bodies, which are recorded in a canonical form of their own (bodies are
/// small, and shared by their instances).
/// Returns the number of gates merged.
std::uint64_t merge_common_subexpressions(recording& rec, std::uint32_t kept);

/// Sorts the output slots a level's ANDs take, which then go to the ANDs in
/// increasing order of gate position. FGP cuts a level's ANDs into contiguous
/// runs of gates (exec::plan::level_part), so every slot part k writes is
/// below every slot part k + 1 writes: two parts share a 64-byte line of
/// labels (4 slots) only where the last output of one meets the first of the
/// next, at most one line per part boundary, for any number of parts. Slots
/// in pool order would interleave the parts' outputs within lines, and two
/// cores writing one line pass it back and forth (false sharing).
/// The pools hand slots out last-released first, so a level's slots often
/// come in one increasing or decreasing run: a scan or a reverse. Otherwise
/// a least-significant-digit radix sort (as many passes as the largest
/// slot has digits): std::sort of every level's slots made the layout
/// alone 2-3x slower (bench_record --quick), its branches mispredicting.
/// `scratch` is a buffer for the radix passes, kept across levels.
void sort_slots(std::vector<std::uint32_t>& s, std::vector<std::uint32_t>& scratch);

/// After pass 2: every bucket got exactly the gates pass 1 (or the builder's
/// counts) promised it — else the levels would hold gaps.
void check_buckets_filled(const std::vector<std::uint32_t>& next, const std::vector<std::uint32_t>& bucket_start);

/// Pass 2 of a streamed segment (lay_out with `by_id`): levels the live gates
/// into their buckets in record order. Every wire keeps its id as its slot
/// (stream_segment, circuit/builder.hpp), so operands, outputs and region
/// wire maps need no renaming, and a level's ANDs, placed in record order,
/// write increasing slots (sort_slots' purpose, for free). (The gates'
/// digest was chained as they were recorded: fingerprint.hpp, gate_chain.)
void lay_out_by_id(recording& rec, const std::vector<std::uint32_t>& bucket_start, circuit_data& out);

/// With `pool` (a compile's segment, docs/DESIGN.md §11), input bit k already
/// sits in slot rec.input_slots[k], slots come from and return to the
/// compile's pool, and slot_count is the pool's size; without it, input bit k
/// starts in slot k.
///
/// `by_id` (a streamed run's segment, no pool) replaces pass 3: every wire's
/// slot is its id, so no slot is reused inside the segment and no gate can
/// overwrite a wire another still reads, in any order; slot_count is the
/// segment's wire count (what is carried in plus one segment's inputs and
/// gates, bounded by K, not by the function's size), and layout skips the
/// reference-counting pass, the pool and the sort of slots. A compile keeps
/// pass 3: its slot count is the stored circuit's working set for every later
/// run. The first `kept` outputs (carried wires) are never merged.
circuit_data lay_out(recording&& rec, slot_pool* pool = nullptr, bool by_id = false, std::uint32_t kept = 0);

/// Appends `st` to `steps`, extending the last step instead when both are
/// runs of sequential levels that meet (a run continues across a cut, or
/// across levels that emptied).
inline void append_step(std::vector<step>& steps, const step& st) {
    if (st.kind == step_kind::sequential && !steps.empty() && steps.back().kind == step_kind::sequential &&
        steps.back().level_end == st.level_begin)
        steps.back().level_end = st.level_end;
    else
        steps.push_back(st);
}

/// Drops the gates of a laid-out circuit whose results nothing reads, by
/// liveness of slots, backwards in execution order: a gate lives if a living
/// gate, region instance or output reads its slot before the slot is written
/// again. Then compacts the levels and drops those left empty. A compile laid
/// out by segments needs it once at the end: a value alive at a cut but never
/// used afterwards kept its gates in its segment. Region instances are kept
/// (their bodies are shared), as lay_out keeps them. Returns the gates dropped.
std::uint64_t drop_dead_gates(circuit_data& c);

}  // namespace tandem::detail

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/circuit/layout_impl.hpp>
#endif

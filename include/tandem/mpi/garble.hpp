// tandem/mpi/garble.hpp — garbling a circuit with the plan's workers as MPI
// ranks (issue 31, docs/DESIGN.md §12): rank 0 runs the plan (exec/) with
// worker 0 on itself and, for every worker w ≥ 1, a remote_core that ships
// w's region parts to rank w, which garbles them into its own table sink.
//
// Per region part (rank 0 → rank w, then back):
//
//   → work      region, first and end instance, first tweak (4 × 8 bytes)
//   → labels    the 0-labels the part's instances read (16 bytes each)
//   ← reply     a status (0 ok, else the length of rank w's error message),
//               the tweak after the part, then the part's output 0-labels
//               (16 bytes each) or the message
//   → stop      once the run is over (after a failure too), so every rank's
//               loop ends
//
// Δ and the hash start go from rank 0 to every rank once per run (MPI_Bcast;
// they never leave the party). Every rank holds the same circuit (an SPMD
// program compiles it on each): its fingerprint is compared first. The plan
// keeps sequential steps and levels on rank 0 (no FGP across ranks: a level's
// parts would cost a round trip each).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/mpi/ranks.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::mpi {

namespace detail {
inline constexpr int work_tag = 3101, labels_tag = 3102, reply_tag = 3103;
inline constexpr std::uint64_t stop_work = ~std::uint64_t{0};

/// MPI_Recv that sleeps between polls: a blocking receive spins in MPI's
/// progress engine, and rank 0's thread waiting for rank w's part would take
/// the core from rank 0's own part (bench/RESULTS.md: 2 ranks on 2 cores
/// garbled BioMatch at 1.2× one rank so). The rests double from 10 µs to
/// 500 µs: a small part (a reduction's last levels) is answered within
/// microseconds, a large one costs a few wake-ups per millisecond.
inline void receive_resting(void* p, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm) {
    MPI_Request request;
    check(MPI_Irecv(p, count, type, from, tag, comm, &request), "MPI_Irecv");
    for (std::chrono::microseconds rest{10};; rest = std::min(2 * rest, std::chrono::microseconds(500))) {
        int done = 0;
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) return;
        std::this_thread::sleep_for(rest);
    }
}

/// The labels at the input slots (or the output slots) of instances
/// [begin, end) of r, in order: what goes to a rank (or comes back).
/// An unused output slot gives a zero block.
inline void gather(const region_data& r, std::uint32_t begin, std::uint32_t end, bool outputs,
                   const gc::detail::label_array& outer, std::vector<block>& into) {
    into.clear();
    for (std::uint32_t i = begin; i < end; ++i)
        for (const std::uint32_t s : outputs ? r.outputs_of(r.instances[i]) : r.inputs_of(r.instances[i]))
            into.push_back(s != unused_slot ? outer[s] : block());
}
/// The reverse: labels, in gather's order, into their slots.
inline void scatter(const region_data& r, std::uint32_t begin, std::uint32_t end, bool outputs,
                    std::span<const block> labels, gc::detail::label_array& outer) {
    std::size_t k = 0;
    for (std::uint32_t i = begin; i < end; ++i)
        for (const std::uint32_t s : outputs ? r.outputs_of(r.instances[i]) : r.inputs_of(r.instances[i])) {
            if (s != unused_slot) outer[s] = labels[k];
            ++k;
        }
}
/// Slots that instances [begin, end) of r read (or write).
inline std::size_t slots_of(const region_data& r, std::uint32_t begin, std::uint32_t end, bool outputs) {
    std::size_t n = 0;
    for (std::uint32_t i = begin; i < end; ++i)
        n += outputs ? r.outputs_of(r.instances[i]).size() : r.inputs_of(r.instances[i]).size();
    return n;
}

/// Sends or receives n blocks, in pieces an int count can hold.
inline void send_blocks(const block* p, std::size_t n, int to, int tag, MPI_Comm comm) {
    constexpr std::size_t most = std::numeric_limits<int>::max() / sizeof(block);
    do {
        const std::size_t k = std::min(n, most);
        check(MPI_Send(p, static_cast<int>(k * sizeof(block)), MPI_BYTE, to, tag, comm), "MPI_Send");
        p += k;
        n -= k;
    } while (n != 0);
}
inline void recv_blocks(block* p, std::size_t n, int from, int tag, MPI_Comm comm) {
    constexpr std::size_t most = std::numeric_limits<int>::max() / sizeof(block);
    do {
        const std::size_t k = std::min(n, most);
        check(MPI_Recv(p, static_cast<int>(k * sizeof(block)), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
        p += k;
        n -= k;
    } while (n != 0);
}
}  // namespace detail

/// The plan for a circuit garbled over r's ranks: one worker per rank,
/// regions split as in one process, sequential levels kept whole on rank 0
/// (no FGP across ranks: the executor splits a level by the plan's
/// fgp_min_ands when it runs it). worker_ands, which only an evaluator's
/// table sources read, then counts FGP parts where the plan first put them.
inline exec::plan rank_plan(const circuit<>& c, const ranks& r) {
    exec::plan p = exec::make_plan(c, static_cast<std::uint32_t>(r.size()));
    p.fgp_min_ands = std::numeric_limits<std::uint32_t>::max();
    return p;
}

/// Rank 0's stand-in for worker w, which runs on rank w: the region parts
/// the plan gives w go there with the labels they read; their output labels
/// come back into the label array. Called from w's executor thread
/// (environment asks MPI for MPI_THREAD_MULTIPLE).
class remote_core final : public gc::core {
public:
    remote_core(const circuit_data& c, int rank, MPI_Comm comm) : c_(c), rank_(rank), comm_(comm) {}

    std::uint64_t instances(const region_data& r, std::uint32_t begin, std::uint32_t end,
                            gc::detail::label_array& outer, std::uint64_t first_and) override {
        const auto region = static_cast<std::uint64_t>(&r - c_.regions.data());
        const std::uint64_t work[4] = {region, begin, end, first_and};
        check(MPI_Send(work, 4, MPI_UINT64_T, rank_, detail::work_tag, comm_), "MPI_Send");
        detail::gather(r, begin, end, false, outer, labels_);
        detail::send_blocks(labels_.data(), labels_.size(), rank_, detail::labels_tag, comm_);
        std::uint64_t head[2];
        detail::receive_resting(head, 2, MPI_UINT64_T, rank_, detail::reply_tag, comm_);
        if (head[0] != 0) {
            std::string why(head[0], '\0');
            check(MPI_Recv(why.data(), static_cast<int>(why.size()), MPI_CHAR, rank_, detail::reply_tag, comm_,
                           MPI_STATUS_IGNORE),
                  "MPI_Recv");
            throw error("tandem::mpi: rank " + std::to_string(rank_) + " failed garbling its region part: " + why);
        }
        labels_.resize(detail::slots_of(r, begin, end, true));
        detail::recv_blocks(labels_.data(), labels_.size(), rank_, detail::reply_tag, comm_);
        detail::scatter(r, begin, end, true, labels_, outer);
        tandem::detail::wipe_all(labels_);
        return head[1];
    }
    std::uint64_t levels(const circuit_data&, gc::detail::label_array&, std::uint32_t, std::uint32_t,
                         std::uint64_t) override {
        tandem::detail::internal_error("mpi::remote_core: a remote rank runs region parts only");
    }
    void ands(const gate*, gc::detail::label_array&, std::uint32_t, std::uint32_t, std::uint64_t) override {
        tandem::detail::internal_error("mpi::remote_core: a remote rank runs region parts only (no FGP across ranks)");
    }
    void linear(const circuit_data&, gc::detail::label_array&, std::uint32_t, std::uint32_t) override {
        tandem::detail::internal_error("mpi::remote_core: a remote rank runs region parts only");
    }
    void flush() override {}  // the rank flushes its own sink

private:
    const circuit_data& c_;
    int rank_;
    MPI_Comm comm_;
    std::vector<block> labels_;
};

/// Garbles c over r's ranks, every rank calling it with the same circuit:
/// rank 0 with the input encoding (Δ, the input 0-labels) and the hash
/// start, the others with anything (they receive both); each rank's sink
/// takes the tables of the parts that rank garbles, in order — worker w's
/// tables, exactly those exec::garble writes to sink w for the same plan
/// (rank_plan). Returns the garbled outputs on rank 0, nullopt on the others.
/// A failure on any rank is an error on every rank naming it.
template <tweakable_hash Hash, gc::table_sink Sink>
std::optional<gc::garbled_outputs> garble(const ranks& r, const circuit<>& circ, const gc::encoding& input,
                                          block hash_start, Sink& sink) {
    const circuit_data& c = circ.data();
    std::exception_ptr failed;
    std::uint64_t fingerprint[2] = {circ.fingerprint().hi, circ.fingerprint().lo};
    std::uint64_t rank0s[2] = {fingerprint[0], fingerprint[1]};
    check(MPI_Bcast(rank0s, 2, MPI_UINT64_T, 0, r.comm()), "MPI_Bcast");
    if (rank0s[0] != fingerprint[0] || rank0s[1] != fingerprint[1])
        failed = std::make_exception_ptr(usage_error(
            "tandem::mpi::garble: this rank holds another circuit than rank 0; every rank must build the same one"));
    r.agree(failed, "comparing the circuit");
    block keys[2] = {input.delta, hash_start};  // Δ stays inside the party
    check(MPI_Bcast(keys, static_cast<int>(sizeof keys), MPI_BYTE, 0, r.comm()), "MPI_Bcast");
    const exec::plan p = rank_plan(circ, r);
    std::optional<gc::garbled_outputs> out;
    if (r.rank() == 0) {
        try {
            gc::detail::check_labels(c, input.zero_labels.size(), "mpi::garble");
            if (!input.delta.lsb()) throw usage_error("mpi::garble: Δ must have lsb 1 (point-and-permute)");
            exec::check_plan_fits(p, c);
            gc::detail::label_array label = gc::detail::input_slots(c, input.zero_labels);
            exec::detail::run_cores(
                p, c,
                [&](std::uint32_t w) -> std::unique_ptr<gc::core> {
                    if (w == 0) return std::make_unique<gc::garbler_core<Hash, Sink>>(hash_start, input.delta, sink);
                    return std::make_unique<remote_core>(c, static_cast<int>(w), r.comm());
                },
                label, 0, nullptr, {});
            out = gc::detail::finish_garbling(c, label, p.and_gates);
        } catch (...) {
            failed = std::current_exception();
        }
        const std::uint64_t stop[4] = {detail::stop_work, 0, 0, 0};
        for (int w = 1; w < r.size(); ++w)
            check(MPI_Send(stop, 4, MPI_UINT64_T, w, detail::work_tag, r.comm()), "MPI_Send");
    } else {
        gc::garbler_core<Hash, Sink> core(keys[1], keys[0], sink);
        gc::detail::label_array outer(c.slot_count);
        std::vector<block> labels;
        for (;;) {
            std::uint64_t work[4];
            check(MPI_Recv(work, 4, MPI_UINT64_T, 0, detail::work_tag, r.comm(), MPI_STATUS_IGNORE), "MPI_Recv");
            if (work[0] == detail::stop_work) break;
            const region_data& reg = c.regions.at(work[0]);
            const auto begin = static_cast<std::uint32_t>(work[1]), end = static_cast<std::uint32_t>(work[2]);
            labels.resize(detail::slots_of(reg, begin, end, false));
            detail::recv_blocks(labels.data(), labels.size(), 0, detail::labels_tag, r.comm());
            std::uint64_t head[2] = {0, 0};
            std::string why;
            try {
                detail::scatter(reg, begin, end, false, labels, outer);
                head[1] = core.instances(reg, begin, end, outer, work[3]);
                core.flush();
                detail::gather(reg, begin, end, true, outer, labels);
            } catch (const std::exception& e) {
                why = e.what();
                if (why.empty()) why = "an error without a message";
                if (!failed) failed = std::current_exception();
            }
            head[0] = why.size();
            check(MPI_Send(head, 2, MPI_UINT64_T, 0, detail::reply_tag, r.comm()), "MPI_Send");
            if (!why.empty())
                check(MPI_Send(why.data(), static_cast<int>(why.size()), MPI_CHAR, 0, detail::reply_tag, r.comm()),
                      "MPI_Send");
            else
                detail::send_blocks(labels.data(), labels.size(), 0, detail::reply_tag, r.comm());
            tandem::detail::wipe_all(labels);
        }
        tandem::detail::wipe_all(outer);
    }
    tandem::detail::wipe(keys, sizeof keys);
    r.agree(failed, "garbling");
    return out;
}

}  // namespace tandem::mpi

TANDEM_CRYPTO_END

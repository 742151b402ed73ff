// tandem/mpi/worker.hpp — region parts run by the other ranks of a party
// (issue 31, docs/DESIGN.md §12). Rank 0 runs the plan (exec/); for worker
// w ≥ 1 it holds a remote_core, which ships each region part w is given to
// rank w; rank w runs it (serve) on a core of its own — a garbler or an
// evaluator on its own link to the peer's rank w (mpi/session.hpp), or a
// garbler into a table sink (mpi/garble.hpp) — and sends the outputs back.
//
// Per region part (rank 0 → rank w, then back):
//
//   → header    part_header: the part's instance count and first tweak, the
//               hash and its start S, Δ if rank w garbles, and the size of
//               the bodies that follow (0: the ones sent last)
//   → bodies    the region's bodies (put_bodies), when they changed: rank w
//               needs no circuit of its own, so streamed segments, compiled
//               runs and anything a program records on rank 0 alone run there
//   → kinds     each instance's body (4 bytes each)
//   → labels    the labels the part's instances read (16 bytes each)
//   ← reply     a status (0 ok, else the length of rank w's error message),
//               the tweak after the part, then the part's output labels or
//               the message
//   → stop      a header saying so, when rank 0 is done (after a failure too)
//
// Δ never leaves the party. Every rank runs the same build of the program
// (an MPI job does), so headers and gates travel as the bytes they are.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/mpi/liveness.hpp>
#include <tandem/mpi/ranks.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::mpi {

namespace detail {
/// Message tags; each world (IPP) has its own set, `world_tags` apart, so
/// that a rank serves both worlds at once on two threads.
inline constexpr int work_tag = 3101, bodies_tag = 3102, kinds_tag = 3103, labels_tag = 3104, reply_tag = 3105;
inline constexpr int world_tags = 10;

/// What rank 0 says first about a region part (or that there are no more,
/// or a request of another kind: serve's `other`).
struct part_header {
    static constexpr std::uint64_t part = 1, stop = 2, triple_setup = 3, triples = 4;
    std::uint64_t op = stop;
    std::uint64_t instances = 0;
    std::uint64_t first_and = 0;
    std::uint64_t body_words = 0;  ///< 32-bit words of bodies that follow; 0: the last ones sent
    std::uint64_t hash = 0;        ///< garbling_hash (sessions; mpi::garble's rank knows its hash)
    std::uint64_t scheme = 0;      ///< garbling_scheme (sessions; mpi::garble's is half-gates)
    std::uint64_t garbles = 0;     ///< 1: rank w garbles under `delta`; 0: it evaluates
    std::uint64_t extension = 0;   ///< triple_setup: the session's cot_extension
    block hash_start{}, delta{};
    block seed{};  ///< triple_setup: the rank's PRG seed
};
static_assert(std::is_trivially_copyable_v<part_header>);

/// MPI_Recv that sleeps between polls: a blocking receive spins in MPI's
/// progress engine, and a rank waiting for another would take a core from
/// the rank doing the work (bench/RESULTS.md: 2 ranks on 2 cores garbled
/// BioMatch at 1.2× one rank so). The rests double from 10 µs to 500 µs: a
/// small part (a reduction's last levels) is answered within microseconds, a
/// long wait costs a few wake-ups per millisecond. For `yield_for` first it
/// only yields between polls: a rank that waits for its next part on a core
/// of its own answers within microseconds (a rest could cost 0.5 ms per
/// part), and on a shared core it gives way. With a `live` watch on the
/// sender, it throws once the sender has been silent for the timeout (the
/// receive is cancelled first).
inline void receive_resting(void* p, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm,
                            liveness* live = nullptr,
                            std::chrono::microseconds yield_for = std::chrono::microseconds(0)) {
    MPI_Request request;
    check(MPI_Irecv(p, count, type, from, tag, comm, &request), "MPI_Irecv");
    std::optional<liveness::watch> watch;
    if (live) watch.emplace(*live, from);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::chrono::microseconds rest{10};;) {
        int done = 0;
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) return;
        if (std::chrono::steady_clock::now() - t0 < yield_for) {
            std::this_thread::yield();
            continue;
        }
        try {
            if (watch) watch->check();
        } catch (...) {
            MPI_Cancel(&request);
            MPI_Request_free(&request);
            throw;
        }
        std::this_thread::sleep_for(rest);
        rest = std::min(2 * rest, std::chrono::microseconds(500));
    }
}

/// How long a rank serving parts yields, not rests, waiting for the next one.
inline constexpr std::chrono::microseconds serve_yield_for{5000};

/// Waits for `requests` (sends to rank `to`) to complete, resting between
/// tests as receive_resting does, and keeping its `live` watch on `to`: if
/// that rank is lost, the requests are freed (never to complete) and the
/// watch's error thrown.
inline void wait_resting(std::vector<MPI_Request>& requests, int to, liveness* live = nullptr) {
    std::optional<liveness::watch> watch;
    if (live) watch.emplace(*live, to);
    for (std::chrono::microseconds rest{10};; rest = std::min(2 * rest, std::chrono::microseconds(500))) {
        int done = 0;
        check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
        if (done) break;
        try {
            if (watch) watch->check();
        } catch (...) {
            for (MPI_Request& q : requests)
                if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
            requests.clear();
            throw;
        }
        std::this_thread::sleep_for(rest);
    }
    requests.clear();
}

/// Starts sending n items of T as bytes (in pieces an int count can hold),
/// adding the requests to `requests`; the items must stay until they complete.
template <class T>
void start_send(const T* p, std::size_t n, int to, int tag, MPI_Comm comm, std::vector<MPI_Request>& requests) {
    static_assert(std::is_trivially_copyable_v<T>);
    constexpr std::size_t most = std::numeric_limits<int>::max() / sizeof(T);
    do {
        const std::size_t k = std::min(n, most);
        requests.emplace_back();
        check(MPI_Isend(p, static_cast<int>(k * sizeof(T)), MPI_BYTE, to, tag, comm, &requests.back()), "MPI_Isend");
        p += k;
        n -= k;
    } while (n != 0);
}

/// Sends or receives n items of T as bytes, in pieces an int count can hold.
template <class T>
void send_all(const T* p, std::size_t n, int to, int tag, MPI_Comm comm) {
    static_assert(std::is_trivially_copyable_v<T>);
    constexpr std::size_t most = std::numeric_limits<int>::max() / sizeof(T);
    do {
        const std::size_t k = std::min(n, most);
        check(MPI_Send(p, static_cast<int>(k * sizeof(T)), MPI_BYTE, to, tag, comm), "MPI_Send");
        p += k;
        n -= k;
    } while (n != 0);
}
template <class T>
void recv_all(T* p, std::size_t n, int from, int tag, MPI_Comm comm) {
    static_assert(std::is_trivially_copyable_v<T>);
    constexpr std::size_t most = std::numeric_limits<int>::max() / sizeof(T);
    do {
        const std::size_t k = std::min(n, most);
        check(MPI_Recv(p, static_cast<int>(k * sizeof(T)), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
        p += k;
        n -= k;
    } while (n != 0);
}

/// The head of rank `from`'s reply to a request (serve): its value — or,
/// when the rank failed `doing` it, its message, thrown naming the rank.
/// The wait keeps the `live` watch on the rank.
inline std::uint64_t receive_reply(int from, int tag, MPI_Comm comm, liveness* live, const char* doing) {
    std::uint64_t head[2];
    receive_resting(head, 2, MPI_UINT64_T, from, tag, comm, live);
    if (head[0] != 0) {
        std::string why(head[0], '\0');
        recv_all(why.data(), why.size(), from, tag, comm);
        throw error("tandem::mpi: rank " + std::to_string(from) + " failed " + doing + ": " + why);
    }
    return head[1];
}

/// The labels at the input slots (or the output slots) of instances
/// [begin, end) of r, in order: what goes to a rank (or comes back).
/// An unused output slot gives a zero block.
inline void gather(const region_data& r, std::uint32_t begin, std::uint32_t end, bool outputs,
                   const gc::detail::label_array& outer, std::vector<block>& into) {
    const auto slots = [&](std::uint32_t i) {
        return outputs ? r.outputs_of(r.instances[i]) : r.inputs_of(r.instances[i]);
    };
    std::size_t n = 0;
    for (std::uint32_t i = begin; i < end; ++i) n += slots(i).size();
    into.resize(n);  // sized first: megabytes of labels pushed one by one took twice as long
    block* to = into.data();
    for (std::uint32_t i = begin; i < end; ++i)
        for (const std::uint32_t s : slots(i)) *to++ = s != unused_slot ? outer[s] : block();
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

/// A region's bodies as 32-bit words: their count, then per body its input
/// bits, slots, gate, level and output counts, its gates (in0, in1, out,
/// kind), levels and output slots — what running an instance reads
/// (gc::detail::step_runner).
inline void put_bodies(const region_data& r, std::vector<std::uint32_t>& w) {
    w.clear();
    w.push_back(static_cast<std::uint32_t>(r.bodies.size()));
    for (const circuit_data& b : r.bodies) {
        w.insert(w.end(), {b.input_bits, b.slot_count, static_cast<std::uint32_t>(b.gates.size()),
                           static_cast<std::uint32_t>(b.levels.size()),
                           static_cast<std::uint32_t>(b.output_slots.size())});
        for (const gate& g : b.gates) w.insert(w.end(), {g.in0, g.in1, g.out, static_cast<std::uint32_t>(g.kind)});
        for (const level_range& l : b.levels) w.insert(w.end(), {l.and_begin, l.xor_begin, l.end});
        w.insert(w.end(), b.output_slots.begin(), b.output_slots.end());
    }
}
/// put_bodies' words back into bodies (from a rank of this party, which runs
/// this very program: a short message is a bug, not an attack).
inline std::vector<circuit_data> take_bodies(std::span<const std::uint32_t> w) {
    std::size_t at = 0;
    const auto next = [&](std::size_t n) {
        if (w.size() - at < n) tandem::detail::internal_error("mpi: a region's bodies arrived cut short");
        const std::uint32_t* p = w.data() + at;
        at += n;
        return p;
    };
    std::vector<circuit_data> bodies(*next(1));
    for (circuit_data& b : bodies) {
        const std::uint32_t* h = next(5);
        b.input_bits = h[0], b.slot_count = h[1];
        b.gates.resize(h[2]);
        b.levels.resize(h[3]);
        b.output_slots.resize(h[4]);
        for (gate& g : b.gates) {
            const std::uint32_t* x = next(4);
            g = gate{x[0], x[1], x[2], static_cast<gate_kind>(x[3])};
        }
        for (level_range& l : b.levels) {
            const std::uint32_t* x = next(3);
            l = level_range{x[0], x[1], x[2]};
        }
        const std::uint32_t* o = next(b.output_slots.size());
        std::copy(o, o + b.output_slots.size(), b.output_slots.begin());
    }
    return bodies;
}
}  // namespace detail

/// What rank 0 remembers of the rank behind a remote_core across runs: the
/// bodies it holds, so that a region's are sent once, not with every part.
struct rank_cache {
    std::vector<std::uint32_t> bodies;  ///< put_bodies words last sent
    bool holds = false;
};

/// Rank 0's stand-in for worker w, which runs on rank w: the region parts
/// the plan gives w go there with the labels they read, and their output
/// labels come back into the label array. instances(), on worker w's
/// thread of the executor (a thread per worker: exec::workers, tasks that
/// block), starts the messages without waiting (the receiver copies them
/// from this process itself, Open MPI's CMA), then waits for them and the
/// reply resting — a blocking send or receive would
/// spin on the core worker 0's part runs on (environment asks MPI for
/// MPI_THREAD_MULTIPLE). Runs region parts only: plans over ranks keep
/// levels whole (exec::plan::split_levels).
class remote_core final : public gc::core {
public:
    /// `base` holds what every part of this run shares (hash, its start, Δ).
    /// `world` picks the tags (and so rank w's serving thread and link).
    /// With `live`, every wait on the rank keeps its deadline (mpi/liveness.hpp).
    remote_core(int rank, MPI_Comm comm, const detail::part_header& base, rank_cache& cache, int world = 0,
                liveness* live = nullptr)
        : rank_(rank), comm_(comm), tags_(world * detail::world_tags), base_(base), cache_(cache), live_(live) {}
    ~remote_core() override {
        if (part_.region) {  // handed over, never collected (the run failed first): the rank runs it and answers
            try {
                collect();
            } catch (...) {  // its error, or its loss, is reported where the run failed
            }
        }
        tandem::detail::wipe(&base_, sizeof base_);
        tandem::detail::wipe(&header_, sizeof header_);
        tandem::detail::wipe_all(labels_);
    }
    remote_core(const remote_core&) = delete;
    remote_core& operator=(const remote_core&) = delete;

    std::uint64_t instances(const region_data& r, std::uint32_t begin, std::uint32_t end,
                            gc::detail::label_array& outer, std::uint64_t first_and) override {
        hand_over(r, begin, end, outer, first_and);
        const std::uint64_t next = collect();
        detail::scatter(r, begin, end, true, labels_, outer);
        tandem::detail::wipe_all(labels_);
        return next;
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
    void flush() override {}  // the rank flushes its own tables

private:
    /// Sends part [begin, end) of r to the rank, with the labels it reads.
    void hand_over(const region_data& r, std::uint32_t begin, std::uint32_t end, const gc::detail::label_array& outer,
                   std::uint64_t first_and) {
        if (!requests_.empty()) tandem::detail::internal_error("mpi::remote_core: a part handed over twice");
        detail::put_bodies(r, words_);
        const bool fresh = !cache_.holds || words_ != cache_.bodies;
        header_ = base_;
        header_.op = detail::part_header::part;
        header_.instances = end - begin;
        header_.first_and = first_and;
        header_.body_words = fresh ? words_.size() : 0;
        kinds_.clear();
        for (std::uint32_t i = begin; i < end; ++i) kinds_.push_back(r.instances[i].body);
        detail::gather(r, begin, end, false, outer, labels_);
        cache_.holds = false;  // until the bodies are sent
        detail::start_send(&header_, 1, rank_, tags_ + detail::work_tag, comm_, requests_);
        if (fresh) {
            cache_.bodies.swap(words_);
            detail::start_send(cache_.bodies.data(), cache_.bodies.size(), rank_, tags_ + detail::bodies_tag, comm_, requests_);
        }
        detail::start_send(kinds_.data(), kinds_.size(), rank_, tags_ + detail::kinds_tag, comm_, requests_);
        detail::start_send(labels_.data(), labels_.size(), rank_, tags_ + detail::labels_tag, comm_, requests_);
        part_ = {&r, begin, end};
    }

    /// Waits for the part handed over and its reply: the output labels into
    /// labels_; returns the tweak after the part, or throws the rank's error.
    std::uint64_t collect() {
        const handed part = part_;
        part_ = {};
        detail::wait_resting(requests_, rank_, live_);
        cache_.holds = true;
        tandem::detail::wipe(&header_, sizeof header_);
        const std::uint64_t next =
            detail::receive_reply(rank_, tags_ + detail::reply_tag, comm_, live_, "running its region part");
        std::size_t outputs = 0;
        for (std::uint32_t i = part.begin; i < part.end; ++i)
            outputs += part.region->outputs_of(part.region->instances[i]).size();
        labels_.resize(outputs);
        detail::recv_all(labels_.data(), labels_.size(), rank_, tags_ + detail::reply_tag, comm_);
        return next;
    }

    struct handed {
        const region_data* region = nullptr;
        std::uint32_t begin = 0, end = 0;
    };
    int rank_;
    MPI_Comm comm_;
    int tags_;
    detail::part_header base_, header_;
    rank_cache& cache_;
    liveness* live_;
    handed part_;
    std::vector<std::uint32_t> words_, kinds_;
    std::vector<block> labels_;
    std::vector<MPI_Request> requests_;
};

/// What a serving rank does besides region parts (malicious sessions: AND
/// triples, mpi/session.hpp): requests with another op, each answered as a
/// part is — a status, a value, then what send_result sends.
class other_requests {
public:
    virtual ~other_requests() = default;
    /// Runs request h; returns the reply's value.
    virtual std::uint64_t run(const detail::part_header& h) = 0;
    /// Sends what the request run last made, after the reply's head.
    virtual void send_result(MPI_Comm comm, int to, int tag) = 0;
};

/// Tells rank w ≥ 1 of comm that rank 0 is done with `world` (serve returns).
inline void stop_serving(int rank, MPI_Comm comm, int world = 0) {
    const detail::part_header stop;
    detail::send_all(&stop, 1, rank, world * detail::world_tags + detail::work_tag, comm);
}

/// Rank w ≥ 1: runs the region parts (and the `other` requests) rank 0
/// sends until it says stop.
/// `make_core(header, ands)` makes the core for one part of `ands` ANDs,
/// which is flushed after it. A part that fails is answered with the error's
/// message (rank 0 throws it, naming this rank), and so is every later one;
/// so is every part if `failed` is set on entry (this rank failed before
/// serving: rank 0 must still hear back). `world` picks the tags (IPP: one
/// serving thread per world). With `live`, a rank 0 silent for the timeout
/// ends the loop with that failure. Returns the first failure here, null if none.
template <class MakeCore>
std::exception_ptr serve(MPI_Comm comm, MakeCore&& make_core, std::exception_ptr failed = nullptr, int world = 0,
                         liveness* live = nullptr, other_requests* other = nullptr) {
    const int tags = world * detail::world_tags;
    region_data region;  // the bodies sent last; instances and wire map per part
    std::vector<std::uint64_t> body_ands;
    std::vector<std::uint32_t> words, kinds;
    gc::detail::label_array outer;
    for (;;) {
        detail::part_header h;
        try {
            detail::receive_resting(&h, static_cast<int>(sizeof h), MPI_BYTE, 0, tags + detail::work_tag, comm, live,
                                    detail::serve_yield_for);
        } catch (...) {  // rank 0 is lost
            return std::current_exception();
        }
        if (h.op == detail::part_header::stop) break;
        // A reply: its head (the error message's length, 0 if none; a
        // value), then the message or send_ok's results.
        const auto reply = [&](std::uint64_t value, const std::exception_ptr& e, auto&& send_ok) {
            const std::string why = detail::message_of(e);
            const std::uint64_t head[2] = {why.size(), value};
            detail::send_all(head, 2, 0, tags + detail::reply_tag, comm);
            if (e) detail::send_all(why.data(), why.size(), 0, tags + detail::reply_tag, comm);
            else send_ok();
        };
        if (h.op != detail::part_header::part) {
            std::uint64_t value = 0;
            std::exception_ptr e = failed;
            try {
                if (!e && !other) tandem::detail::internal_error("mpi: a request this rank does not serve");
                if (!e) value = other->run(h);
            } catch (...) {
                e = std::current_exception();
                if (!failed) failed = e;
            }
            tandem::detail::wipe(&h, sizeof h);
            reply(value, e, [&] { other->send_result(comm, 0, tags + detail::reply_tag); });
            continue;
        }
        if (h.body_words != 0) {
            words.resize(h.body_words);
            detail::recv_all(words.data(), words.size(), 0, tags + detail::bodies_tag, comm);
            region.bodies = detail::take_bodies(words);
            body_ands.clear();
            for (const circuit_data& b : region.bodies) body_ands.push_back(tandem::detail::count_gates(b).and_gates);
        }
        kinds.resize(h.instances);
        detail::recv_all(kinds.data(), kinds.size(), 0, tags + detail::kinds_tag, comm);
        // The part as a region of its own: instance k reads its inputs from
        // the labels received, in order, and writes its outputs after them.
        region.instances.clear();
        region.wire_map.clear();
        std::size_t inputs = 0, outputs = 0;
        std::uint64_t ands = 0;
        for (const std::uint32_t b : kinds) {
            if (b >= region.bodies.size()) tandem::detail::internal_error("mpi: a part names a body never sent");
            inputs += region.bodies[b].input_bits;
            outputs += region.bodies[b].output_slots.size();
            ands += body_ands[b];
        }
        std::uint32_t in = 0, out = static_cast<std::uint32_t>(inputs);
        for (const std::uint32_t b : kinds) {
            region.instances.push_back({b, static_cast<std::uint32_t>(region.wire_map.size())});
            for (std::uint32_t k = 0; k < region.bodies[b].input_bits; ++k) region.wire_map.push_back(in++);
            for (std::size_t k = 0; k < region.bodies[b].output_slots.size(); ++k) region.wire_map.push_back(out++);
        }
        outer.resize(inputs + outputs);
        detail::recv_all(outer.data(), inputs, 0, tags + detail::labels_tag, comm);
        std::uint64_t next = 0;
        std::exception_ptr e = failed;
        try {
            if (!e) {
                const std::uint64_t first_and = h.first_and;
                const std::unique_ptr<gc::core> core = make_core(h, ands);
                tandem::detail::wipe(&h, sizeof h);  // Δ: the core holds its own copy
                next = core->instances(region, 0, static_cast<std::uint32_t>(kinds.size()), outer, first_and);
                core->flush();
            }
        } catch (...) {
            e = std::current_exception();
            if (!failed) failed = e;
        }
        tandem::detail::wipe(&h, sizeof h);
        reply(next, e, [&] { detail::send_all(outer.data() + inputs, outputs, 0, tags + detail::reply_tag, comm); });
        tandem::detail::wipe_all(outer);
    }
    return failed;
}

}  // namespace tandem::mpi

TANDEM_CRYPTO_END

// tandem/session/ipp.hpp — inter-party parallelization (paper 001 §5): both
// worlds of a run at once, and the wires they hand each other.
//
// Each party garbles its own world (under its own Δ, streaming tables on
// that world's links) and at the same time evaluates the peer's world
// (reading the peer's tables on the other links), as the IPP plan says
// (exec/ipp_plan.hpp): both worlds' tasks are one flow graph
// (ipp_plan::joint), whose boundary tasks move wires between the worlds.
//
// Transferring roles (paper 001 §5.2 with the point-and-permute sharing of
// Demmler, Schneider, Zohner: ABY, NDSS 2015). Let wire v live in world X,
// garbled by G under Δ_X with zero label Z; the evaluator E holds
// Z ⊕ v·Δ_X. As lsb(Δ_X) = 1, the garbler's permute bit p = lsb(Z) and the
// evaluator's colour c = lsb(Z ⊕ v·Δ_X) are an XOR sharing of v: v = p ⊕ c.
// In world Y the roles are reversed (E garbles under Δ_Y, G evaluates):
//  * G enters its share p by one correlated OT with E (Δ_Y-COT, ot/iknp.hpp),
//    as receiver: it learns t = q ⊕ p·Δ_Y, E learns q. Nothing is sent back.
//  * E enters its share c directly, for free: XOR with a bit the garbler
//    knows only flips the zero label (free-XOR), so E takes
//    Z_Y = q ⊕ c·Δ_Y as v's zero label in world Y.
//  * Then G's t = q ⊕ p·Δ_Y = Z_Y ⊕ (p ⊕ c)·Δ_Y = Z_Y ⊕ v·Δ_Y is v's active
//    label: one free XOR has joined the shares. v is never revealed: p alone
//    and c alone are uniform, and the OT hides p from E.
// So a transfer out of world X is one message from X's garbler to X's
// evaluator — about 16 bytes per wire (IKNP columns: 8 + 128·⌈n/8⌉ bytes
// for n wires at a boundary) — and it travels on X's link 0 after the tables it follows;
// Y's garbler then sends 16 bytes of digests per wire on Y's link 0, with
// which Y's evaluator checks the labels it got (check_transfer_digests).
//
// At a boundary each world's first task does the transfers out of it and
// leaves the new labels for the other world; its second task, which the
// graph starts once both worlds' first tasks are done, installs the labels
// coming in. Transfers out thus come before transfers in, in both worlds,
// and an evaluator is allowed its tables one segment (boundary to
// boundary) at a time, so it never waits for tables that depend on its own
// transfers: the waits form no cycle, and as a waiting task gives its
// thread to any task that needs one (exec::workers), IPP cannot deadlock.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/ipp_plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/session/cores.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/remote_workers.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <sodium.h>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// What an IPP run needs besides the circuit and the input labels.
struct ipp_run {
    const exec::ipp_plan& plan;
    std::array<std::span<net::channel* const>, 2> links;  ///< per world: its links, link 0 first
    exec::workers& pool;                                  ///< both worlds' workers
    ot::cot_sender& sender;         ///< correlation: this party's Δ (transfers into its world)
    ot::cot_receiver& receiver;     ///< correlation: the peer's Δ (transfers out of its world)
    block delta;                    ///< this party's Δ
    exec::world mine;               ///< the world this party garbles
    core_maker cores;               ///< the cores under the session's hash
    std::uint64_t first_and;
    remote_workers* remote;         ///< workers 1 … in other processes (null: all here, a link each)
    block bob_hash_start{};         ///< Bob: the hash start of his world (drawn by his engine)
    std::array<double, 2> transfer_seconds{};  ///< out: per world, time in transfers (not in waits)
    std::array<std::uint64_t, 2> transfer_ots{};  ///< out: per world, OTs this party extended for transfers
};

/// Labels that leave one world at a boundary, left for the other world's
/// transfers in (the joint graph orders the two), by boundary and world.
class crossing {
public:
    explicit crossing(std::size_t boundaries) : labels_(2 * boundaries) {}
    crossing(const crossing&) = delete;
    crossing& operator=(const crossing&) = delete;
    ~crossing() {
        for (std::vector<block>& l : labels_) wipe_all(l);
    }
    void put(std::size_t k, exec::world into, std::vector<block> labels) {
        labels_[2 * k + exec::index(into)] = std::move(labels);
    }
    /// Installs the labels for world `into` at boundary k in `slots`.
    void install(std::size_t k, exec::world into, const std::vector<std::uint32_t>& slots,
                 gc::detail::label_array& label) {
        if (slots.empty()) return;
        std::vector<block>& in = labels_[2 * k + exec::index(into)];
        if (in.size() != slots.size()) internal_error("ipp: a boundary has the wrong number of labels");
        for (std::size_t i = 0; i < slots.size(); ++i) label[slots[i]] = in[i];
        wipe_all(in);
    }

private:
    std::vector<std::vector<block>> labels_;
};

/// A transferred label is checked before it is used. A flipped bit in the
/// OT columns would otherwise leave the evaluator a label that is neither of
/// the wire's two; a later transfer reads its colour as a valid share, and the
/// value re-enters the other world validly: a wrong answer nobody notices.
/// So the new world's garbler sends, per wire, 8-byte digests of the wire's
/// two labels in colour order, and the evaluator compares its label's. A
/// digest of the label it does not hold tells it nothing (BLAKE2b, one-way);
/// boundary and position are hashed in, so no digest matches another wire.
inline std::uint64_t transfer_digest(block label, std::uint64_t boundary, std::uint64_t i) {
    unsigned char in[32];
    label.store(in);
    std::memcpy(in + 16, &boundary, 8);
    std::memcpy(in + 24, &i, 8);
    std::uint64_t out = 0;
    crypto_generichash(reinterpret_cast<unsigned char*>(&out), sizeof out, in, sizeof in, nullptr, 0);
    wipe(in, 16);
    return out;
}

/// The garbler's side: digests of the zero and one labels of `slots`, the
/// label with colour 0 first. Sent on the world's link 0 after the transfer.
inline void send_transfer_digests(net::channel& ch, std::size_t k, const std::vector<std::uint32_t>& slots,
                                  const gc::detail::label_array& label, block delta) {
    if (slots.empty()) return;
    std::vector<std::uint64_t> d(2 * slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const block zero = label[slots[i]], one = zero ^ delta;
        const std::uint64_t dz = transfer_digest(zero, k, i), d1 = transfer_digest(one, k, i);
        const std::uint64_t swap = 0 - static_cast<std::uint64_t>(zero.lsb());  // colour order, no branch
        d[2 * i] = (dz & ~swap) | (d1 & swap);
        d[2 * i + 1] = (d1 & ~swap) | (dz & swap);
    }
    ch.send(d.data(), d.size() * sizeof d[0]);
    ch.flush();
}

/// The evaluator's side: checks the labels just installed at `slots`.
inline void check_transfer_digests(net::channel& ch, std::size_t k, const std::vector<std::uint32_t>& slots,
                                   const gc::detail::label_array& label) {
    if (slots.empty()) return;
    std::vector<std::uint64_t> d(2 * slots.size());
    ch.recv(d.data(), d.size() * sizeof d[0]);
    std::uint64_t differ = 0;  // accumulated: the colours steer no branch
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const block l = label[slots[i]];
        const std::uint64_t pick = 0 - static_cast<std::uint64_t>(l.lsb());
        differ |= transfer_digest(l, k, i) ^ ((d[2 * i] & ~pick) | (d[2 * i + 1] & pick));
    }
    declassify(&differ, sizeof differ);  // whether the labels are valid is public (detail/secret.hpp)
    if (differ != 0)
        throw protocol_error("IPP: a label transferred between the worlds at boundary " + std::to_string(k) +
                             " does not match the garbler's (data corrupted on the link, or the parties run "
                             "different programs)");
}

inline double seconds_since(net::clock::time_point t0) {
    return std::chrono::duration<double>(net::clock::now() - t0).count();
}

/// At boundary k of this party's world: the wires that leave it go to the
/// other world (as OT receiver of the peer's Δ: its permute bits are its
/// shares); then those that arrive are installed and their digests sent.
inline void own_world_transfers(ipp_run& r, crossing& h, std::size_t k, exec::task::kind what,
                                gc::detail::label_array& label) {
    const exec::world x = r.mine;
    net::channel& link = *r.links[exec::index(x)][0];
    const exec::transfer_set& t = r.plan.boundary[k];
    if (what == exec::task::kind::transfers_in) {
        h.install(k, x, t.into_world(x), label);
        send_transfer_digests(link, k, t.into_world(x), label, r.delta);
        return;
    }
    const std::vector<std::uint32_t>& out = t.out_of(x);
    if (out.empty()) return;
    const auto t0 = net::clock::now();
    std::vector<std::uint8_t> share(out.size());
    // The permute bits, as bytes without a branch (a ?: on them is one at -O0).
    for (std::size_t i = 0; i < out.size(); ++i) share[i] = static_cast<std::uint8_t>(label[out[i]].lsb());
    std::vector<block> active(out.size());
    r.receiver.extend(link, share, active);  // flushes
    wipe_all(share);  // with the peer's colours they are the values
    h.put(k, exec::other(x), std::move(active));
    r.transfer_seconds[exec::index(x)] += seconds_since(t0);
    r.transfer_ots[exec::index(x)] += out.size();
}

/// At boundary k of the peer's world: the wires that leave it become zero
/// labels of this party's world (as OT sender of its own Δ: its colours are
/// its shares); then those that arrive are installed, checked, and the
/// evaluator is allowed the tables of the next segment.
inline void peer_world_transfers(ipp_run& r, crossing& h, std::size_t k, exec::task::kind what,
                                 gc::detail::label_array& label,
                                 const std::vector<std::unique_ptr<gc::channel_source>>& sources) {
    const exec::world y = exec::other(r.mine);
    net::channel& link = *r.links[exec::index(y)][0];
    const exec::transfer_set& t = r.plan.boundary[k];
    if (what == exec::task::kind::transfers_in) {
        h.install(k, y, t.into_world(y), label);
        check_transfer_digests(link, k, t.into_world(y), label);
        const std::vector<std::uint64_t>& segment = r.plan.segment_ands[exec::index(y)][k];
        for (std::size_t w = 0; w < sources.size(); ++w) sources[w]->allow(r.cores.tables(segment[w]));
        return;
    }
    const std::vector<std::uint32_t>& out = t.out_of(y);
    if (out.empty()) return;
    const auto t0 = net::clock::now();
    std::vector<block> zero(out.size());
    r.sender.extend(link, zero);
    for (std::size_t i = 0; i < out.size(); ++i) zero[i] ^= r.delta & mask_of(label[out[i]].lsb());
    h.put(k, r.mine, std::move(zero));
    r.transfer_seconds[exec::index(y)] += seconds_since(t0);
    r.transfer_ots[exec::index(y)] += out.size();
}

/// Runs both worlds as one graph on r.pool: this party garbles its own and
/// evaluates the peer's. `own` and `peers` are the label arrays of the two
/// worlds (inputs in front where the world holds them); on return they hold
/// the final labels. Reads the peer's world's hash start first when the peer
/// is Bob (Alice's went out with her input labels; Bob sends his first).
inline void run_worlds(ipp_run& r, const circuit_data& c, gc::detail::label_array& own, block own_hash_start,
                       gc::detail::label_array& peers, std::optional<block> peer_hash_start) {
    const exec::world x = r.mine, y = exec::other(x);
    const std::span<net::channel* const> own_links = r.links[exec::index(x)], peer_links = r.links[exec::index(y)];
    if (x == exec::world::bob) {
        own_links[0]->send_value(own_hash_start);
        own_links[0]->flush();
    }
    if (!peer_hash_start) peer_hash_start = peer_links[0]->recv_value<block>();
    std::vector<gc::channel_sink> sinks;
    for (net::channel* l : own_links) sinks.emplace_back(*l);
    std::vector<std::unique_ptr<gc::channel_source>> sources;  // allowed their tables segment by segment
    for (net::channel* l : peer_links) sources.push_back(std::make_unique<gc::channel_source>(*l));
    const std::uint32_t workers = r.plan.worlds[0].workers;
    std::array<std::vector<std::unique_ptr<gc::core>>, 2> cores;
    std::array<std::vector<gc::core*>, 2> ptrs;
    for (std::uint32_t w = 0; w < workers; ++w) {
        cores[exec::index(x)].push_back(
            garbler_of(r.cores, sinks, r.remote, w, exec::index(x), own_hash_start, r.delta));
        cores[exec::index(y)].push_back(evaluator_of(r.cores, sources, r.remote, w, exec::index(y), *peer_hash_start));
    }
    for (std::size_t k = 0; k < 2; ++k)
        for (const auto& core : cores[k]) ptrs[k].push_back(core.get());
    std::array<gc::detail::label_array*, 2> labels{};
    labels[exec::index(x)] = &own;
    labels[exec::index(y)] = &peers;
    const std::array<exec::world_run, 2> worlds{
        exec::world_run{r.plan.worlds[0], ptrs[0], *labels[0], r.first_and},
        exec::world_run{r.plan.worlds[1], ptrs[1], *labels[1], r.first_and}};
    crossing h(r.plan.boundary.size());
    exec::execute_graph(
        c, worlds, r.plan.joint, r.pool,
        [&r] {
            for (const auto& links : r.links)
                for (net::channel* l : links) l->interrupt();
        },
        [&](std::size_t k, std::uint8_t world, exec::task::kind what) {
            if (world == exec::index(x)) own_world_transfers(r, h, k, what, own);
            else peer_world_transfers(r, h, k, what, peers, sources);
        });
}

/// run_worlds; both label arrays are wiped if it fails (a world that
/// finished keeps its labels until then, and freed label arrays are reused
/// unwiped: detail/big_vector.hpp).
inline void run_both(ipp_run& r, const circuit_data& c, gc::detail::label_array& own, block own_hash_start,
              gc::detail::label_array& peers, std::optional<block> peer_hash_start) {
    try {
        run_worlds(r, c, own, own_hash_start, peers, peer_hash_start);
    } catch (...) {
        wipe_all(own);
        wipe_all(peers);
        throw;
    }
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END

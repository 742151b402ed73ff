// tandem/mpi/session.hpp — a session whose workers are the party's MPI
// ranks (issue 31, docs/DESIGN.md §12):
//
//   int main(int argc, char** argv) {             // every rank of the party
//       tandem::mpi::environment env(argc, argv);
//       const tandem::mpi::ranks ranks;
//       tandem::mpi::run(ranks, tandem::party::alice, "bob-head", 7000, {}, [&](tandem::session& s) {
//           result = s.run(f, x);                   // rank 0 only
//       });
//   }
//
// Every rank opens its link to the peer's rank of its number (mpi/links.hpp:
// Alice's rank r listens on base_port + r). Rank 0 holds the session on its
// link — handshake, OT, inputs, sequential steps, outputs, all as without
// MPI — with threads = R; the plan gives worker w's region parts to rank w
// (mpi/worker.hpp), whose tables go straight over its own link to the peer's
// rank w, which evaluates them. Compiled, batched and streamed runs all
// work so, with IPP too (a link per world on every rank, each world served
// on a thread of its own); levels are not split across ranks (no FGP
// between processes). In malicious sessions the ranks make the AND triples
// (the preprocessing, most of a run's time) each on its link, and rank 0
// runs the rest, as with worker threads in one process.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/triples.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/mpi/links.hpp>
#include <tandem/mpi/liveness.hpp>
#include <tandem/mpi/ranks.hpp>
#include <tandem/mpi/worker.hpp>
#include <tandem/net/secure_channel.hpp>
#include <tandem/party.hpp>
#include <tandem/session.hpp>
#include <tandem/session/cores.hpp>
#include <tandem/session/remote_workers.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <string>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::mpi {

namespace detail {
/// Rank 0's stand-in for rank w's triple maker (malicious sessions): rank w
/// sets up an auth::linked_triples on its link to the peer's rank w, under
/// the Δ and seed sent with the request (they stay inside the party), and
/// makes the triples each make() asks for there; they come back here, the
/// nine arrays of auth::triples (33 bytes per share, 99 per triple).
class rank_triples final : public auth::triple_source {
public:
    rank_triples(int rank, MPI_Comm comm, block delta, block seed, cot_extension extension, liveness& live)
        : rank_(rank), comm_(comm), live_(live) {
        part_header h;
        h.op = part_header::triple_setup;
        h.delta = delta;
        h.seed = seed;
        h.extension = static_cast<std::uint64_t>(extension);
        send_all(&h, 1, rank_, work_tag, comm_);
        tandem::detail::wipe(&h, sizeof h);
        receive_reply(rank_, reply_tag, comm_, &live_, "setting up its triple maker");
    }

    void make(std::size_t wanted, auth::triples& out) override {
        part_header h;
        h.op = part_header::triples;
        h.instances = wanted;
        send_all(&h, 1, rank_, work_tag, comm_);
        const std::uint64_t n = receive_reply(rank_, reply_tag, comm_, &live_, "making AND triples");
        out.resize(n);
        if (n == 0) return;
        for (auth::shares* s : {&out.x, &out.y, &out.z}) {
            recv_all(s->bit.data(), n, rank_, reply_tag, comm_);
            recv_all(s->mac.data(), n, rank_, reply_tag, comm_);
            recv_all(s->key.data(), n, rank_, reply_tag, comm_);
        }
    }
    // The rank's make ends by its own link's deadline, and it answers then.
    void interrupt() noexcept override {}

private:
    int rank_;
    MPI_Comm comm_;
    liveness& live_;
};

/// Rank w's side of rank_triples: serve's other requests.
class triple_requests final : public other_requests {
public:
    triple_requests(net::channel* link, party me) : link_(link), me_(me) {}
    ~triple_requests() override { made_.wipe(); }

    std::uint64_t run(const part_header& h) override {
        if (!link_) tandem::detail::internal_error("mpi: a triple request for a rank without a link");
        made_.resize(0);
        if (h.op == part_header::triple_setup) {
            maker_.emplace(*link_, me_, h.delta, h.seed, static_cast<cot_extension>(h.extension));
            return 0;
        }
        if (h.op != part_header::triples || !maker_)
            tandem::detail::internal_error("mpi: a request this rank does not serve");
        maker_->make(h.instances, made_);
        return made_.size();
    }
    void send_result(MPI_Comm comm, int to, int tag) override {
        if (made_.size() == 0) return;  // the set-up's reply is its head alone
        for (const auth::shares* s : {&made_.x, &made_.y, &made_.z}) {
            send_all(s->bit.data(), s->size(), to, tag, comm);
            send_all(s->mac.data(), s->size(), to, tag, comm);
            send_all(s->key.data(), s->size(), to, tag, comm);
        }
        made_.wipe();
    }

private:
    net::channel* link_;
    party me_;
    std::optional<auth::linked_triples> maker_;
    auth::triples made_;
};

/// Rank 0's remote workers: one remote_core per rank, world and run.
class rank_workers final : public tandem::detail::remote_workers {
public:
    rank_workers(const ranks& r, garbling_hash hash, garbling_scheme scheme, liveness& live)
        : comm_(r.comm()), hash_(hash), scheme_(scheme), live_(live),
          caches_(2 * static_cast<std::size_t>(r.size())) {}

    std::unique_ptr<gc::core> core(std::uint32_t w, std::uint32_t world, block hash_start,
                                   const block* delta) override {
        part_header base;
        base.hash = static_cast<std::uint64_t>(hash_);
        base.scheme = static_cast<std::uint64_t>(scheme_);
        base.garbles = delta != nullptr;
        base.hash_start = hash_start;
        if (delta) base.delta = *delta;
        auto c = std::make_unique<remote_core>(static_cast<int>(w), comm_, base, caches_.at(2 * w + world),
                                               static_cast<int>(world), &live_);
        tandem::detail::wipe(&base, sizeof base);
        return c;
    }
    std::unique_ptr<auth::triple_source> triples(std::uint32_t w, block delta, block seed,
                                                 cot_extension extension) override {
        return std::make_unique<rank_triples>(static_cast<int>(w), comm_, delta, seed, extension, live_);
    }

private:
    MPI_Comm comm_;
    garbling_hash hash_;
    garbling_scheme scheme_;
    liveness& live_;
    std::vector<rank_cache> caches_;  // per rank and world: what each serving thread holds
};

/// Rank w ≥ 1 of a session, in one world: garbles or evaluates the parts
/// rank 0 sends, the tables on `link` (to the peer's rank w), or makes AND
/// triples there (malicious), until rank 0 says stop; with `failed` set (the
/// link could not be set up), answers each with that.
inline std::exception_ptr serve_session(MPI_Comm comm, party me, net::channel* link, std::exception_ptr failed,
                                        int world, liveness& live) {
    triple_requests triples(link, me);
    std::optional<gc::channel_sink> sink;
    std::optional<gc::channel_source> source;
    if (link) sink.emplace(*link), source.emplace(*link);
    return serve(
        comm,
        [&](const part_header& h, std::uint64_t ands) -> std::unique_ptr<gc::core> {
            const tandem::detail::core_maker cores = tandem::detail::cores_for(
                static_cast<garbling_hash>(h.hash), static_cast<garbling_scheme>(h.scheme));
            if (h.garbles != 0) return cores.garbler(h.hash_start, h.delta, *sink);
            source->allow(cores.tables(ands));  // the part's tables: the next part's stay on the link
            return cores.evaluator(h.hash_start, *source);
        },
        std::move(failed), world, &live, &triples);
}

inline constexpr int status_tag = 3191, verdict_tag = 3192;

/// The end of mpi::run, as ranks::agree but without a collective (a rank may
/// be lost): every rank sends rank 0 its outcome, rank 0 finds the lowest
/// rank that failed (a lost one included) and sends every rank it still
/// hears the verdict; each throws tandem::error "the session failed on rank
/// K of R: why". Every wait keeps the liveness deadline.
inline void settle(const ranks& r, const std::exception_ptr& mine, liveness& live) {
    const auto fail_with = [&](int rank, const std::string& why) {
        throw error("tandem::mpi: the session failed on rank " + std::to_string(rank) + " of " +
                    std::to_string(r.size()) + ": " + why);
    };
    std::uint64_t n = 0;
    if (r.rank() != 0) {
        const std::string why = message_of(mine);
        n = why.size();
        send_all(&n, 1, 0, status_tag, r.comm());
        send_all(why.data(), why.size(), 0, status_tag, r.comm());
        std::uint64_t verdict[2];  // the rank that failed (R: none), its message's length
        try {
            receive_resting(verdict, 2, MPI_UINT64_T, 0, verdict_tag, r.comm(), &live);
        } catch (const std::exception& e) {
            fail_with(0, e.what());
        }
        std::string theirs(verdict[1], '\0');
        recv_all(theirs.data(), theirs.size(), 0, verdict_tag, r.comm());
        if (verdict[0] < static_cast<std::uint64_t>(r.size())) fail_with(static_cast<int>(verdict[0]), theirs);
        return;
    }
    // Each rank's outcome; a lost rank's is its loss, the cause of whatever
    // failed on rank 0 waiting for it, so the lowest lost rank is named first.
    std::vector<std::string> outcome(static_cast<std::size_t>(r.size()));
    outcome[0] = message_of(mine);
    for (int w = 1; w < r.size(); ++w) {
        std::string& theirs = outcome[static_cast<std::size_t>(w)];
        if (!live.lost(w)) {
            try {
                receive_resting(&n, 1, MPI_UINT64_T, w, status_tag, r.comm(), &live);
                theirs.resize(n);
                recv_all(theirs.data(), theirs.size(), w, status_tag, r.comm());
            } catch (const std::exception& e) {
                theirs = e.what();
            }
        }
        if (live.lost(w))
            theirs = "it has not been heard from for " + std::to_string(live.timeout().count()) +
                     " ms (its process stopped, or its host is lost)";
    }
    std::uint64_t first = static_cast<std::uint64_t>(r.size());
    for (int w = 1; w < r.size() && first == static_cast<std::uint64_t>(r.size()); ++w)
        if (live.lost(w)) first = static_cast<std::uint64_t>(w);
    for (int w = 0; w < r.size() && first == static_cast<std::uint64_t>(r.size()); ++w)
        if (!outcome[static_cast<std::size_t>(w)].empty()) first = static_cast<std::uint64_t>(w);
    const std::string why = first < outcome.size() ? outcome[first] : std::string();
    for (int w = 1; w < r.size(); ++w) {
        if (live.lost(w)) continue;
        const std::uint64_t verdict[2] = {first, why.size()};
        send_all(verdict, 2, w, verdict_tag, r.comm());
        send_all(why.data(), why.size(), w, verdict_tag, r.comm());
    }
    if (first < static_cast<std::uint64_t>(r.size())) fail_with(static_cast<int>(first), why);
}
}  // namespace detail

/// What this rank's own links to the peer party carried during mpi::run
/// (rank 0: the session's main link; with IPP each rank's two links): a
/// rank that did no work, or a link left unsealed, shows here.
struct link_totals {
    std::uint64_t bytes_sent = 0, bytes_received = 0;
    std::uint32_t links = 0;
    std::uint32_t sealed = 0;  ///< of them, encrypted (net::secure_channel)
};

namespace detail {
inline void count_link(link_totals& t, const net::channel& l) {
    t.bytes_sent += l.bytes_sent();
    t.bytes_received += l.bytes_received();
    ++t.links;
    if (dynamic_cast<const net::secure_channel*>(&l) != nullptr) ++t.sealed;
}
}  // namespace detail

/// Runs `body(session&)` on rank 0 with a session to the peer party whose
/// workers are r's ranks (threads = r.size()); the other ranks serve it
/// until body returns. Every rank of the party calls it with the same
/// arguments (body runs on rank 0 only). options.threads must be 1 (then
/// set to R) or R. With IPP every rank holds a second link, for Bob's world,
/// and serves both worlds at once (a thread each). In security::malicious
/// every rank makes AND triples on its link at once (as worker links do in
/// one process), and the rest of each run stays on rank 0. A failure anywhere —
/// the body, the session, a rank's link or part — is a tandem::error on
/// every rank naming the rank it happened on (detail::settle); the peer
/// party's ranks fail too, as their links close. A rank silent for
/// options.timeout (stopped, its host lost) is such a failure too, on every
/// rank still running, within the timeout (mpi/liveness.hpp); the job then
/// ends with MPI_Abort when the environment goes. Returns what this rank's
/// links carried.
template <class Body>
link_totals run(const ranks& r, party me, const std::string& peer_host, std::uint16_t base_port,
                session_options options, Body&& body) {
    link_totals totals;
    std::exception_ptr failed;
    const auto size = static_cast<std::uint32_t>(r.size());
    try {
        if (options.threads != 1 && options.threads != size)
            throw usage_error("tandem::mpi::run: threads is the number of ranks (mpirun -np " + std::to_string(size) +
                              "), not " + std::to_string(options.threads) + "; leave it at 1");
        options.threads = size;
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "checking the session options");
    const std::uint32_t worlds = options.ipp ? 2 : 1;
    std::vector<std::unique_ptr<net::channel>> links =
        open_peer_links(me, r, peer_host, base_port, worlds, options.connect_timeout);
    liveness live(r, options.timeout);
    if (r.rank() == 0) {
        try {
            for (const auto& l : links) l->set_timeout(options.timeout);
            std::optional<session> s;
            if (size == 1 && !options.ipp) {
                s.emplace(me, std::move(links[0]), options);
            } else {
                // With IPP, link 0 of Bob's world is this rank's second link.
                session::link_opener bob_world;
                if (options.ipp) bob_world = [&](const session::link_id&) { return std::move(links[1]); };
                if (size == 1) s.emplace(me, std::move(links[0]), options, std::move(bob_world));
                else
                    s.emplace(me, std::move(links[0]), options, std::move(bob_world),
                              std::make_shared<detail::rank_workers>(r, options.hash, options.scheme, live));
            }
            body(*s);
            detail::count_link(totals, s->channel());
        } catch (...) {
            failed = std::current_exception();
        }
        for (int w = 1; w < r.size(); ++w)
            for (std::uint32_t world = 0; world < worlds; ++world) stop_serving(w, r.comm(), static_cast<int>(world));
    } else {
        try {
            for (std::uint32_t k = 0; k < worlds; ++k) {
                links[k]->set_timeout(options.timeout);
                if (options.encrypt_links)  // sealed as the session seals worker link r (Bob's world: R + r)
                    links[k] = net::secure_link(std::move(links[k]), *options.encrypt_links, me == party::bob,
                                                k * size + static_cast<std::uint32_t>(r.rank()));
            }
        } catch (...) {
            failed = std::current_exception();
        }
        const auto link = [&](std::uint32_t k) { return failed ? nullptr : links[k].get(); };
        std::exception_ptr bob_world;  // served on a thread of its own: a rank garbles one world while evaluating the other
        std::optional<std::thread> second;
        if (worlds == 2)
            second.emplace(
                [&, l = link(1), f = failed] { bob_world = detail::serve_session(r.comm(), me, l, f, 1, live); });
        failed = detail::serve_session(r.comm(), me, link(0), failed, 0, live);
        if (second) second->join();
        if (!failed) failed = bob_world;
        for (const auto& l : links)
            if (l) {
                detail::count_link(totals, *l);
                l->close();  // the peer's rank learns at once if this one failed
            }
    }
    detail::settle(r, failed, live);
    return totals;
}

}  // namespace tandem::mpi

TANDEM_CRYPTO_END

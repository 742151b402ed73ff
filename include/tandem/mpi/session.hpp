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
// work so; levels are not split across ranks (no FGP between processes).
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/mpi/links.hpp>
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
#include <string>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::mpi {

namespace detail {
/// Rank 0's remote workers: one remote_core per rank and run.
class rank_workers final : public tandem::detail::remote_workers {
public:
    rank_workers(const ranks& r, garbling_hash hash)
        : comm_(r.comm()), hash_(hash), caches_(static_cast<std::size_t>(r.size())) {}

    std::unique_ptr<gc::core> core(std::uint32_t w, block hash_start, const block* delta) override {
        part_header base;
        base.hash = static_cast<std::uint64_t>(hash_);
        base.garbles = delta != nullptr;
        base.hash_start = hash_start;
        if (delta) base.delta = *delta;
        auto c = std::make_unique<remote_core>(static_cast<int>(w), comm_, base, caches_.at(w));
        tandem::detail::wipe(&base, sizeof base);
        return c;
    }

private:
    MPI_Comm comm_;
    garbling_hash hash_;
    std::vector<rank_cache> caches_;
};

/// Rank w ≥ 1 of a session: garbles or evaluates the parts rank 0 sends, the
/// tables on `link` (to the peer's rank w), until rank 0 says stop; with
/// `failed` set (the link could not be set up), answers each with that.
inline std::exception_ptr serve_session(MPI_Comm comm, net::channel* link, std::exception_ptr failed) {
    std::optional<gc::channel_sink> sink;
    std::optional<gc::channel_source> source;
    if (link) sink.emplace(*link), source.emplace(*link, 0);
    return serve(
        comm,
        [&](const part_header& h, std::uint64_t ands) -> std::unique_ptr<gc::core> {
            const tandem::detail::core_maker cores = tandem::detail::cores_for(static_cast<garbling_hash>(h.hash));
            if (h.garbles != 0) return cores.garbler(h.hash_start, h.delta, *sink);
            source->allow(2 * ands);  // exactly the part's tables: the next part's stay on the link
            return cores.evaluator(h.hash_start, *source);
        },
        std::move(failed));
}
}  // namespace detail

/// Runs `body(session&)` on rank 0 with a session to the peer party whose
/// workers are r's ranks (threads = r.size()); the other ranks serve it
/// until body returns. Every rank of the party calls it with the same
/// arguments (body runs on rank 0 only). options.threads must be 1 (then
/// set to R) or R. Semi-honest, without IPP, for now: anything else is a
/// usage_error on every rank. A failure anywhere — the body, the session,
/// a rank's link or part — is a tandem::error on every rank naming the rank
/// it happened on (ranks::agree); the peer party's ranks fail too, as their
/// links close.
template <class Body>
void run(const ranks& r, party me, const std::string& peer_host, std::uint16_t base_port, session_options options,
         Body&& body) {
    std::exception_ptr failed;
    const auto size = static_cast<std::uint32_t>(r.size());
    try {
        if (options.threads != 1 && options.threads != size)
            throw usage_error("tandem::mpi::run: threads is the number of ranks (mpirun -np " + std::to_string(size) +
                              "), not " + std::to_string(options.threads) + "; leave it at 1");
        if (options.ipp || options.security != tandem::security::semi_honest)
            throw usage_error("tandem::mpi::run: a party spread over MPI ranks runs semi-honest sessions without IPP "
                              "for now (README, \"What does not exist yet\"); run IPP or security::malicious with "
                              "threads in one process");
        options.threads = size;
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "checking the session options");
    std::unique_ptr<net::channel> link = open_peer_link(me, r, peer_host, base_port, options.connect_timeout);
    if (r.rank() == 0) {
        try {
            link->set_timeout(options.timeout);
            std::optional<session> s;
            if (size == 1) s.emplace(me, std::move(link), options);
            else s.emplace(me, std::move(link), options, std::make_shared<detail::rank_workers>(r, options.hash));
            body(*s);
        } catch (...) {
            failed = std::current_exception();
        }
        for (int w = 1; w < r.size(); ++w) stop_serving(w, r.comm());
    } else {
        try {
            link->set_timeout(options.timeout);
            if (options.encrypt_links)  // sealed as the session seals worker link r
                link = net::secure_link(std::move(link), *options.encrypt_links, me == party::bob,
                                        static_cast<std::uint32_t>(r.rank()));
        } catch (...) {
            failed = std::current_exception();
        }
        failed = detail::serve_session(r.comm(), failed ? nullptr : link.get(), failed);
        if (link) link->close();  // the peer's rank learns at once if this one failed
    }
    r.agree(failed, "the session");
}

}  // namespace tandem::mpi

TANDEM_CRYPTO_END

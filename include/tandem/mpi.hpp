// tandem/mpi.hpp — a party spread over MPI ranks (issue 31, docs/DESIGN.md
// §13): the optional tandem::mpi component (CMake -DTANDEM_MPI=ON, target
// tandem::mpi; Open MPI from scripts/setup-deps.sh --mpi). The header-only
// core never includes it.
//
// Each party is an MPI job of R ranks, started with mpirun on its own hosts;
// both parties run the same R. This step: start-up. Rank r opens its own TCP
// link to the peer party's rank r — Alice's rank r listens on base_port + r,
// Bob's rank r connects to it — and both ends introduce the link with the
// session id Alice's rank 0 drew (broadcast to her ranks), the rank and R, so
// a stray connection, a peer rank of another number or another R is a
// protocol_error naming the rank. A failure on any rank reaches every rank of
// the party before anything else happens (ranks::agree): MPI's default, one
// rank's error aborting the whole job with MPI's own message, is replaced by
// errors returned as codes and a tandem::error on every rank naming the rank
// that failed and why.
#pragma once

#include <mpi.h>

#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/party.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tandem::mpi {

/// Throws tandem::error naming the MPI call and its message when rc is not MPI_SUCCESS.
inline void check(int rc, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, text, &n);
    throw error(std::string("tandem::mpi: ") + call + " failed: " + std::string(text, static_cast<std::size_t>(n)));
}

/// MPI in this process, from construction to destruction: initialised with
/// MPI_THREAD_FUNNELED (only the thread that made it calls MPI; tandem's
/// worker threads never do), and with errors returned as codes on
/// MPI_COMM_WORLD, so that tandem reports them (check) instead of MPI
/// aborting every process of the job.
class environment {
public:
    environment(int& argc, char**& argv) {
        int provided = 0;
        check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
        check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    }
    environment(const environment&) = delete;
    environment& operator=(const environment&) = delete;
    ~environment() { MPI_Finalize(); }
};

/// This party's ranks: a communicator, MPI_COMM_WORLD unless the job holds
/// more than the party.
class ranks {
public:
    explicit ranks(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
        check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
        check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    }
    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    MPI_Comm comm() const noexcept { return comm_; }

    /// Rank 0's v, on every rank.
    std::uint64_t broadcast(std::uint64_t v) const {
        check(MPI_Bcast(&v, 1, MPI_UINT64_T, 0, comm_), "MPI_Bcast");
        return v;
    }

    /// Every rank calls it after a step with its outcome there (`mine`,
    /// null if the step succeeded). If any rank failed, every rank throws a
    /// tandem::error naming the lowest rank that failed, the step and that
    /// rank's message; the failed rank's own error is that one too, so each
    /// rank reports the same failure.
    void agree(const std::exception_ptr& mine, const std::string& step) const {
        int failed_at = mine ? rank_ : size_;
        int first = size_;
        check(MPI_Allreduce(&failed_at, &first, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
        if (first == size_) return;
        std::string why;
        if (rank_ == first) why = message_of(mine);
        std::uint64_t n = why.size();
        check(MPI_Bcast(&n, 1, MPI_UINT64_T, first, comm_), "MPI_Bcast");
        why.resize(n);
        check(MPI_Bcast(why.data(), static_cast<int>(n), MPI_CHAR, first, comm_), "MPI_Bcast");
        throw error("tandem::mpi: " + step + " failed on rank " + std::to_string(first) + " of " +
                    std::to_string(size_) + ": " + why);
    }

private:
    static std::string message_of(const std::exception_ptr& e) {
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& x) {
            return x.what();
        } catch (...) {
            return "an unknown exception";
        }
    }

    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
};

/// What the two ends of a rank link say first.
struct rank_hello {
    static constexpr std::uint64_t magic = 0x314b4e52444e54ull;  // "TNDRNK1"
    std::uint64_t session = 0;
    std::uint32_t rank = 0, ranks = 0;

    void send(net::channel& ch) const {
        ch.send_value(magic);
        ch.send_value(session);
        ch.send_value(rank);
        ch.send_value(ranks);
        ch.flush();
    }
    static rank_hello receive(net::channel& ch) {
        if (ch.recv_value<std::uint64_t>() != magic)
            throw protocol_error("tandem::mpi: the connection on " + ch.name() +
                                 " is not a tandem rank link (another program on the port?)");
        rank_hello h;
        h.session = ch.recv_value<std::uint64_t>();
        h.rank = ch.recv_value<std::uint32_t>();
        h.ranks = ch.recv_value<std::uint32_t>();
        return h;
    }
};

/// Opens this rank's link to the peer party's rank of the same number:
/// Alice's rank r listens on base_port + r (all addresses), Bob's rank r
/// connects to peer_host:base_port + r, retrying until `timeout`. Alice's
/// hello goes first, Bob answers with his, and each end checks the other's:
/// the same rank and the same number of ranks (so a different mpirun -np is
/// a protocol_error at both ends), on Alice's side her session id; then Bob's
/// ranks check they all reached the same session (his rank 0's, broadcast).
/// Collective over r's communicator; a failure on any rank is reported on
/// every rank (ranks::agree).
inline std::unique_ptr<net::channel> open_peer_link(party me, const ranks& r, const std::string& peer_host,
                                                    std::uint16_t base_port,
                                                    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::exception_ptr failed;
    std::uint64_t session = 0;  // Alice's, drawn by her rank 0: public, it only tells sessions apart
    try {
        if (me == party::alice && r.rank() == 0) {
            std::random_device device;
            session = (std::uint64_t{device()} << 32) | device();
        }
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "drawing the session id");
    session = r.broadcast(session);
    const rank_hello mine{session, static_cast<std::uint32_t>(r.rank()), static_cast<std::uint32_t>(r.size())};
    std::unique_ptr<net::channel> link;
    rank_hello theirs;
    try {
        if (static_cast<std::uint32_t>(base_port) + static_cast<std::uint32_t>(r.size()) > 65536u)
            throw usage_error("tandem::mpi::open_peer_link: base port " + std::to_string(base_port) + " + " +
                              std::to_string(r.size()) + " ranks passes 65535; choose a lower base port");
        const auto port = static_cast<std::uint16_t>(base_port + r.rank());
        if (me == party::alice) {
            net::tcp_listener listener(port);
            link = listener.accept(timeout);
            link->set_timeout(timeout);
            mine.send(*link);
            theirs = rank_hello::receive(*link);
        } else {
            link = net::tcp_connect(peer_host, port, timeout);
            link->set_timeout(timeout);
            theirs = rank_hello::receive(*link);
            rank_hello{theirs.session, mine.rank, mine.ranks}.send(*link);  // before checking: the peer learns why
        }
        if (theirs.rank != mine.rank || theirs.ranks != mine.ranks)
            throw protocol_error("tandem::mpi: this party's rank " + std::to_string(mine.rank) + " of " +
                                 std::to_string(mine.ranks) + " reached the peer's rank " + std::to_string(theirs.rank) +
                                 " of " + std::to_string(theirs.ranks) +
                                 "; both parties must run the same number of ranks (mpirun -np) on the same base port");
        if (me == party::alice && theirs.session != session)
            throw protocol_error("tandem::mpi: the peer's rank " + std::to_string(theirs.rank) +
                                 " answered for another session (another job on these ports?)");
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "opening the link to the peer party's rank");
    if (me == party::bob) {
        const std::uint64_t rank0s = r.broadcast(theirs.session);
        if (theirs.session != rank0s)
            failed = std::make_exception_ptr(protocol_error(
                "tandem::mpi: rank " + std::to_string(mine.rank) +
                " reached another session than rank 0 did (another job on these ports?)"));
        r.agree(failed, "checking the rank links' session");
    }
    return link;
}

}  // namespace tandem::mpi

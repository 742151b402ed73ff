// tandem/mpi/links.hpp — each rank's TCP link to the peer party's rank of
// its number (issue 31, docs/DESIGN.md §12).
#pragma once

#include <tandem/error.hpp>
#include <tandem/mpi/ranks.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/party.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <random>
#include <string>

namespace tandem::mpi {

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

// tandem/mpi/links.hpp — each rank's TCP link to the peer party's rank of
// its number (issue 31, docs/DESIGN.md §12).
#pragma once

#include <tandem/error.hpp>
#include <tandem/mpi/ranks.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/party.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace tandem::mpi {

/// What the two ends of a rank link say first.
struct rank_hello {
    static constexpr std::uint64_t magic = 0x314b4e52444e54ull;  // "TNDRNK1"
    std::uint64_t session = 0;
    std::uint32_t rank = 0, ranks = 0;
    std::uint32_t link = 0;  ///< which of the rank's links (IPP: 1 carries Bob's world)

    void send(net::channel& ch) const {
        ch.send_value(magic);
        ch.send_value(session);
        ch.send_value(rank);
        ch.send_value(ranks);
        ch.send_value(link);
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
        h.link = ch.recv_value<std::uint32_t>();
        return h;
    }
};

namespace detail {
/// Where the peer's rank r reaches this rank (Alice's): $TANDEM_MPI_HOST if
/// set, else this host's name — or "" when that is rank 0's host too, which
/// the peer already reaches as peer_host.
inline std::string advertised_host(const ranks& r) {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
    std::string mine = name;
    std::vector<char> all(static_cast<std::size_t>(r.size()) * sizeof name);
    check(MPI_Allgather(name, sizeof name, MPI_CHAR, all.data(), sizeof name, MPI_CHAR, r.comm()), "MPI_Allgather");
    if (const char* e = std::getenv("TANDEM_MPI_HOST"); e != nullptr && *e != '\0') return e;
    return mine == std::string(all.data()) ? std::string() : mine;
}

/// Checks the peer rank's hello against this rank's (and, on Bob's side,
/// learns the session from it).
inline void check_hello(party me, rank_hello& mine, const rank_hello& theirs) {
    if (theirs.rank != mine.rank || theirs.ranks != mine.ranks || theirs.link != mine.link)
        throw protocol_error("tandem::mpi: this party's rank " + std::to_string(mine.rank) + " of " +
                             std::to_string(mine.ranks) + " reached the peer's rank " + std::to_string(theirs.rank) +
                             " of " + std::to_string(theirs.ranks) +
                             (theirs.link != mine.link ? " on another of its links (one uses IPP, the other not?)" : "") +
                             "; both parties must run the same number of ranks (mpirun -np) on the same base port, "
                             "with the same options");
    if (me == party::alice && theirs.session != mine.session)
        throw protocol_error("tandem::mpi: the peer's rank " + std::to_string(theirs.rank) +
                             " answered for another session (another job on these ports?)");
    if (me == party::bob && (mine.rank != 0 || mine.link != 0) && theirs.session != mine.session)
        throw protocol_error("tandem::mpi: rank " + std::to_string(mine.rank) +
                             " reached another session than rank 0 did (another job on these ports?)");
    if (me == party::bob) mine.session = theirs.session;
}

/// One rank's `count` links: Alice's listens on `port` and accepts them in
/// turn, Bob's connects to host:port for each; the hellos are swapped and
/// checked (check_hello). mine.session is Alice's id on her side; on Bob's
/// the one his rank 0 reached (0 on rank 0 itself, which learns it here).
inline std::vector<std::unique_ptr<net::channel>> link_rank(party me, rank_hello& mine, const std::string& host,
                                                            std::uint16_t port, std::chrono::milliseconds timeout,
                                                            std::uint32_t count) {
    std::vector<std::unique_ptr<net::channel>> links;
    std::optional<net::tcp_listener> listener;
    if (me == party::alice) listener.emplace(port);
    for (std::uint32_t k = 0; k < count; ++k) {
        std::unique_ptr<net::channel> link;
        rank_hello theirs;
        mine.link = k;
        if (me == party::alice) {
            link = listener->accept(timeout);
            link->set_timeout(timeout);
            mine.send(*link);
            theirs = rank_hello::receive(*link);
        } else {
            link = net::tcp_connect(host, port, timeout);
            link->set_timeout(timeout);
            theirs = rank_hello::receive(*link);
            rank_hello{theirs.session, mine.rank, mine.ranks, k}.send(*link);  // before checking: the peer learns why
        }
        check_hello(me, mine, theirs);
        links.push_back(std::move(link));
    }
    return links;
}
}  // namespace detail

/// Opens this rank's `count` links (one per world with IPP) to the peer
/// party's rank of the same number. Alice's rank r listens on base_port + r
/// (all addresses) and accepts them in turn. Rank 0's links form first: Bob's
/// rank 0 connects to peer_host:base_port, and Alice's rank 0 sends him
/// where each of her ranks is reached (detail::advertised_host:
/// $TANDEM_MPI_HOST, else the rank's host name if it is not rank 0's, else
/// peer_host), which he broadcasts; then Bob's rank r connects there, port
/// base_port + r, retrying until `timeout`. Alice's hello goes first, Bob
/// answers with his, and each end checks the other's: the same rank, number
/// of ranks and link (so a different mpirun -np is a protocol_error at both
/// ends), on Alice's side her session id, on Bob's ranks his rank 0's.
/// Collective over r's communicator; a failure on any rank is reported on
/// every rank (ranks::agree).
inline std::vector<std::unique_ptr<net::channel>> open_peer_links(
    party me, const ranks& r, const std::string& peer_host, std::uint16_t base_port, std::uint32_t count,
    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::exception_ptr failed;
    std::uint64_t session = 0;  // Alice's, drawn by her rank 0: public, it only tells sessions apart
    std::string host;           // Alice: where Bob's rank of this number reaches this one
    try {
        if (static_cast<std::uint32_t>(base_port) + static_cast<std::uint32_t>(r.size()) > 65536u)
            throw usage_error("tandem::mpi::open_peer_links: base port " + std::to_string(base_port) + " + " +
                              std::to_string(r.size()) + " ranks passes 65535; choose a lower base port");
        if (me == party::alice && r.rank() == 0) {
            std::random_device device;
            session = (std::uint64_t{device()} << 32) | device();
        }
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "drawing the session id");
    session = r.broadcast(session);
    if (me == party::alice) host = detail::advertised_host(r);
    rank_hello mine{session, static_cast<std::uint32_t>(r.rank()), static_cast<std::uint32_t>(r.size())};
    // Alice's hosts, rank by rank, as her rank 0 tells Bob's: a length (4 bytes) and the name each.
    std::vector<std::string> hosts(static_cast<std::size_t>(r.size()));
    {
        std::vector<char> all(static_cast<std::size_t>(r.size()) * 256);
        if (me == party::alice) {
            char name[256] = {};
            host.copy(name, std::min<std::size_t>(host.size(), 255));
            check(MPI_Gather(name, 256, MPI_CHAR, all.data(), 256, MPI_CHAR, 0, r.comm()), "MPI_Gather");
            for (std::size_t k = 0; k < hosts.size(); ++k) hosts[k] = all.data() + 256 * k;
        }
    }
    std::vector<std::unique_ptr<net::channel>> links;
    try {
        if (r.rank() == 0) {
            links = detail::link_rank(me, mine, peer_host, base_port, timeout, count);
            net::channel* const link = links.front().get();
            if (me == party::alice) {
                for (const std::string& h : hosts) {
                    link->send_value(static_cast<std::uint32_t>(h.size()));
                    if (!h.empty()) link->send(h.data(), h.size());
                }
                link->flush();
            } else {
                for (std::string& h : hosts) {
                    const auto n = link->recv_value<std::uint32_t>();
                    if (n > 255) throw protocol_error("tandem::mpi: the peer's rank 0 named a host of " +
                                                      std::to_string(n) + " bytes for one of its ranks");
                    h.resize(n);
                    if (n != 0) link->recv(h.data(), n);
                }
            }
        }
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "opening the link to the peer party's rank");
    if (me == party::bob) {  // rank 0's hosts and session, on every rank
        std::vector<char> all(static_cast<std::size_t>(r.size()) * 256);
        if (r.rank() == 0)
            for (std::size_t k = 0; k < hosts.size(); ++k) hosts[k].copy(all.data() + 256 * k, 255);
        check(MPI_Bcast(all.data(), static_cast<int>(all.size()), MPI_CHAR, 0, r.comm()), "MPI_Bcast");
        for (std::size_t k = 0; k < hosts.size(); ++k) hosts[k] = all.data() + 256 * k;
        mine.session = r.broadcast(mine.session);
        mine.link = 0;
    }
    try {
        if (r.rank() != 0) {
            const std::string& to = hosts[static_cast<std::size_t>(r.rank())];
            links = detail::link_rank(me, mine, to.empty() ? peer_host : to,
                                      static_cast<std::uint16_t>(base_port + r.rank()), timeout, count);
        }
    } catch (...) {
        failed = std::current_exception();
    }
    r.agree(failed, "opening the link to the peer party's rank");
    return links;
}

/// open_peer_links with one link per rank.
inline std::unique_ptr<net::channel> open_peer_link(party me, const ranks& r, const std::string& peer_host,
                                                    std::uint16_t base_port,
                                                    std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    return std::move(open_peer_links(me, r, peer_host, base_port, 1, timeout).front());
}

}  // namespace tandem::mpi

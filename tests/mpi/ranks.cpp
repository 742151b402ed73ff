// test_mpi_ranks — one party of the tandem::mpi start-up tests (tests/mpi/pair.sh
// runs Alice's and Bob's mpirun side by side): every rank opens its link to
// the peer party's rank of its number (mpi::open_peer_link) and swaps a value
// that names both ranks over it. With --wrong-port K, rank K of this party
// uses another port, so its link never forms; with --expect-rank K, every
// rank must then fail, within twice the timeout, with a tandem::error naming
// rank K as the one that failed ("rank K of"); with --expect-count-mismatch,
// with one saying both parties must run the same number of ranks.
//
//   test_mpi_ranks --party alice|bob --port P [--host H] [--timeout-ms T] [--wrong-port K]
//                  [--expect-rank K | --expect-count-mismatch yes]
#include <tandem/mpi.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    tandem::mpi::environment env(argc, argv);
    tandem::party me = tandem::party::alice;
    std::string host = "127.0.0.1", expect;
    int port = 0, wrong_port = -1;
    long timeout_ms = 5000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--party") me = v == "bob" ? tandem::party::bob : tandem::party::alice;
        else if (a == "--port") port = std::stoi(v);
        else if (a == "--host") host = v;
        else if (a == "--timeout-ms") timeout_ms = std::stol(v);
        else if (a == "--wrong-port") wrong_port = std::stoi(v);
        else if (a == "--expect-rank") expect = "rank " + v + " of ";
        else if (a == "--expect-count-mismatch") expect = "the same number of ranks";
    }
    const tandem::mpi::ranks r;
    const char* name = me == tandem::party::alice ? "alice" : "bob";
    const auto t0 = std::chrono::steady_clock::now();
    try {
        // Rank `wrong_port` looks 1000 ports away: only its own link never forms.
        const auto base = static_cast<std::uint16_t>(r.rank() == wrong_port ? port + 1000 : port);
        auto link = tandem::mpi::open_peer_link(me, r, host, base, std::chrono::milliseconds(timeout_ms));
        const auto rank = static_cast<std::uint64_t>(r.rank());
        const std::uint64_t mine = 1000u * static_cast<std::uint64_t>(me == tandem::party::bob) + rank;
        link->send_value(mine);
        link->flush();
        const auto theirs = link->recv_value<std::uint64_t>();
        if (theirs != 1000u * static_cast<std::uint64_t>(me == tandem::party::alice) + rank) {
            std::printf("%s rank %d: the peer's rank sent %llu\n", name, r.rank(), static_cast<unsigned long long>(theirs));
            return 1;
        }
        std::printf("%s rank %d of %d: linked to the peer's rank %d\n", name, r.rank(), r.size(), r.rank());
        return expect.empty() ? 0 : 1;
    } catch (const tandem::error& e) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s rank %d of %d: error after %.1f s: %s\n", name, r.rank(), r.size(), s, e.what());
        const bool in_time = s < 2.0 * static_cast<double>(timeout_ms) / 1000 + 5;
        return !expect.empty() && std::string(e.what()).find(expect) != std::string::npos && in_time ? 0 : 1;
    }
}

// tandem/mpi/liveness.hpp — signs of life between a party's ranks while a
// session runs on them (issue 31, docs/DESIGN.md §12). MPI 3.1 gives a wait
// on a rank that stopped (a stalled host, a SIGSTOP) no deadline, and Open
// MPI 4 neither reports a dead rank to the others nor lets a collective
// finish without it. So while mpi::run runs, rank 0 sends every rank a beat
// (one byte) every quarter of the session's timeout, and every rank sends
// rank 0 one; each wait on a rank also takes that rank's beats, and a rank
// silent for the timeout is declared lost: a tandem::error naming it, the
// session's end settled without collectives (mpi/session.hpp), and the
// process ends with MPI_Abort instead of MPI_Finalize (environment), which
// would wait for the lost rank forever — after the error has been reported.
#pragma once

#include <tandem/error.hpp>
#include <tandem/mpi/ranks.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tandem::mpi {

namespace detail {
inline constexpr int beat_tag = 3190;
}  // namespace detail

/// The beats of one mpi::run: a thread sending this rank's, and the
/// deadline every wait on another rank keeps.
class liveness {
public:
    liveness(const ranks& r, std::chrono::milliseconds timeout)
        : r_(r), timeout_(timeout),
          period_(std::clamp<std::chrono::milliseconds>(timeout / 4, std::chrono::milliseconds(10),
                                                        std::chrono::milliseconds(1000))) {
        if (r_.size() > 1) beater_ = std::thread([this] { beat(); });
    }
    liveness(const liveness&) = delete;
    liveness& operator=(const liveness&) = delete;
    ~liveness() {
        {
            std::lock_guard lock(m_);
            stop_ = true;
        }
        cv_.notify_all();
        if (beater_.joinable()) beater_.join();
    }

    std::chrono::milliseconds timeout() const noexcept { return timeout_; }
    /// Whether rank w was declared lost (a watch on it expired).
    bool lost(int w) const {
        std::lock_guard lock(m_);
        return std::find(lost_.begin(), lost_.end(), w) != lost_.end();
    }

    /// A wait on rank `peer`: call check() while waiting; it takes the
    /// peer's beats and throws once none came for the timeout.
    class watch {
    public:
        watch(liveness& l, int peer) : l_(l), peer_(peer), heard_(std::chrono::steady_clock::now()) {}
        void check() {
            const auto now = std::chrono::steady_clock::now();
            for (;;) {  // beats waiting since an earlier wait count as heard now: they were sent within it
                int pending = 0;
                tandem::mpi::check(MPI_Iprobe(peer_, detail::beat_tag, l_.r_.comm(), &pending, MPI_STATUS_IGNORE),
                                   "MPI_Iprobe");
                if (!pending) break;
                char b = 0;
                tandem::mpi::check(MPI_Recv(&b, 1, MPI_CHAR, peer_, detail::beat_tag, l_.r_.comm(), MPI_STATUS_IGNORE),
                                   "MPI_Recv");
                heard_ = now;
            }
            if (now - heard_ > l_.timeout_) {
                environment::rank_lost() = true;
                {
                    std::lock_guard lock(l_.m_);
                    l_.lost_.push_back(peer_);
                }
                throw error("tandem::mpi: rank " + std::to_string(peer_) + " of " + std::to_string(l_.r_.size()) +
                            " has not been heard from for " + std::to_string(l_.timeout_.count()) +
                            " ms (its process stopped, or its host is lost); this job ends with MPI_Abort once the "
                            "error is reported");
            }
        }

    private:
        liveness& l_;
        int peer_;
        std::chrono::steady_clock::time_point heard_;
    };

private:
    void beat() {
        std::vector<MPI_Request> sent;
        const char b = 1;
        std::unique_lock lock(m_);
        while (!stop_) {
            lock.unlock();
            for (int w = 0; w < r_.size(); ++w)
                if (w != r_.rank() && (r_.rank() == 0 || w == 0)) {
                    MPI_Request q;
                    if (MPI_Isend(&b, 1, MPI_CHAR, w, detail::beat_tag, r_.comm(), &q) == MPI_SUCCESS) sent.push_back(q);
                }
            // Beats to a rank that stopped never complete: keep their requests, test them, never wait.
            std::erase_if(sent, [](MPI_Request& q) {
                int done = 0;
                MPI_Test(&q, &done, MPI_STATUS_IGNORE);
                return done != 0;
            });
            lock.lock();
            cv_.wait_for(lock, period_, [&] { return stop_; });
        }
        lock.unlock();
        for (MPI_Request& q : sent) MPI_Request_free(&q);
    }

    const ranks& r_;
    std::chrono::milliseconds timeout_, period_;
    mutable std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::vector<int> lost_;
    std::thread beater_;
};

}  // namespace tandem::mpi

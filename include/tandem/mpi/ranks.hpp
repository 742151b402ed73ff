// tandem/mpi/ranks.hpp — MPI in a tandem process (issue 31, docs/DESIGN.md
// §12): the environment, checked calls, and a party's ranks, whose failures
// reach every rank (ranks::agree) instead of MPI aborting the job.
#pragma once

#include <mpi.h>

#include <tandem/error.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>

namespace tandem::mpi {

/// Throws tandem::error naming the MPI call and its message when rc is not MPI_SUCCESS.
inline void check(int rc, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, text, &n);
    throw error(std::string("tandem::mpi: ") + call + " failed: " + std::string(text, static_cast<std::size_t>(n)));
}

namespace detail {
/// The message of a failure, for the other ranks (empty for none).
inline std::string message_of(const std::exception_ptr& e) {
    if (!e) return {};
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return *x.what() ? x.what() : "an error without a message";
    } catch (...) {
        return "an unknown exception";
    }
}
}  // namespace detail

/// MPI in this process, from construction to destruction: initialised with
/// MPI_THREAD_MULTIPLE (rank 0's executor threads talk to the other ranks,
/// mpi/garble.hpp), and with errors returned as codes on MPI_COMM_WORLD, so
/// that tandem reports them (check) instead of MPI aborting every process of
/// the job.
class environment {
public:
    environment(int& argc, char**& argv) {
        int provided = 0;
        check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
        check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
        if (provided < MPI_THREAD_MULTIPLE) {
            MPI_Finalize();
            throw error("tandem::mpi: this MPI library does not allow calls from several threads "
                        "(MPI_THREAD_MULTIPLE); tandem needs it (Debian's Open MPI has it)");
        }
    }
    environment(const environment&) = delete;
    environment& operator=(const environment&) = delete;
    /// MPI_Finalize — or, once a rank of this job was declared lost
    /// (mpi/liveness.hpp), MPI_Abort: finalizing would wait for it forever.
    /// The loss has been reported by then (a tandem::error on this rank).
    ~environment() {
        if (rank_lost()) MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Finalize();
    }

    /// Set once a rank is declared lost; read by the destructor.
    static std::atomic<bool>& rank_lost() {
        static std::atomic<bool> lost{false};
        return lost;
    }
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
        if (rank_ == first) why = detail::message_of(mine);
        std::uint64_t n = why.size();
        check(MPI_Bcast(&n, 1, MPI_UINT64_T, first, comm_), "MPI_Bcast");
        why.resize(n);
        check(MPI_Bcast(why.data(), static_cast<int>(n), MPI_CHAR, first, comm_), "MPI_Bcast");
        throw error("tandem::mpi: " + step + " failed on rank " + std::to_string(first) + " of " +
                    std::to_string(size_) + ": " + why);
    }

private:
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
};

}  // namespace tandem::mpi

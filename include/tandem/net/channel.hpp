// tandem/net/channel.hpp — a buffered, deadline-bounded byte stream to the peer.
//
// A channel is what every protocol stage talks through (docs/DESIGN.md §7): send()
// appends to a send buffer that goes out when it fills or on flush(); recv()
// first flushes what is pending (so two parties can never both wait on bytes
// the other has buffered), then serves from a receive buffer refilled in
// large reads. Every call that blocks has a deadline of `timeout()` from its
// start (renewed while bytes move); when it passes, or the peer closes the link, the call throws
// tandem::network_error naming the channel and the operation. Transports
// (TCP in net/tcp.hpp, the in-process pair in net/memory.hpp) provide the two
// raw operations below; everything else is here, so they behave alike.
#pragma once

#include <tandem/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

namespace tandem::net {

class secure_channel;
namespace detail {
struct tls_state;
}

/// The clock of deadlines and timings.
using clock = std::chrono::steady_clock;

/// Deadline of every blocking call unless set otherwise: long enough for a
/// peer that is still compiling a large circuit, short enough that a dead
/// peer is noticed.
inline constexpr std::chrono::milliseconds default_timeout{60'000};
/// Deadline for establishing a connection (the peer may start later).
inline constexpr std::chrono::milliseconds default_connect_timeout{30'000};

/// A buffered, deadline-bounded byte stream to the peer (see the top of this
/// header); transports derive from it.
class channel {
public:
    /// Bytes buffered before a send goes out; larger sends bypass the buffer.
    static constexpr std::size_t buffer_bytes = std::size_t{1} << 16;

    explicit channel(std::string name) : name_(std::move(name)) {}
    channel(const channel&) = delete;
    channel& operator=(const channel&) = delete;
    virtual ~channel() = default;

    /// Queues n bytes; they reach the peer at the latest on flush() or recv().
    void send(const void* data, std::size_t n) {
        if (n == 0) return;  // (data may be null)
        const auto* p = static_cast<const std::byte*>(data);
        sent_ += n;
        if (!send_buf_) [[unlikely]]
            send_buf_ = std::make_unique_for_overwrite<std::byte[]>(buffer_bytes);
        if (n <= buffer_bytes - send_len_) {
            std::memcpy(send_buf_.get() + send_len_, p, n);
            send_len_ += n;
            return;
        }
        if (send_len_ > 0) {  // top the buffer up so writes stay large
            const std::size_t k = buffer_bytes - send_len_;
            std::memcpy(send_buf_.get() + send_len_, p, k);
            write_all(send_buf_.get(), buffer_bytes, "send");
            send_len_ = 0;
            p += k;
            n -= k;
        }
        if (n >= buffer_bytes) {
            write_all(p, n, "send");
        } else {
            std::memcpy(send_buf_.get(), p, n);
            send_len_ = n;
        }
    }

    /// Sends everything queued.
    void flush() {
        if (send_len_ == 0) return;
        write_all(send_buf_.get(), send_len_, "flush");
        send_len_ = 0;
    }

    /// Receives exactly n bytes (flushing pending sends first).
    void recv(void* data, std::size_t n) {
        flush();
        if (n == 0) return;
        auto* p = static_cast<std::byte*>(data);
        received_ += n;
        const std::size_t have = recv_end_ - recv_pos_;
        if (n <= have) {
            std::memcpy(p, recv_buf_.get() + recv_pos_, n);
            recv_pos_ += n;
            return;
        }
        if (have > 0) std::memcpy(p, recv_buf_.get() + recv_pos_, have);
        p += have;
        n -= have;
        recv_pos_ = recv_end_ = 0;
        if (n >= buffer_bytes / 2) {  // large: straight into the caller's memory
            for (std::size_t got = 0; got < n;) got += read_some(p + got, n - got, n - got);
            return;
        }
        if (!recv_buf_) [[unlikely]]
            recv_buf_ = std::make_unique_for_overwrite<std::byte[]>(buffer_bytes);
        recv_end_ = read_some(recv_buf_.get(), n, buffer_bytes);
        std::memcpy(p, recv_buf_.get(), n);
        recv_pos_ = n;
    }

    template <class T>
    void send_value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>, "send_value needs a trivially copyable type");
        send(&v, sizeof v);
    }
    template <class T>
    T recv_value() {
        static_assert(std::is_trivially_copyable_v<T>, "recv_value needs a trivially copyable type");
        T v;
        recv(&v, sizeof v);
        return v;
    }

    /// Bytes handed to send() / returned by recv() so far (payload, not TCP overhead).
    std::uint64_t bytes_sent() const noexcept { return sent_; }
    std::uint64_t bytes_received() const noexcept { return received_; }

    /// Deadline of each blocking call.
    std::chrono::milliseconds timeout() const noexcept { return timeout_; }
    void set_timeout(std::chrono::milliseconds t) noexcept { timeout_ = t; }

    /// What the channel is connected to, for messages ("tcp to 10.0.0.2:7766").
    const std::string& name() const noexcept { return name_; }

    /// Whether the peer is known to run on this host — an in-process pair,
    /// TCP over loopback or between two equal addresses — so that the two
    /// parties share its cores (a streamed run's automatic pipelining,
    /// session_options::pipeline_streams). A transport that cannot tell says no.
    virtual bool peer_on_this_host() const noexcept { return false; }

    /// Whether a call that waits, made from a oneTBB task, suspends the task
    /// and lets its thread run others (net/suspend.hpp) rather than blocking
    /// the thread. The executor runs a run's tasks on oneTBB only when all
    /// its links say so (exec/executor.hpp); otherwise each task gets a
    /// thread of its own, which a blocking wait needs. TCP, sealed links over
    /// TCP and the in-process pair do; a transport that cannot says no.
    virtual bool waits_suspend() const noexcept { return false; }

    /// Frees the channel's buffers — and those of the layers beneath it —
    /// when they hold nothing (nothing queued to send, nothing read ahead);
    /// the next call that needs one allocates it again. For a session that
    /// waits long between runs (session::trim, which an asynchronous session
    /// calls after each operation): 128 KiB of buffers, ~700 KiB sealed.
    /// Returns whether the buffers were free to go.
    virtual bool trim() noexcept {
        if (send_len_ != 0 || recv_pos_ != recv_end_) return false;
        send_buf_.reset();
        recv_buf_.reset();
        recv_pos_ = recv_end_ = 0;
        return true;
    }

    /// Drops the link without flushing: the peer's pending and later calls
    /// fail with network_error, as do this end's.
    virtual void close() noexcept = 0;

    /// Makes calls blocked on this channel in other threads fail now, and
    /// later ones too; the peer sees the link closed. Safe from any thread
    /// (close() is not): the executor uses it to stop sibling workers when
    /// one of them fails.
    virtual void interrupt() noexcept = 0;

protected:
    // A secure_channel seals records and hands them to the transport's raw
    // operations directly, past the transport's own buffers.
    friend class secure_channel;
    friend struct detail::tls_state;  // a TLS handshake (net/tls_impl.hpp)

    // The deadline is one of progress: a transport throws (fail_deadline) when
    // no byte has moved for timeout(), so long transfers never time out while
    // they advance and a silent peer is noticed after timeout().

    /// Writes all n bytes or throws network_error.
    virtual void write_all(const std::byte* p, std::size_t n, const char* op) = 0;
    /// Reads at least `min` and at most `max` bytes; returns how many. Throws
    /// network_error if the peer closed the link or made no progress in time.
    virtual std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) = 0;

    /// read_some for a layer on top (a secure_channel) that takes the link
    /// over after plain recv() calls: the bytes recv() read ahead come first.
    std::size_t read_through(std::byte* p, std::size_t min, std::size_t max) {
        const std::size_t have = std::min(max, recv_end_ - recv_pos_);
        if (have > 0) std::memcpy(p, recv_buf_.get() + recv_pos_, have);
        recv_pos_ += have;
        return have >= min ? have : have + read_some(p + have, min - have, max - have);
    }

    /// The error a transport throws: "<op> on <name>: <what>. <hint>".
    [[noreturn]] void fail(const char* op, const std::string& what) const {
        throw network_error(std::string(op) + " on " + name_ + ": " + what);
    }
    [[noreturn]] void fail_deadline(const char* op) const {
        fail(op, "no progress within " + std::to_string(timeout_.count()) +
                     " ms (peer dead, stalled or waiting for something else); check that the other party is "
                     "running the same program, or raise the timeout");
    }
    [[noreturn]] void fail_closed(const char* op) const {
        fail(op, "the peer closed the connection (it stopped or failed; see its own error)");
    }

private:
    std::string name_;
    std::unique_ptr<std::byte[]> send_buf_;  // each allocated when first needed (trim)
    std::unique_ptr<std::byte[]> recv_buf_;
    std::size_t send_len_ = 0;
    std::size_t recv_pos_ = 0;
    std::size_t recv_end_ = 0;
    std::uint64_t sent_ = 0;
    std::uint64_t received_ = 0;
    std::chrono::milliseconds timeout_ = default_timeout;
};

}  // namespace tandem::net

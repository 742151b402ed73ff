// tandem/net/memory.hpp — two channels joined in memory, for unit tests.
//
// Each direction is a bounded byte queue (so a producer that runs ahead
// blocks as it would on a socket). Destroying or close()-ing one end makes
// the other end's blocked and later calls fail like a closed socket. Used
// by a oneTBB task, a wait suspends the task as a TCP channel's does
// (net/task_condition.hpp). Not for production use: two parties in one
// process share memory.
#pragma once

#include <tandem/net/channel.hpp>
#include <tandem/net/task_condition.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace tandem::net {

namespace detail {

/// One direction: a bounded FIFO of bytes.
struct memory_pipe {
    static constexpr std::size_t capacity = std::size_t{4} << 20;

    std::mutex m;
    task_condition changed;  // (notified under m)
    std::deque<std::byte> bytes;
    bool writer_closed = false;
    bool reader_closed = false;
};

}  // namespace detail

/// One end of an in-process channel pair (memory_pair), for tests.
class memory_channel final : public channel {
public:
    memory_channel(std::string name, std::shared_ptr<detail::memory_pipe> out, std::shared_ptr<detail::memory_pipe> in)
        : channel(std::move(name)), out_(std::move(out)), in_(std::move(in)) {}
    ~memory_channel() override { close(); }

    /// Closes both directions as seen from the peer (like closing a socket).
    void close() noexcept override {
        for (auto* pipe : {out_.get(), in_.get()}) {
            std::lock_guard lock(pipe->m);
            (pipe == out_.get() ? pipe->writer_closed : pipe->reader_closed) = true;
            pipe->changed.notify_all();
        }
    }
    void interrupt() noexcept override { close(); }
    bool peer_on_this_host() const noexcept override { return true; }
    bool waits_suspend() const noexcept override { return true; }

protected:
    void write_all(const std::byte* p, std::size_t n, const char* op) override {
        detail::memory_pipe& pipe = *out_;
        std::unique_lock lock(pipe.m);
        while (n > 0) {
            if (pipe.writer_closed) fail(op, "this end was closed");
            if (pipe.reader_closed) fail_closed(op);
            const std::size_t room = detail::memory_pipe::capacity - std::min(pipe.bytes.size(), detail::memory_pipe::capacity);
            if (room == 0) {
                if (!pipe.changed.wait(lock, timeout(), [&] {
                        return pipe.bytes.size() < detail::memory_pipe::capacity || pipe.reader_closed ||
                               pipe.writer_closed;
                    }))
                    fail_deadline(op);
                continue;
            }
            const std::size_t k = std::min(room, n);
            pipe.bytes.insert(pipe.bytes.end(), p, p + k);
            p += k;
            n -= k;
            pipe.changed.notify_all();
        }
    }

    std::size_t read_some(std::byte* p, std::size_t min, std::size_t max) override {
        detail::memory_pipe& pipe = *in_;
        std::unique_lock lock(pipe.m);
        std::size_t got = 0;
        while (got < min) {
            if (pipe.bytes.empty()) {
                if (pipe.reader_closed) fail("recv", "this end was closed");
                if (pipe.writer_closed) fail_closed("recv");
                if (!pipe.changed.wait(lock, timeout(), [&] {
                        return !pipe.bytes.empty() || pipe.writer_closed || pipe.reader_closed;
                    }))
                    fail_deadline("recv");
                continue;
            }
            const std::size_t k = std::min(max - got, pipe.bytes.size());
            std::copy_n(pipe.bytes.begin(), k, p + got);
            pipe.bytes.erase(pipe.bytes.begin(), pipe.bytes.begin() + static_cast<std::ptrdiff_t>(k));
            got += k;
            pipe.changed.notify_all();
        }
        return got;
    }

private:
    std::shared_ptr<detail::memory_pipe> out_;
    std::shared_ptr<detail::memory_pipe> in_;
};

/// Two connected in-memory channels: what one sends, the other receives.
inline std::pair<std::unique_ptr<memory_channel>, std::unique_ptr<memory_channel>> memory_pair() {
    auto a_to_b = std::make_shared<detail::memory_pipe>();
    auto b_to_a = std::make_shared<detail::memory_pipe>();
    return {std::make_unique<memory_channel>("memory channel (alice end)", a_to_b, b_to_a),
            std::make_unique<memory_channel>("memory channel (bob end)", b_to_a, a_to_b)};
}

}  // namespace tandem::net

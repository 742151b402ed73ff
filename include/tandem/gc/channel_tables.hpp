// tandem/gc/channel_tables.hpp — garbled tables sent over a channel as they are made.
//
// The garbler's sink hands each batch of tables to the channel's send buffer
// as soon as it is produced; the evaluator's source pulls them in chunks as
// it needs them. Neither side ever holds more than a chunk of the garbled
// circuit (docs/DESIGN.md §5, §7.7: pipelining), so memory does not grow with the circuit
// and both parties work at once.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// Sends tables as they come (buffered by the channel).
class channel_sink {
public:
    /// `flush_at_task_end` false: the tail of the tables stays in the
    /// channel's buffer when a task ends, for the run's next message on the
    /// same link to carry (session/engine.hpp: a one-worker compiled run,
    /// whose outputs follow at once) — one send and one wake-up of the
    /// evaluator fewer per run.
    explicit channel_sink(net::channel& ch, bool flush_at_task_end = true) noexcept
        : ch_(ch), flush_at_task_end_(flush_at_task_end) {}
    void write(const block* p, std::size_t n) { ch_.send(p, n * sizeof(block)); }
    /// Sends what is buffered (the executor calls it when a task ends, so the
    /// evaluator is not left waiting for the tail of a step).
    void flush() {
        if (flush_at_task_end_) ch_.flush();
    }

private:
    net::channel& ch_;
    bool flush_at_task_end_;
};

/// Receives exactly `total` blocks of tables, a chunk at a time.
class channel_source {
public:
    static constexpr std::size_t chunk_blocks = 4096;  // 64 KiB: one channel buffer

    channel_source(net::channel& ch, std::uint64_t total) : ch_(ch), left_(total) {}

    /// Frees the chunk buffer when it holds no table (an idle session's
    /// memory, session::trim); the next read allocates it again.
    void trim() noexcept {
        if (pos_ == end_) {
            buf_.reset();
            pos_ = end_ = 0;
        }
    }

    /// Allows `more` blocks beyond those announced so far. With IPP tables
    /// come in segments between boundaries (session/ipp.hpp): the source is
    /// given one segment at a time, so it never reads past the segment's end.
    void allow(std::uint64_t more) noexcept { left_ += more; }

    const block* read(std::size_t n) {
        if (n > end_ - pos_) refill(n);
        const block* r = buf_.get() + pos_;
        pos_ += n;
        return r;
    }

private:
    void refill(std::size_t n) {
        const std::size_t have = end_ - pos_;
        if (n - have > left_)
            throw protocol_error("garbled tables: the circuit needs more tables than the garbler announced");
        if (n > chunk_blocks) tandem::detail::internal_error("table batch larger than a chunk");
        if (!buf_) buf_ = std::make_unique_for_overwrite<block[]>(chunk_blocks);  // (have is 0 then)
        std::memmove(static_cast<void*>(buf_.get()), buf_.get() + pos_, have * sizeof(block));
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_blocks - have, left_));
        ch_.recv(buf_.get() + have, want * sizeof(block));
        left_ -= want;
        pos_ = 0;
        end_ = have + want;
    }

    net::channel& ch_;
    std::unique_ptr<block[]> buf_;
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
    std::uint64_t left_;
};

}  // namespace tandem::gc

TANDEM_CRYPTO_END

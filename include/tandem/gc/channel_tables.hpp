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
#include <tandem/gc/scheme.hpp>
#include <tandem/net/channel.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// Sends tables as they come (buffered by the channel): blocks from
/// half-gates, bytes from three-halves.
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
    void write_bytes(const void* p, std::size_t n) { ch_.send(p, n); }
    /// Sends what is buffered (the executor calls it when a task ends, so the
    /// evaluator is not left waiting for the tail of a step).
    void flush() {
        if (flush_at_task_end_) ch_.flush();
    }

private:
    net::channel& ch_;
    bool flush_at_task_end_;
};

/// Receives the tables of the ANDs it is allowed, a chunk at a time.
///
/// It reads ahead only as far as the tables certainly reach: the least
/// bytes the allowed ANDs take (gc/scheme.hpp) — exact for half-gates; with
/// three-halves a call's last group may be a byte longer, and those bytes
/// are read when the kernel asks for them. So it never takes bytes of what
/// follows the tables on the link (the outputs, the next segment's labels).
class channel_source {
public:
    static constexpr std::size_t chunk_bytes = 65536;  // one channel buffer

    explicit channel_source(net::channel& ch) : ch_(ch) {}

    /// Frees the chunk buffer when it holds no table (an idle session's
    /// memory, session::trim); the next read allocates it again.
    void trim() noexcept {
        if (pos_ == end_) {
            buf_.reset();
            pos_ = end_ = 0;
        }
    }

    /// Allows the tables of more ANDs (`tables_of(scheme, ands)`) beyond
    /// those allowed so far. With IPP tables come in segments between
    /// boundaries (session/ipp.hpp): the source is given one segment at a
    /// time, so it never reads past the segment's end.
    void allow(table_bytes_range more) noexcept {
        ahead_ += more.least;
        most_ += more.most;
    }

    /// The next n bytes of tables.
    const std::uint8_t* read_bytes(std::size_t n) {
        if (n > most_)
            throw protocol_error("garbled tables: the circuit needs more tables than the garbler announced");
        if (n > end_ - pos_) refill(n);
        const std::uint8_t* r = bytes() + pos_;
        pos_ += n;
        most_ -= n;
        return r;
    }
    /// The next n blocks (half-gates, whose reads keep the chunk's blocks aligned).
    const block* read(std::size_t n) {
        if (pos_ % sizeof(block) != 0) tandem::detail::internal_error("channel_source: blocks read after bytes");
        return reinterpret_cast<const block*>(read_bytes(n * sizeof(block)));
    }

private:
    std::uint8_t* bytes() noexcept { return reinterpret_cast<std::uint8_t*>(buf_.get()); }

    void refill(std::size_t n) {
        const std::size_t have = end_ - pos_;
        if (n > chunk_bytes) tandem::detail::internal_error("table batch larger than a chunk");
        if (!buf_) buf_ = std::make_unique_for_overwrite<block[]>(chunk_bytes / sizeof(block));  // (have is 0 then)
        std::memmove(bytes(), bytes() + pos_, have);
        // What the kernel asks for, and ahead as far as the tables certainly reach.
        const std::size_t want = std::max<std::size_t>(
            n - have, static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes - have, ahead_)));
        ch_.recv(bytes() + have, want);
        ahead_ -= std::min<std::uint64_t>(ahead_, want);
        pos_ = 0;
        end_ = have + want;
    }

    net::channel& ch_;
    std::unique_ptr<block[]> buf_;  // blocks: aligned for half-gates' reads
    std::size_t pos_ = 0;           // in bytes, as end_
    std::size_t end_ = 0;
    std::uint64_t ahead_ = 0;  // bytes that certainly follow on the link, not yet received
    std::uint64_t most_ = 0;   // bytes the allowed ANDs may still take
};

}  // namespace tandem::gc

TANDEM_CRYPTO_END

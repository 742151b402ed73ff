// tandem/gc/tables.hpp — where garbled tables go and come from.
//
// The garbler hands each batch of tables to a sink as soon as it is produced
// (two blocks, 32 bytes, per AND; nothing for XOR and NOT); the evaluator
// pulls them from a source in the same order. In-memory forms live here; the
// channel forms (gc/channel_tables.hpp) have the same two members.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/block.hpp>
#include <tandem/error.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::gc {

/// Receives garbled tables in order: write(tables, n) with n blocks.
template <class S>
concept table_sink = requires(S& s, const block* p, std::size_t n) { s.write(p, n); };

/// Provides garbled tables in order: read(n) returns n consecutive blocks.
template <class S>
concept table_source = requires(S& s, std::size_t n) {
    { s.read(n) } -> std::same_as<const block*>;
};

/// Receives garbled tables as bytes, in order (three-halves: a group of ANDs'
/// rows and control bits, gc/three_halves.hpp).
template <class S>
concept byte_sink = requires(S& s, const void* p, std::size_t n) { s.write_bytes(p, n); };

/// Provides garbled tables as bytes: read_bytes(n) returns n consecutive bytes.
template <class S>
concept byte_source = requires(S& s, std::size_t n) {
    { s.read_bytes(n) } -> std::same_as<const std::uint8_t*>;
};

/// Keeps every table in memory.
class table_buffer {
public:
    void write(const block* p, std::size_t n) { tables_.insert(tables_.end(), p, p + n); }
    const std::vector<block>& tables() const noexcept { return tables_; }
    std::size_t bytes() const noexcept { return tables_.size() * sizeof(block); }
    void clear() noexcept { tables_.clear(); }
    void reserve(std::size_t blocks) { tables_.reserve(blocks); }

private:
    std::vector<block> tables_;
};

/// Reads tables from memory, checking that enough remain.
class table_reader {
public:
    explicit table_reader(const std::vector<block>& tables) noexcept : p_(tables.data()), left_(tables.size()) {}
    table_reader(const block* p, std::size_t n) noexcept : p_(p), left_(n) {}

    const block* read(std::size_t n) {
        if (n > left_) throw protocol_error("garbled tables ended early: the circuit needs more than were produced");
        const block* r = p_;
        p_ += n;
        left_ -= n;
        return r;
    }
    std::size_t remaining() const noexcept { return left_; }

private:
    const block* p_;
    std::size_t left_;
};

/// Keeps tables given as bytes in memory.
class byte_buffer {
public:
    void write_bytes(const void* p, std::size_t n) {
        const auto* b = static_cast<const std::uint8_t*>(p);
        bytes_.insert(bytes_.end(), b, b + n);
    }
    const std::vector<std::uint8_t>& bytes() const noexcept { return bytes_; }
    void clear() noexcept { bytes_.clear(); }
    void reserve(std::size_t bytes) { bytes_.reserve(bytes); }

private:
    std::vector<std::uint8_t> bytes_;
};

/// Reads tables as bytes from memory, checking that enough remain.
class byte_reader {
public:
    explicit byte_reader(const std::vector<std::uint8_t>& bytes) noexcept : p_(bytes.data()), left_(bytes.size()) {}

    const std::uint8_t* read_bytes(std::size_t n) {
        if (n > left_) throw protocol_error("garbled tables ended early: the circuit needs more than were produced");
        const std::uint8_t* r = p_;
        p_ += n;
        left_ -= n;
        return r;
    }
    std::size_t remaining() const noexcept { return left_; }

private:
    const std::uint8_t* p_;
    std::size_t left_;
};

}  // namespace tandem::gc

TANDEM_CRYPTO_END

// A channel wrapper that keeps a copy of every byte its end writes: the
// transcript a replay must reproduce (tests/ipp.cpp) or a seed for the
// fuzzers (fuzz/seeds.cpp). Tests and tools only; no doctest here.
#pragma once

#include <tandem/net/channel.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace tandem::test {

/// Forwards to an inner channel; appends what this end writes to `written`
/// (any vector of byte-sized values).
template <class Bytes>
class basic_recording_channel final : public net::channel {
public:
    basic_recording_channel(std::unique_ptr<net::channel> inner, std::shared_ptr<Bytes> written)
        : net::channel("recording " + inner->name()), inner_(std::move(inner)), written_(std::move(written)) {}
    void close() noexcept override { inner_->close(); }
    void interrupt() noexcept override { inner_->interrupt(); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        static_assert(sizeof(typename Bytes::value_type) == 1, "recording_channel keeps bytes");
        const auto* b = reinterpret_cast<const typename Bytes::value_type*>(p);
        written_->insert(written_->end(), b, b + n);
        inner_->send(p, n);
        inner_->flush();
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t) override {
        inner_->recv(p, min);
        return min;
    }

private:
    std::unique_ptr<net::channel> inner_;
    std::shared_ptr<Bytes> written_;
};

using recording_channel = basic_recording_channel<std::vector<std::byte>>;

}  // namespace tandem::test

// A channel wrapper that alters chosen bytes of what its end sends: the
// cheating peer of the malicious-security tests (a flipped bit at a named
// place in the protocol's stream). Tests only; no doctest here.
#pragma once

#include <tandem/net/channel.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

namespace tandem::test {

/// Forwards to `inner` (not owned); byte k of this end's stream (k counted
/// from the first byte sent through the wrapper) leaves XORed with
/// flips[k].
class tamper_channel final : public net::channel {
public:
    explicit tamper_channel(net::channel& inner) : net::channel("tampered " + inner.name()), inner_(inner) {
        set_timeout(inner.timeout());
    }
    /// The same, owning `inner`: the link goes with the wrapper, so when the
    /// session holding it fails, the peer sees the link close at once rather
    /// than waiting out its deadline.
    explicit tamper_channel(std::unique_ptr<net::channel> inner) : tamper_channel(*inner) { owned_ = std::move(inner); }
    /// Alters the byte `ahead` bytes after everything sent so far.
    void flip_ahead(std::uint64_t ahead, std::uint8_t mask) { flips_[bytes_sent() + ahead] ^= mask; }
    /// The same, counted from everything written so far, also by a layer on
    /// top that writes past send() (a TLS link's records).
    void flip_after_written(std::uint64_t ahead, std::uint8_t mask) { flips_[written_ + ahead] ^= mask; }
    /// Flips applied so far.
    std::uint64_t flipped() const noexcept { return *flipped_; }
    /// The same count, readable after the channel is gone (a session owns
    /// and destroys it): a test that accepts "no effect" checks the flip
    /// was applied.
    std::shared_ptr<const std::uint64_t> flip_count() const noexcept { return flipped_; }
    void close() noexcept override { inner_.close(); }
    void interrupt() noexcept override { inner_.interrupt(); }
    bool peer_on_this_host() const noexcept override { return inner_.peer_on_this_host(); }
    bool waits_suspend() const noexcept override { return inner_.waits_suspend(); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        for (auto it = flips_.lower_bound(written_); it != flips_.end() && it->first < written_ + n;) {
            std::byte b = p[it->first - written_] ^ std::byte{it->second};
            inner_.send(p, it->first - written_);
            inner_.send(&b, 1);
            const std::size_t skip = it->first - written_ + 1;
            p += skip;
            n -= skip;
            written_ += skip;
            ++*flipped_;
            it = flips_.erase(it);
        }
        inner_.send(p, n);
        written_ += n;
        inner_.flush();
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t) override {
        inner_.recv(p, min);
        return min;
    }

private:
    net::channel& inner_;
    std::map<std::uint64_t, std::uint8_t> flips_;
    std::uint64_t written_ = 0;
    std::shared_ptr<std::uint64_t> flipped_ = std::make_shared<std::uint64_t>(0);
    std::unique_ptr<net::channel> owned_;  // inner_, where the wrapper owns it
};

}  // namespace tandem::test

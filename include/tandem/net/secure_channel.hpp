// tandem/net/secure_channel.hpp — a channel whose bytes are encrypted and
// authenticated (docs/DESIGN.md §9.3): secure_link() runs a Noise handshake
// (net/noise.hpp) over a freshly opened link and wraps it in a
// secure_channel, which cuts what is sent into records of at most 65,519
// bytes, each sealed with the direction's key and a counter nonce, and
// checks and opens them on receipt. A record that fails its tag — altered,
// dropped, replayed or reordered in transit — is a security_error, and the
// channel refuses all later calls.
//
// Before the handshake each side sends a 16-byte greeting in the clear
// (magic, version, pattern, role, the ciphers its CPU runs) so that two
// parties set up differently get a protocol_error naming the difference
// instead of a failed tag; both greetings and the link's index are the
// handshake's prologue, so altering them in transit fails the handshake.
#pragma once

#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/keys.hpp>
#include <tandem/net/noise.hpp>
#include <tandem/net/refusal.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tandem::net {

std::unique_ptr<channel> secure_link(std::unique_ptr<channel> raw, const link_credentials& creds, bool initiator,
                                     std::uint32_t link_index,
                                     const std::optional<noise::key32>& insecure_ephemeral = std::nullopt);

/// A channel sealed record by record; made by secure_link().
class secure_channel final : public channel {
public:
    /// Noise's largest message, and the payload of one record.
    static constexpr std::size_t max_record = 65535;
    static constexpr std::size_t max_payload = max_record - noise::tag_bytes;
    /// Records sealed before one write to the transport.
    static constexpr std::size_t batch_records = 4;

    secure_channel(std::unique_ptr<channel> inner, noise::cipher_state sender, noise::cipher_state receiver,
                   std::string name)
        : channel(std::move(name)), inner_(std::move(inner)), send_(std::move(sender)), recv_(std::move(receiver)) {}

    void close() noexcept override { inner_->close(); }
    bool trim() noexcept override {
        // Records read ahead (in_) or a record's unread rest (plain_) stay.
        if (in_pos_ != in_end_ || plain_pos_ != plain_end_ || !channel::trim()) return false;
        out_.reset();
        in_.reset();
        plain_.reset();
        in_pos_ = in_end_ = plain_pos_ = plain_end_ = 0;
        return inner_->trim();
    }
    void interrupt() noexcept override { inner_->interrupt(); }
    bool peer_on_this_host() const noexcept override { return inner_->peer_on_this_host(); }
    bool waits_suspend() const noexcept override { return inner_->waits_suspend(); }

protected:
    void write_all(const std::byte* data, std::size_t n, const char* op) override {
        check_usable(op);
        inner_->set_timeout(timeout());
        const auto* p = reinterpret_cast<const std::uint8_t*>(data);
        if (!out_) out_ = std::make_unique_for_overwrite<std::uint8_t[]>(batch_records * (2 + max_record));
        while (n > 0) {
            std::size_t len = 0;
            for (std::size_t r = 0; r < batch_records && n > 0; ++r) {
                const std::size_t k = std::min(n, max_payload);
                std::uint8_t* record = out_.get() + len;
                const std::size_t sealed = k + noise::tag_bytes;
                record[0] = static_cast<std::uint8_t>(sealed >> 8);
                record[1] = static_cast<std::uint8_t>(sealed);
                send_.encrypt(nullptr, 0, p, k, record + 2);
                len += 2 + sealed;
                p += k;
                n -= k;
            }
            inner_->write_all(reinterpret_cast<const std::byte*>(out_.get()), len, op);
        }
    }

    std::size_t read_some(std::byte* data, std::size_t min, std::size_t max) override {
        check_usable("recv");
        inner_->set_timeout(timeout());
        auto* p = reinterpret_cast<std::uint8_t*>(data);
        std::size_t got = take_plain(p, max);
        while (got < min) {
            fill(2);
            const std::size_t sealed = std::size_t{in_[in_pos_]} << 8 | in_[in_pos_ + 1];
            if (sealed < noise::tag_bytes) fail_record();
            fill(2 + sealed);
            const std::size_t k = sealed - noise::tag_bytes;
            // Straight into the caller's memory when the record fits there.
            if (max - got < k && !plain_) plain_ = std::make_unique_for_overwrite<std::uint8_t[]>(max_payload);
            std::uint8_t* to = max - got >= k ? p + got : plain_.get();
            if (!recv_.decrypt(nullptr, 0, in_.get() + in_pos_ + 2, sealed, to)) fail_record();
            in_pos_ += 2 + sealed;
            ++records_;
            if (to == plain_.get()) {
                plain_pos_ = 0;
                plain_end_ = k;
                got += take_plain(p + got, max - got);
            } else {
                got += k;
            }
        }
        return got;
    }

private:
    // The handshake talks through the transport's raw operations too: its
    // buffered recv() could read ahead into the first sealed record.
    friend std::unique_ptr<channel> secure_link(std::unique_ptr<channel>, const link_credentials&, bool,
                                                std::uint32_t, const std::optional<noise::key32>&);
    static void raw_send(channel& c, const void* p, std::size_t n) {
        c.write_all(static_cast<const std::byte*>(p), n, "link handshake");
    }
    static void raw_recv(channel& c, void* p, std::size_t n) {
        auto* b = static_cast<std::byte*>(p);
        for (std::size_t got = 0; got < n;) got += c.read_through(b + got, n - got, n - got);
    }
    static void send_message(channel& c, const std::vector<std::uint8_t>& m) {
        std::vector<std::uint8_t> framed = {static_cast<std::uint8_t>(m.size() >> 8), static_cast<std::uint8_t>(m.size())};
        framed.insert(framed.end(), m.begin(), m.end());
        raw_send(c, framed.data(), framed.size());
    }
    static std::vector<std::uint8_t> recv_message(channel& c) {
        std::uint8_t len[2];
        raw_recv(c, len, 2);
        std::vector<std::uint8_t> m(std::size_t{len[0]} << 8 | len[1]);
        raw_recv(c, m.data(), m.size());
        return m;
    }

    static constexpr std::size_t in_capacity = batch_records * (2 + max_record);

    std::size_t take_plain(std::uint8_t* p, std::size_t max) noexcept {
        const std::size_t k = std::min(max, plain_end_ - plain_pos_);
        if (k) std::memcpy(p, plain_.get() + plain_pos_, k);
        plain_pos_ += k;
        return k;
    }

    // At least `need` bytes of records from in_pos_ on, reading more as the
    // transport has them.
    void fill(std::size_t need) {
        if (!in_) in_ = std::make_unique_for_overwrite<std::uint8_t[]>(in_capacity);
        const std::size_t have = in_end_ - in_pos_;
        if (have >= need) return;
        if (in_pos_ + need > in_capacity) {
            std::memmove(in_.get(), in_.get() + in_pos_, have);
            in_pos_ = 0;
            in_end_ = have;
        }
        in_end_ += inner_->read_through(reinterpret_cast<std::byte*>(in_.get() + in_end_), need - have,
                                     in_capacity - in_end_);
    }

    void check_usable(const char* op) const {
        if (failed_)
            throw security_error(std::string(op) + " on " + name() +
                                 ": the link already failed authentication; the session cannot continue");
    }
    [[noreturn]] void fail_record() {
        failed_ = true;
        throw security_error("recv on " + name() + ": record " + std::to_string(records_) +
                             " failed authentication — its bytes were altered, dropped, replayed or reordered "
                             "on the way; nothing of it was used. Check the path between the parties");
    }

    std::unique_ptr<channel> inner_;
    noise::cipher_state send_, recv_;
    std::unique_ptr<std::uint8_t[]> out_, in_, plain_;
    std::size_t in_pos_ = 0, in_end_ = 0;
    std::size_t plain_pos_ = 0, plain_end_ = 0;
    std::uint64_t records_ = 0;
    bool failed_ = false;
};

namespace detail {

inline constexpr std::uint64_t noise_magic = 0x31534e4c444e4154ull;  // "TANDLNS1" little-endian
inline constexpr std::uint8_t noise_greeting_version = 1;
inline constexpr std::size_t greeting_bytes = 16;

// magic, version, pattern, initiator?, cipher bits (1: ChaCha20-Poly1305,
// 2: AES-256-GCM), 5 zero bytes.
inline std::array<std::uint8_t, greeting_bytes> greeting(noise::pattern p, bool initiator) {
    std::array<std::uint8_t, greeting_bytes> g{};
    std::memcpy(g.data(), &noise_magic, 8);
    g[8] = noise_greeting_version;
    g[9] = static_cast<std::uint8_t>(p);
    g[10] = initiator ? 1 : 0;
    g[11] = 1 | (noise::aes_gcm_available() ? 2 : 0);
    return g;
}

}  // namespace detail

/// Runs the link handshake on `raw` (just opened, or after plain messages
/// both ends have read whole: mpi/links.hpp's hello) and returns it sealed. The initiator (Bob in a session) speaks first;
/// `link_index` (0 for the main link) is bound into the handshake. Throws
/// protocol_error if the peer is set up differently (no encryption, the
/// other kind of credentials, the same role), security_error if it cannot
/// prove it holds the pinned key or the pre-shared key.
/// `insecure_ephemeral` — INSECURE, for tests only: this side's ephemeral
/// secret, instead of a fresh one, so that a recorded handshake replays (the
/// fuzz harness's seeds reach past the handshake). Anyone who knows it and
/// the transcript reads the link; never set it otherwise.
inline std::unique_ptr<channel> secure_link(std::unique_ptr<channel> raw, const link_credentials& creds,
                                            bool initiator, std::uint32_t link_index,
                                            const std::optional<noise::key32>& insecure_ephemeral) {
    const noise::pattern pattern = creds.is_pre_shared() ? noise::pattern::nn_psk0 : noise::pattern::kk;
    const auto mine = detail::greeting(pattern, initiator);
    raw->flush();  // plain bytes sent before (a hello) go first; what recv() read ahead is read through
    secure_channel::raw_send(*raw, mine.data(), mine.size());
    std::array<std::uint8_t, detail::greeting_bytes> peer{};
    secure_channel::raw_recv(*raw, peer.data(), peer.size());
    const std::string where = "link handshake on " + raw->name();
    std::uint64_t magic;
    std::memcpy(&magic, peer.data(), 8);
    if (magic == detail::refusal_magic) detail::fail_refused(where, peer.data());
    if (magic != detail::noise_magic)
        throw protocol_error(where +
                             ": the peer did not start an encrypted link — it does not encrypt its links (set "
                             "session_options::encrypt_links, tandem-run --key/--psk, alike on both sides) or it "
                             "is not a tandem session");
    if (peer[8] != detail::noise_greeting_version)
        throw protocol_error(where + ": the peer speaks another version of the link handshake (" +
                             std::to_string(peer[8]) + ", this party " +
                             std::to_string(detail::noise_greeting_version) + "); build both with the same tandem");
    const auto kind = [](std::uint8_t p) {
        return p == static_cast<std::uint8_t>(noise::pattern::kk) ? std::string("pinned public keys")
                                                                  : std::string("a pre-shared key");
    };
    if (peer[9] != static_cast<std::uint8_t>(pattern))
        throw protocol_error(where + ": this party authenticates the links with " + kind(mine[9]) +
                             " and the peer with " + kind(peer[9]) + "; give both parties the same kind");
    if (peer[10] == mine[10])
        throw protocol_error(where + ": both parties run as " + (initiator ? "bob" : "alice") +
                             "; one must be alice and the other bob");
    const noise::cipher cipher = (mine[11] & peer[11] & 2) ? noise::cipher::aes_gcm : noise::cipher::chacha_poly;

    // Prologue: both greetings (the initiator's first) and the link's index.
    std::vector<std::uint8_t> prologue = {'t', 'a', 'n', 'd', 'e', 'm', ' ', 'l', 'i', 'n', 'k'};
    const auto& first = initiator ? mine : peer;
    const auto& second = initiator ? peer : mine;
    prologue.insert(prologue.end(), first.begin(), first.end());
    prologue.insert(prologue.end(), second.begin(), second.end());
    for (int i = 0; i < 4; ++i) prologue.push_back(static_cast<std::uint8_t>(link_index >> (8 * i)));

    noise::handshake::keys keys;
    if (const pre_shared_key* psk = creds.psk()) {
        keys.psk = psk->bytes();
    } else {
        keys.s = *creds.own();
        keys.rs = creds.peer().bytes;
    }
    keys.fixed_ephemeral = insecure_ephemeral;
    noise::handshake hs(pattern, cipher, initiator, prologue, std::move(keys));
    const std::string refused =
        pattern == noise::pattern::kk
            ? "the peer does not hold the secret key of the public key this party pinned, or it pinned another "
              "key for this party (check both parties' --key/--peer-key files), or someone in between altered "
              "the handshake"
            : "the parties hold different pre-shared keys, or someone in between altered the handshake";
    if (initiator) {
        secure_channel::send_message(*raw, hs.write_message({}));
        std::vector<std::uint8_t> reply;
        try {
            reply = secure_channel::recv_message(*raw);
        } catch (const network_error& e) {
            throw security_error(where + ": the peer ended the link handshake — " + refused + " (" + e.what() + ")");
        }
        if (!hs.read_message(reply)) throw security_error(where + ": the peer's reply failed authentication — " + refused);
    } else {
        if (!hs.read_message(secure_channel::recv_message(*raw)))
            throw security_error(where + ": the peer's first message failed authentication — " + refused);
        secure_channel::send_message(*raw, hs.write_message({}));
    }
    noise::cipher_state to_responder, to_initiator;
    hs.split(to_responder, to_initiator);
    std::string name = raw->name() + (cipher == noise::cipher::aes_gcm ? " (Noise, AES-256-GCM)"
                                                                       : " (Noise, ChaCha20-Poly1305)");
    const std::chrono::milliseconds t = raw->timeout();
    auto sealed = std::make_unique<secure_channel>(std::move(raw), initiator ? std::move(to_responder) : std::move(to_initiator),
                                                   initiator ? std::move(to_initiator) : std::move(to_responder),
                                                   std::move(name));
    sealed->set_timeout(t);
    return sealed;
}

}  // namespace tandem::net

// tandem/net/tls_impl.hpp — the definitions of net/tls.hpp: the TLS 1.3
// handshake on Asio's SSL layer (asio::ssl::stream, OpenSSL), then the link
// sealed by net/secure_channel.hpp's records under keys from the TLS
// exporter. Included at the end of tls.hpp when tandem is used header-only;
// compiled once into the library, by src/net.cpp, when
// TANDEM_SEPARATE_COMPILATION is defined.
//
// The SSL stream's next layer is the inner tandem channel, seen as Asio's
// synchronous stream (channel_stream): the handshake's records go through
// the channel's raw write and read, under its deadline, and an error there
// (the peer closed, no progress in time, interrupt()) leaves as the
// channel's own network_error. The stream reads record by record, never
// past the last TLS record, so the sealed records that follow are the
// secure channel's to read. Errors of TLS itself are sorted by what the
// user should do: a certificate that did not verify, or one the peer
// refused, is a security_error; a peer that does not speak TLS 1.3 with
// tandem's ALPN protocol is a protocol_error naming the option.
#pragma once

#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/linkage.hpp>
#include <tandem/error.hpp>
#include <tandem/net/noise.hpp>
#include <tandem/net/refusal.hpp>
#include <tandem/net/secure_channel.hpp>
#include <tandem/net/tls.hpp>

#include <asio/buffer.hpp>
#include <asio/error.hpp>
#include <asio/io_context.hpp>
#include <asio/ssl/context.hpp>
#include <asio/ssl/error.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/ssl/verify_context.hpp>
#include <asio/write.hpp>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tandem::net {

namespace detail {

/// Asio's synchronous stream over a tandem channel: what the SSL stream
/// reads the handshake's records from and writes them to. Reads stop at
/// each record's end (its 5-byte header gives the length), so nothing after
/// the last TLS record is taken from the channel; writes are gathered and
/// sent before each read and at the end (flush).
class channel_stream {
public:
    using executor_type = asio::io_context::executor_type;
    using lowest_layer_type = channel_stream;

    channel_stream(channel& inner, asio::io_context& io) noexcept : inner_(&inner), io_(&io) {}
    lowest_layer_type& lowest_layer() noexcept { return *this; }
    const lowest_layer_type& lowest_layer() const noexcept { return *this; }
    executor_type get_executor() noexcept { return io_->get_executor(); }

    /// At least one byte, at most to the end of the current record (the
    /// channel's errors are thrown).
    template <class MutableBuffers>
    std::size_t read_some(const MutableBuffers& buffers, asio::error_code& ec) {
        ec = {};
        for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
            const asio::mutable_buffer b = *it;
            if (b.size() > 0) return read_record_part(static_cast<std::byte*>(b.data()), b.size());
        }
        return 0;
    }
    /// All of it, gathered until the next read or flush.
    template <class ConstBuffers>
    std::size_t write_some(const ConstBuffers& buffers, asio::error_code& ec) {
        ec = {};
        std::size_t n = 0;
        for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
            const asio::const_buffer b = *it;
            const auto* p = static_cast<const std::byte*>(b.data());
            out_.insert(out_.end(), p, p + b.size());
            n += b.size();
        }
        return n;
    }
    /// Sends the records gathered.
    void flush();
    /// Whether a record has been read only in part.
    bool inside_a_record() const noexcept { return header_pos_ < header_end_ || body_left_ > 0; }

private:
    static constexpr std::size_t header_bytes = 5;  // type, version (2), length (2)
    std::size_t read_record_part(std::byte* p, std::size_t max);

    channel* inner_;
    asio::io_context* io_;
    std::vector<std::byte> out_;
    std::array<std::byte, header_bytes> header_{};
    std::size_t header_pos_ = 0, header_end_ = 0;  // the header read, and how much of it was handed on
    std::size_t body_left_ = 0;                   // of the current record's body
};

/// One link's TLS handshake: the SSL stream (made from the shared context)
/// over the inner channel.
struct tls_state {
    asio::io_context io{1};  // the SSL stream's executor; never run (all I/O here is synchronous)
    asio::ssl::stream<channel_stream> stream;

    tls_state(channel& inner, asio::ssl::context& ctx) : stream(channel_stream(inner, io), ctx) {}

    // The inner channel's raw operations (a friend of channel, as
    // secure_channel is): a buffered recv() would read past the handshake.
    static std::size_t read(channel& c, std::byte* p, std::size_t min, std::size_t max) {
        return c.read_through(p, min, max);
    }
    static void write(channel& c, const std::byte* p, std::size_t n) { c.write_all(p, n, "TLS handshake"); }

    /// Throws the error a failed TLS operation means (see the top of this
    /// file), after sending what the stream still holds (an alert that
    /// tells the peer why), if the link takes it.
    [[noreturn]] void fail(const channel& ch, const char* op, const asio::error_code& ec, bool handshake);
};

inline void channel_stream::flush() {
    if (out_.empty()) return;
    tls_state::write(*inner_, out_.data(), out_.size());
    out_.clear();
}

inline std::size_t channel_stream::read_record_part(std::byte* p, std::size_t max) {
    flush();  // what this end wrote may be what the peer waits for
    if (header_pos_ == header_end_ && body_left_ == 0) {  // the next record's header
        header_pos_ = 0;
        header_end_ = tls_state::read(*inner_, header_.data(), header_bytes, header_bytes);
        if (is_refusal(header_.data(), header_end_)) {  // a full server (tandem/async.hpp's listener)
            std::array<std::byte, refusal_bytes> frame{};
            std::memcpy(frame.data(), header_.data(), header_bytes);
            tls_state::read(*inner_, frame.data() + header_bytes, refusal_bytes - header_bytes,
                            refusal_bytes - header_bytes);
            fail_refused("TLS handshake on " + inner_->name(), frame.data());
        }
        body_left_ = std::size_t{std::to_integer<std::uint8_t>(header_[3])} << 8 | std::to_integer<std::uint8_t>(header_[4]);
    }
    if (header_pos_ < header_end_) {
        const std::size_t k = std::min(max, header_end_ - header_pos_);
        std::memcpy(p, header_.data() + header_pos_, k);
        header_pos_ += k;
        return k;
    }
    const std::size_t k = tls_state::read(*inner_, p, 1, std::min(max, body_left_));
    body_left_ -= k;
    return k;
}

/// Whether an OpenSSL failure is about a certificate: one this party could
/// not verify, or an alert by which the peer refused this party's.
inline bool about_a_certificate(int reason) noexcept {
    switch (reason) {
    case SSL_R_CERTIFICATE_VERIFY_FAILED:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_TLSV1_ALERT_ACCESS_DENIED:
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
        return true;
    default:
        return false;
    }
}

[[noreturn]] TANDEM_INLINE void tls_state::fail(const channel& ch, const char* op, const asio::error_code& ec,
                                                bool handshake) {
    try {
        stream.next_layer().flush();
    } catch (...) {  // the link is gone too: the TLS error below says more
    }
    SSL* ssl = stream.native_handle();
    const std::string where = std::string(op) + " on " + ch.name() + ": ";
    const bool ssl_error = ec.category() == asio::error::get_ssl_category();
    const int reason = ssl_error ? ERR_GET_REASON(static_cast<unsigned long>(ec.value())) : 0;
    const std::string openssl = " (OpenSSL: " + ec.message() + ")";
    if (const long v = SSL_get_verify_result(ssl); handshake && v != X509_V_OK)
        throw security_error(where + "the peer's certificate did not verify (" +
                             X509_verify_cert_error_string(v) +
                             "); check session_options::tls's ca, peer_certificate and peer_name (tandem-run --ca, "
                             "--peer-cert, --peer-name) here and the certificate the peer presents (its --cert)");
    if (ssl_error && reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE)
        throw security_error(where + "the peer presented no certificate; it must run with TLS credentials "
                             "(session_options::tls, tandem-run --cert/--key) as this party does");
    if (ssl_error && about_a_certificate(reason))
        throw security_error(where + "the peer refused this party's certificate" + openssl +
                             "; present one the peer trusts: session_options::tls.certificate (tandem-run --cert), "
                             "signed by the CA the peer names, or the one it pins");
    if (ec == asio::ssl::error::stream_truncated || ec == asio::error::eof)
        throw network_error(where + "the peer closed the connection (it stopped or failed; see its own error)");
    if (handshake || (ssl_error && reason == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL))
        throw protocol_error(where + "the TLS handshake failed" + openssl +
                             ": the peer does not speak TLS 1.3 with certificates as a tandem link; set "
                             "session_options::tls (tandem-run --cert/--key with --ca or --peer-cert) alike on both "
                             "sides");
    throw security_error(where + "a TLS record failed" + openssl +
                         ": the link was altered on its way, or is not this session's; nothing read from it is used");
}

/// The ALPN protocols, one per record cipher of the link after the
/// handshake (net/noise.hpp), in the client's order of preference: the
/// server picks the first it has too.
inline constexpr std::string_view alpn_aes_gcm = "tandem-link/1+aes256gcm";
inline constexpr std::string_view alpn_chacha = "tandem-link/1+chacha20poly1305";

/// This end's ALPN list, in the wire format (length-prefixed names).
inline std::vector<unsigned char> alpn_offer() {
    std::vector<unsigned char> wire;
    for (const std::string_view p : {alpn_aes_gcm, alpn_chacha}) {
        if (p == alpn_aes_gcm && !noise::aes_gcm_available()) continue;
        wire.push_back(static_cast<unsigned char>(p.size()));
        wire.insert(wire.end(), p.begin(), p.end());
    }
    return wire;
}

/// The server's choice among the client's ALPN protocols (OpenSSL's
/// callback): the first of the client's that this end offers too, or a
/// no_application_protocol alert — the client is not a tandem link.
inline int choose_alpn(SSL*, const unsigned char** out, unsigned char* out_len, const unsigned char* in,
                       unsigned int in_len, void*) {
    static const std::vector<unsigned char> mine = alpn_offer();
    unsigned char* chosen = nullptr;
    if (SSL_select_next_proto(&chosen, out_len, in, in_len, mine.data(), static_cast<unsigned int>(mine.size())) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
}

/// The DER encoding of a certificate, to compare a pinned one.
inline std::vector<unsigned char> der_of(X509* cert) {
    const int n = i2d_X509(cert, nullptr);
    if (n <= 0) return {};
    std::vector<unsigned char> der(static_cast<std::size_t>(n));
    unsigned char* p = der.data();
    i2d_X509(cert, &p);
    return der;
}

/// Reads the first certificate of a PEM file, or null.
inline X509* read_certificate(const std::string& file) {
    std::FILE* f = std::fopen(file.c_str(), "r");
    if (f == nullptr) return nullptr;
    X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
    std::fclose(f);
    return cert;
}

/// A context with this party's credentials and the peer's checks, for
/// either role: the client offers the ALPN protocols, the server chooses.
inline asio::ssl::context make_tls_context(const tls_credentials& c) {
    const auto unusable = [](const std::string& what, const std::string& file, const std::string& option,
                             const std::string& why) {
        return usage_error("TLS: " + what + " '" + file + "' cannot be used (" + why + "); set session_options::tls." +
                           option + " to a PEM file");
    };
    asio::ssl::context ctx(asio::ssl::context::tls);
    SSL_CTX* h = ctx.native_handle();
    SSL_CTX_set_min_proto_version(h, TLS1_3_VERSION);
    SSL_CTX_set_ciphersuites(h, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256");
    SSL_CTX_set_num_tickets(h, 0);  // one connection per link: nothing to resume
    const std::vector<unsigned char> offer = alpn_offer();
    SSL_CTX_set_alpn_protos(h, offer.data(), static_cast<unsigned int>(offer.size()));
    SSL_CTX_set_alpn_select_cb(h, choose_alpn, nullptr);
    asio::error_code ec;
    if (c.certificate.empty() || c.private_key.empty())
        throw usage_error("TLS: this party needs a certificate and its private key; set session_options::tls."
                          "certificate and .private_key (tandem-run --cert and --key)");
    if (ctx.use_certificate_chain_file(c.certificate, ec); ec)
        throw unusable("this party's certificate", c.certificate, "certificate (tandem-run --cert)", ec.message());
    const auto mismatch = [&](unsigned long e) {
        return ERR_GET_LIB(e) == ERR_LIB_X509 && ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH;
    };
    if (ctx.use_private_key_file(c.private_key, asio::ssl::context::pem, ec);
        ec && !mismatch(static_cast<unsigned long>(ec.value())))
        throw unusable("the private key", c.private_key, "private_key (tandem-run --key)", ec.message());
    if (ec || SSL_CTX_check_private_key(h) != 1)
        throw usage_error("TLS: the private key '" + c.private_key + "' does not belong to the certificate '" +
                          c.certificate + "'; pass the key the certificate was made for");
    if (c.ca.empty() == c.peer_certificate.empty())
        throw usage_error("TLS: name what the peer's certificate is checked against: a CA file "
                          "(session_options::tls.ca, tandem-run --ca) or the peer's own certificate, pinned "
                          "(tls.peer_certificate, --peer-cert) — one of them, not both");
    if (!c.ca.empty()) {
        if (ctx.load_verify_file(c.ca, ec); ec)
            throw unusable("the CA file", c.ca, "ca (tandem-run --ca)", ec.message());
    } else {
        X509* pinned = read_certificate(c.peer_certificate);
        if (pinned == nullptr)
            throw unusable("the peer's pinned certificate", c.peer_certificate, "peer_certificate (tandem-run --peer-cert)",
                           "no PEM certificate in it");
        // The pinned certificate is the one trust anchor, a leaf accepted
        // as one (partial chain), and the leaf presented must be it.
        X509_STORE_add_cert(SSL_CTX_get_cert_store(h), pinned);
        X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(h), X509_V_FLAG_PARTIAL_CHAIN);
        std::vector<unsigned char> want = der_of(pinned);
        X509_free(pinned);
        ctx.set_verify_callback([want = std::move(want)](bool preverified, asio::ssl::verify_context& v) {
            X509_STORE_CTX* s = v.native_handle();
            if (!preverified || X509_STORE_CTX_get_error_depth(s) != 0) return preverified;
            if (der_of(X509_STORE_CTX_get_current_cert(s)) == want) return true;
            X509_STORE_CTX_set_error(s, X509_V_ERR_CERT_REJECTED);
            return false;
        });
    }
    ctx.set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
    return ctx;
}

}  // namespace detail

namespace detail {
struct tls_context_data {
    explicit tls_context_data(const tls_credentials& c) : ctx(make_tls_context(c)), peer_name(c.peer_name) {}
    asio::ssl::context ctx;
    std::string peer_name;
};
}  // namespace detail

TANDEM_INLINE tls_context::tls_context(const tls_credentials& credentials)
    : d_(std::make_shared<detail::tls_context_data>(credentials)) {}

TANDEM_INLINE std::unique_ptr<channel> tls_link(std::unique_ptr<channel> inner, const tls_context& context,
                                                bool client) {
    if (!inner) throw usage_error("tls_link: no channel given");
    inner->flush();  // plain bytes sent before go first
    detail::tls_state s(*inner, context.d_->ctx);
    SSL* ssl = s.stream.native_handle();
    const std::string& peer_name = context.d_->peer_name;
    if (!peer_name.empty() && SSL_set1_host(ssl, peer_name.c_str()) != 1)
        throw usage_error("TLS: the peer name '" + peer_name + "' cannot be checked; set "
                          "session_options::tls.peer_name to a DNS name");
    asio::error_code ec;
    s.stream.handshake(client ? asio::ssl::stream_base::client : asio::ssl::stream_base::server, ec);
    if (ec) s.fail(*inner, "TLS handshake", ec, true);
    const unsigned char* alpn = nullptr;
    unsigned int alpn_len = 0;
    SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
    const std::string_view protocol(reinterpret_cast<const char*>(alpn), alpn_len);
    if (protocol != detail::alpn_aes_gcm && protocol != detail::alpn_chacha)
        throw protocol_error("TLS handshake on " + inner->name() + ": the peer is a TLS server but not a tandem "
                             "link (it chose no tandem-link protocol); check host and port");
    // In TLS 1.3 the client finishes its handshake before the server has
    // checked the client's certificate: a refusal would reach the client
    // only at its next read, and not at all if it wrote first into a link
    // the server had closed. So the server confirms in one record, and the
    // client waits for it (or for the server's alert) before the link is used.
    std::uint8_t verdict = 1;
    if (client) {
        s.stream.read_some(asio::buffer(&verdict, 1), ec);
        if (ec) s.fail(*inner, "TLS handshake", ec, false);
        if (verdict != 1 || s.stream.next_layer().inside_a_record())
            throw protocol_error("TLS handshake on " + inner->name() + ": the peer's confirmation is not tandem's; "
                                 "the peer does not run tandem's TLS links");
    } else {
        asio::write(s.stream, asio::buffer(&verdict, 1), ec);
        if (ec) s.fail(*inner, "TLS handshake", ec, false);
        s.stream.next_layer().flush();
    }
    // The records' keys, one per direction, from the exporter (RFC 8446
    // §7.5): secret, fresh per connection and bound to its handshake, so to
    // both certificates checked.
    static constexpr char label[] = "EXPORTER-tandem-link-keys";
    std::array<std::uint8_t, 64> keys{};
    if (SSL_export_keying_material(ssl, keys.data(), keys.size(), label, sizeof label - 1, nullptr, 0, 0) != 1)
        tandem::detail::internal_error("TLS: the exporter gave no keys");
    const noise::cipher cipher = protocol == detail::alpn_aes_gcm ? noise::cipher::aes_gcm : noise::cipher::chacha_poly;
    noise::cipher_state to_bob, to_alice;
    to_bob.initialize_key(keys.data(), cipher);
    to_alice.initialize_key(keys.data() + 32, cipher);
    tandem::detail::wipe(keys.data(), keys.size());
    std::string subject;
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    X509* peer = SSL_get1_peer_certificate(ssl);
#else
    X509* peer = SSL_get_peer_certificate(ssl);
#endif
    if (peer != nullptr) {
        char buf[256] = {};
        X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, buf, sizeof buf);
        subject = buf;
        X509_free(peer);
    }
    std::string name = inner->name() + " (TLS 1.3, peer " + subject +
                       (cipher == noise::cipher::aes_gcm ? ", AES-256-GCM)" : ", ChaCha20-Poly1305)");
    const std::chrono::milliseconds t = inner->timeout();
    auto sealed = std::make_unique<secure_channel>(std::move(inner), client ? std::move(to_alice) : std::move(to_bob),
                                                   client ? std::move(to_bob) : std::move(to_alice), std::move(name));
    sealed->set_timeout(t);
    return sealed;
}

}  // namespace tandem::net

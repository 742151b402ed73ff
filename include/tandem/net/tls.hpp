// tandem/net/tls.hpp — links protected by TLS 1.3 with X.509 certificates
// (docs/DESIGN.md §9.3), beside the Noise links of net/secure_channel.hpp,
// for deployments that already run a PKI: each party presents its
// certificate and checks the peer's, against a CA or a pinned certificate,
// before any byte of the session goes over the link.
//
// The handshake is TLS 1.3 on Asio's SSL layer (OpenSSL), over any tandem
// channel — TCP, an in-memory pair in tests — under the channel's
// deadlines: mutual authentication with certificates, and a key exchange.
// The records after it are tandem's own, those of the Noise links
// (net/secure_channel.hpp: AES-256-GCM with VAES, or ChaCha20-Poly1305),
// under two keys taken from the TLS connection's exporter (RFC 8446 §7.5),
// one per direction: OpenSSL's TLS records cost +80 % on 64-bit products
// over loopback where tandem's cost nothing measurable (bench/RESULTS.md,
// issue 54). A TLS-terminating proxy cannot sit between the parties — as
// it cannot with client certificates anyway. This header declares the link
// without Asio or OpenSSL; net/tls_impl.hpp defines it, compiled once into
// the library (src/net.cpp) or, header-only, included at the end of this
// header.
//
// Bob is the TLS client and Alice the server, as Bob initiates the Noise
// links. Both authenticate: a peer without a certificate that verifies is
// refused by both ends (mutual TLS). Only TLS 1.3 is spoken, with the ALPN
// protocol "tandem-link/1" and the record cipher both ends have.
#pragma once

#include <tandem/net/channel.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace tandem::net {

/// One party's TLS credentials: PEM files.
struct tls_credentials {
    /// This party's certificate, or its chain (leaf first).
    std::string certificate;
    /// The certificate's private key.
    std::string private_key;
    /// The CA certificates the peer's certificate must chain to; or, instead:
    std::string ca;
    /// the peer's own certificate, pinned: the peer must present exactly
    /// this certificate (a CA's signature is then neither needed nor enough).
    std::string peer_certificate;
    /// If set, the peer's certificate must carry this name (a DNS
    /// subjectAltName, else its common name), as a hostname is checked.
    std::string peer_name;
};

namespace detail {
struct tls_context_data;  // OpenSSL's context (net/tls_impl.hpp)
}

/// Credentials loaded and checked once — the files read, the key belonging
/// to the certificate, one of ca and peer_certificate set — for any number
/// of links, in either role and from any thread (making one costs ~1.3 ms;
/// session_options::tls holds one for all the links of every session made
/// with those options). Copies share it.
class tls_context {
public:
    /// Throws usage_error naming the file and the option if the
    /// credentials cannot be used.
    explicit tls_context(const tls_credentials& credentials);

private:
    friend std::unique_ptr<channel> tls_link(std::unique_ptr<channel>, const tls_context&, bool);
    std::shared_ptr<detail::tls_context_data> d_;
};

/// Runs a TLS 1.3 handshake on `inner` — as the client if `client` (Bob),
/// else as the server — and returns the link sealed under the keys it
/// agreed (a net::secure_channel named after the peer's certificate).
/// Throws security_error if the peer's certificate does not verify or the
/// peer refuses this party's, protocol_error if the peer does not speak
/// TLS 1.3 as a tandem link, network_error if the link fails.
std::unique_ptr<channel> tls_link(std::unique_ptr<channel> inner, const tls_context& context, bool client);

}  // namespace tandem::net

#ifndef TANDEM_SEPARATE_COMPILATION
#include <tandem/net/tls_impl.hpp>
#endif

// tandem/session/setup.hpp — what a session holds, and how it is set up:
// the handshake (options agreed, or a protocol_error naming the option to
// set alike), the protocol the agreed security mode runs
// (session/protocol.hpp; its base OTs), the worker links, and the protocol
// started on them (docs/DESIGN.md §7.1). session.hpp is the API on top.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/sodium.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/refusal.hpp>
#include <tandem/net/secure_channel.hpp>
#include <tandem/net/tls.hpp>
#include <tandem/party.hpp>
#include <tandem/session/authenticated.hpp>
#include <tandem/session/cores.hpp>
#include <tandem/session/link_preface.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/pipelined.hpp>
#include <tandem/session/protocol.hpp>
#include <tandem/session/remote_workers.hpp>
#include <tandem/session/tickets.hpp>
#include <tandem/session/yao.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// The first words of the handshake and of each worker link's greeting.
inline constexpr std::uint64_t hello_magic = 0x3130484c4f444e54ull;  // "TNDOLH01"
inline constexpr std::uint64_t link_magic = 0x314b4e494c444e54ull;  // "TNDLINK1"

/// BLAKE2b with a 16-byte output over a label and the parts: what a
/// ticket's keys are re-keyed under (session/tickets.hpp, ot/iknp.hpp's
/// rekey_input) and what a ticket_store finds a name by.
inline block ticket_hash(std::string_view label, std::initializer_list<std::span<const std::uint8_t>> parts) {
    require_sodium();
    crypto_generichash_state st;
    crypto_generichash_init(&st, nullptr, 0, 16);
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
    for (const auto& p : parts) crypto_generichash_update(&st, p.data(), p.size());
    bytes16 out;
    crypto_generichash_final(&st, out.data(), out.size());
    return block::load(out.data());
}
inline bytes16 bytes_of(block b) noexcept {
    bytes16 out;
    b.store(out.data());
    return out;
}
/// Where a ticket_store keeps a name: its hash, so that a lookup's time
/// says nothing about the names held.
inline bytes16 store_key(const bytes16& name) { return bytes_of(ticket_hash("tandem ticket key", {name})); }

/// A batched circuit of run_batch (circuit/batch.hpp), kept for repeats.
struct batched_entry {
    circuit<> of;
    std::uint64_t sets;
    circuit<> batched;
};
inline constexpr std::size_t batched_cache_size = 4;

/// Everything a session holds, behind one pointer so that sessions move
/// cheaply, and the set-up steps that fill it (in the order the session's
/// constructor calls them).
struct session_state {
    session_state(party p, std::unique_ptr<net::channel> c, const session_options& o)
        : me(p), hash(o.hash), scheme(o.scheme), threads(o.threads), ch(std::move(c)), ipp(o.ipp),
          ipp_min_ands(o.ipp_min_ands),
          rng(o.insecure_seed ? block(*o.insecure_seed, 0x74616e64656d0000u + static_cast<std::uint8_t>(p))
                              : os_random_block()),
          seeded(o.insecure_seed.has_value()), progress(o.progress),
          pipeline(o.pipeline_streams.value_or(ch && pipelining_pays(usable_cpus(), ch->peer_on_this_host()))),
          link_credentials(o.encrypt_links), tls(o.tls), security(o.security), malicious_ot(o.malicious_ot),
          store(o.ticket_store), ticket(o.ticket) {
        if (!ch) throw usage_error("session: no channel given");
        if (threads == 0 || threads > 256)
            throw usage_error("session: threads must be between 1 and 256, not " + std::to_string(threads));
        if (link_credentials && tls)
            throw usage_error("session: set session_options::encrypt_links (Noise) or tls (TLS 1.3 with certificates), "
                              "not both: each protects every link on its own");
        if (security == tandem::security::malicious && !link_credentials && !tls && !o.allow_plain_links)
            throw usage_error("session: security::malicious encrypts its links, and needs their credentials: set "
                              "session_options::encrypt_links alike on both sides (pinned key pairs or a pre-shared key; "
                              "tandem-run --key/--peer-key or --psk) or session_options::tls (certificates; "
                              "tandem-run --cert/--key with --ca or --peer-cert), or allow_plain_links = true where "
                              "the path is protected otherwise (one host, a VPN)");
        if (security == tandem::security::malicious && hash != garbling_hash::rekeyed)
            throw usage_error("session: security::malicious garbles with the rekeyed hash only (authenticated "
                              "garbling's tables are its own); leave session_options::hash at its default "
                              "(tandem-run: no --hash) or run semi-honest");
        if (security == tandem::security::malicious && scheme != garbling_scheme::half_gates)
            throw usage_error("session: security::malicious garbles with authenticated garbling's own tables, and no "
                              "authenticated three-halves construction is known; leave session_options::scheme at "
                              "half_gates (tandem-run: no --scheme) or run semi-honest");
        if (security == tandem::security::semi_honest && malicious_ot != cot_extension::softspoken)
            throw usage_error("session: session_options::malicious_ot (tandem-run --silent-ot) chooses how a malicious "
                              "session makes its authenticated bits; set security::malicious (--malicious) too, or "
                              "leave it at its default");
        if (security == tandem::security::malicious && ipp)
            throw usage_error("session: inter-party parallelization (session_options::ipp) does not apply to "
                              "security::malicious: authenticated garbling already keeps both parties' cores and both "
                              "directions of the link busy in its preprocessing (README, \"Security\"); leave ipp off");
        if (store && ticket)
            throw usage_error("session: set session_options::ticket_store on the party that serves and "
                              "session_options::ticket on the one that returns, not both on one");
        if (security == tandem::security::malicious && (store || ticket))
            throw usage_error("session: security::malicious sessions do not resume (their set-up is authenticated "
                              "garbling's own); leave session_options::ticket_store and ticket unset or run "
                              "semi-honest");
        links.push_back(ch.get());
    }
    session_state(const session_state&) = delete;
    session_state& operator=(const session_state&) = delete;

    party me;
    garbling_hash hash;
    garbling_scheme scheme;
    std::uint32_t threads;
    std::unique_ptr<net::channel> ch;
    std::vector<std::unique_ptr<net::channel>> worker_links;  // links 1 .. threads-1
    std::vector<net::channel*> links;                          // ch, then the worker links
    // Or workers 1 .. threads-1 in other processes, on links of their own
    // (session/remote_workers.hpp; mpi/session.hpp): then no worker links here.
    std::shared_ptr<remote_workers> remote;
    std::uint64_t session_id = 0;                              // names this session on its worker links
    // run_batch's batched circuits (circuit/batch.hpp), the most recent
    // last; each entry holds its circuit, so the address compared stays alive.
    std::vector<batched_entry> batched;
    // IPP: the links of Bob's world.
    bool ipp;
    std::uint64_t ipp_min_ands;
    std::vector<std::unique_ptr<net::channel>> bob_world_links;
    std::vector<net::channel*> bob_links;
    prg rng;      // all of this party's randomness but libsodium's (the base OTs')...
    bool seeded;  // ...unless insecure_seed is set: then that too, to replay a run
    std::uint64_t runs = 0;
    double setup_seconds = 0;
    run_stats last;
    bool broken = false;
    std::string broken_why;
    progress_callback progress;
    bool pipeline;
    std::optional<net::link_credentials> link_credentials;  // set: every link is sealed (net/secure_channel.hpp)
    std::optional<net::tls_context> tls;                    // or set: every link runs TLS 1.3 (net/tls.hpp)
    tandem::security security;
    cot_extension malicious_ot;
    // The protocol of the agreed security mode, made after the handshake;
    // last, so that its threads stop before the links close.
    std::unique_ptr<protocol> proto;
    // Resumption (session/tickets.hpp): this party's store or slot, what the
    // peer keeps (its handshake says), and whether this session resumed.
    std::shared_ptr<ticket_store> store;
    std::shared_ptr<session_ticket> ticket;
    enum class ticket_role : std::uint8_t { none = 0, store = 1, slot = 2 };
    ticket_role peer_tickets = ticket_role::none;
    bool resumed = false;

    ticket_role my_tickets() const noexcept {
        return store ? ticket_role::store : ticket ? ticket_role::slot : ticket_role::none;
    }

    /// With session_options::encrypt_links (or tls), runs the link handshake
    /// on link `index` (0: the main link) and returns it sealed; Bob
    /// initiates (the TLS client).
    std::unique_ptr<net::channel> protect(std::unique_ptr<net::channel> link, std::uint32_t index) const {
        if (tls) return net::tls_link(std::move(link), *tls, me == party::bob);
        if (!link_credentials) return link;
        return net::secure_link(std::move(link), *link_credentials, me == party::bob, index);
    }
    void protect_main_link() {
        ch = protect(std::move(ch), 0);
        links[0] = ch.get();
    }

    /// The hello's security byte: 0 semi-honest, 1 malicious over SoftSpoken
    /// OT, 2 malicious over silent OT (the extension is part of the mode, so
    /// a default session's bytes are those of before the choice existed).
    static std::uint8_t security_byte(tandem::security s, cot_extension e) noexcept {
        return s == tandem::security::semi_honest ? 0 : e == cot_extension::softspoken ? 1 : 2;
    }
    /// The hello's garbling byte: the hash in bit 0, the scheme above it (so
    /// a half-gates session's bytes are those of before the choice existed).
    static std::uint8_t garbling_byte(garbling_hash h, garbling_scheme s) noexcept {
        return static_cast<std::uint8_t>(static_cast<unsigned>(h) | static_cast<unsigned>(s) << 1);
    }

    void handshake() {
        net::channel& c = *ch;
        c.send_value(hello_magic);
        c.send_value(protocol_version);
        c.send_value(static_cast<std::uint8_t>(me));
        c.send_value(garbling_byte(hash, scheme));
        c.send_value(threads);
        c.send_value(static_cast<std::uint8_t>(ipp));
        c.send_value(ipp_min_ands);
        c.send_value(security_byte(security, malicious_ot));
        c.send_value(static_cast<std::uint8_t>(my_tickets()));
        const auto magic = c.recv_value<std::uint64_t>();
        if (magic == net::detail::refusal_magic) {  // a full server (tandem/async.hpp's listener)
            std::array<std::uint8_t, net::detail::refusal_bytes> frame{};
            std::memcpy(frame.data(), &magic, 8);
            c.recv(frame.data() + 8, frame.size() - 8);
            net::detail::fail_refused("session handshake on " + c.name(), frame.data());
        }
        if (magic == net::detail::noise_magic)
            throw protocol_error("session handshake on " + c.name() +
                                 ": the peer encrypts its links and this party does not; set "
                                 "session_options::encrypt_links (tandem-run --key/--peer-key or --psk) alike on "
                                 "both sides");
        if ((magic & 0xffff) == 0x0316)  // a TLS record of the handshake: type 22, version 3.x
            throw protocol_error("session handshake on " + c.name() +
                                 ": the peer protects its links with TLS and this party does not; set "
                                 "session_options::tls (tandem-run --cert/--key with --ca or --peer-cert) alike on "
                                 "both sides");
        if (magic != hello_magic)
            throw protocol_error("session handshake on " + c.name() +
                                 ": the peer did not greet as a tandem session; check host and port");
        const auto version = c.recv_value<std::uint32_t>();
        const auto peer = c.recv_value<std::uint8_t>();
        const auto peer_hash = c.recv_value<std::uint8_t>();
        const auto peer_threads = c.recv_value<std::uint32_t>();
        const auto peer_ipp = c.recv_value<std::uint8_t>();
        const auto peer_ipp_min = c.recv_value<std::uint64_t>();
        const auto peer_security = c.recv_value<std::uint8_t>();
        const auto peer_ticket_role = c.recv_value<std::uint8_t>();
        if (version != protocol_version)
            throw protocol_error("session handshake: protocol versions differ (this party speaks " +
                                 std::to_string(protocol_version) + ", the peer " + std::to_string(version) +
                                 "); build both parties with the same tandem version");
        if (peer > 1 || static_cast<party>(peer) == me)
            throw protocol_error("session handshake: both parties run as " + std::string(to_string(me)) +
                                 "; one must be alice and the other bob");
        const auto peer_scheme = static_cast<unsigned>(peer_hash >> 1);
        if (peer_scheme != static_cast<unsigned>(scheme))
            throw protocol_error(
                "session handshake: the parties chose different garbling schemes (this party " +
                std::string(to_string(scheme)) + ", the peer " +
                std::string(to_string(static_cast<garbling_scheme>(peer_scheme))) +
                "); set session_options::scheme (tandem-run --scheme) alike on both sides");
        if ((peer_hash & 1) != static_cast<std::uint8_t>(hash))
            throw protocol_error(
                "session handshake: the parties chose different garbling hashes (this party " +
                std::string(to_string(hash)) + ", the peer " +
                std::string(to_string(static_cast<garbling_hash>(peer_hash & 1))) +
                "); set session_options::hash alike on both sides");
        if (peer_security > 2)
            throw protocol_error("session handshake: the peer runs an unknown kind of security; build both parties "
                                 "with the same tandem version");
        const auto peer_mode = static_cast<tandem::security>(peer_security != 0);
        if (peer_mode != security)
            throw protocol_error("session handshake: this party runs " + std::string(to_string(security)) +
                                 " security and the peer " + std::string(to_string(peer_mode)) +
                                 "; set session_options::security (tandem-run --malicious) alike on both sides");
        if (peer_security != security_byte(security, malicious_ot)) {
            const auto peer_ot = peer_security == 2 ? cot_extension::silent : cot_extension::softspoken;
            throw protocol_error("session handshake: this party makes its authenticated bits with " +
                                 std::string(to_string(malicious_ot)) + " and the peer with " +
                                 std::string(to_string(peer_ot)) +
                                 "; set session_options::malicious_ot (tandem-run --silent-ot) alike on both sides");
        }
        if (peer_threads != threads)
            throw protocol_error("session handshake: the parties chose different thread counts (this party " +
                                 std::to_string(threads) + ", the peer " + std::to_string(peer_threads) +
                                 "); set session_options::threads (--threads) alike on both sides");
        if (peer_ipp != static_cast<std::uint8_t>(ipp))
            throw protocol_error(std::string("session handshake: inter-party parallelization is ") +
                                 (ipp ? "on" : "off") + " here and " + (ipp ? "off" : "on") +
                                 " at the peer; set session_options::ipp (--ipp) alike on both sides");
        if (peer_ticket_role > static_cast<std::uint8_t>(ticket_role::slot))
            throw protocol_error("session handshake on " + c.name() + ": the peer sent an unknown ticket role (" +
                                 std::to_string(peer_ticket_role) + "); build both parties with the same tandem "
                                 "version");
        peer_tickets = static_cast<ticket_role>(peer_ticket_role);
        if (ipp && peer_ipp_min != ipp_min_ands)
            throw protocol_error("session handshake: the parties chose different IPP region thresholds (this party " +
                                 std::to_string(ipp_min_ands) + " ANDs, the peer " + std::to_string(peer_ipp_min) +
                                 "); set session_options::ipp_min_ands alike on both sides");
    }

    /// Opens links 1 .. threads-1 (and with IPP Bob's world's, threads ..
    /// 2·threads-1). Bob introduces each with the session id Alice drew and
    /// its index, so a stray connection is not taken for one. With remote
    /// workers, which hold their own links, only link `threads` (link 0 of
    /// Bob's world) with IPP.
    void open_worker_links(const link_opener& open, std::chrono::milliseconds timeout) {
        session_state& s = *this;
        const std::uint32_t count = s.remote ? (s.ipp ? 1 : 0) : worker_link_count(s.threads, s.ipp);
        if (count == 0) return;
        if (s.me == party::alice) {
            s.session_id = detail::declassified(s.rng.next().low());  // sent in the clear: public
            s.ch->send_value(s.session_id);
            s.ch->flush();
        } else {
            s.session_id = s.ch->recv_value<std::uint64_t>();
        }
        for (std::uint32_t k = s.remote ? s.threads : 1; k < (s.remote ? s.threads : 1) + count; ++k) {
            std::unique_ptr<net::channel> link = open(link_id{s.session_id, k});
            link->set_timeout(timeout);
            link = protect(std::move(link), k);
            if (s.me == party::bob) {
                link->send_value(link_magic);
                link->send_value(s.session_id);
                link->send_value(k);
                link->flush();
            } else {
                const auto magic = link->recv_value<std::uint64_t>();
                const auto id = link->recv_value<std::uint64_t>();
                const auto index = link->recv_value<std::uint32_t>();
                if (magic != link_magic || id != s.session_id || index != k)
                    throw foreign_worker_link(k, link->name());
            }
            (k < s.threads ? s.links : s.bob_links).push_back(link.get());
            (k < s.threads ? s.worker_links : s.bob_world_links).push_back(std::move(link));
        }
    }

    /// Starts the protocol on the open links.
    void start_protocol() {
        proto->start(protocol_links{threads, links, bob_links, remote.get()});
    }

    /// Bytes sent (or received) so far on all links, for a run's statistics.
    std::uint64_t link_bytes(bool sent) const noexcept {
        std::uint64_t n = 0;
        for (const auto* ls : {&links, &bob_links})
            for (const net::channel* l : *ls) n += sent ? l->bytes_sent() : l->bytes_received();
        return n;
    }

    /// A run's statistics (session::last_run): started before the run's
    /// header goes out, finished with the engine that ran it. One for
    /// compiled and streamed runs.
    class run_meter {
    public:
        explicit run_meter(const session_state& s) noexcept
            : s_(s), t0_(net::clock::now()), sent0_(s.link_bytes(true)), received0_(s.link_bytes(false)) {}
        /// The run's time and bytes, and what the protocol reports of it.
        run_stats finish() const {
            run_stats r;
            r.bytes_sent = s_.link_bytes(true) - sent0_;
            r.bytes_received = s_.link_bytes(false) - received0_;
            r.seconds = std::chrono::duration<double>(net::clock::now() - t0_).count();
            s_.proto->report(r);
            return r;
        }

    private:
        const session_state& s_;
        net::clock::time_point t0_;
        std::uint64_t sent0_, received0_;
    };

    /// Makes the protocol of the agreed security mode: its set-up on the
    /// main link (the base OTs) runs now.
    void make_protocol() {
        const protocol_setup setup{me, *ch, rng, seeded ? &rng : nullptr};
        if (security == tandem::security::malicious) {
            proto = std::make_unique<authenticated_protocol>(setup, malicious_ot);
            return;
        }
        block n;
        if (const std::unique_ptr<resumable_ot> from = resumption(n)) {
            proto = std::make_unique<yao_protocol>(setup, cores_for(hash, scheme), hash, ipp, ipp_min_ands, *from, n);
            resumed = true;
        } else {
            proto = std::make_unique<yao_protocol>(setup, cores_for(hash, scheme), hash, ipp, ipp_min_ands);
        }
        give_ticket();
    }

    /// Whether this set-up resumes (docs/DESIGN.md §7.11). The party with a
    /// slot, when the peer keeps a store, presents its ticket's name (or
    /// none) and a fresh nonce; the store's party answers whether it held
    /// the name and its own nonce. Resuming, both return the ticket's
    /// set-up and n = H(name, both nonces) to re-key it under.
    std::unique_ptr<resumable_ot> resumption(block& n) {
        net::channel& c = *ch;
        const auto fits = [&](const resumable_ot& t) { return t.me == me && t.hash == hash && t.ipp == ipp; };
        std::unique_ptr<resumable_ot> from;
        bytes16 name{};
        block client_nonce, server_nonce;
        if (ticket && peer_tickets == ticket_role::store) {
            std::optional<session_ticket::held> held = ticket->take();  // used once, whatever the answer
            const bool present = held && fits(*held->ot);
            if (present) name = held->name;
            client_nonce = declassified(rng.next());
            c.send_value(static_cast<std::uint8_t>(present));
            c.send(name.data(), name.size());
            c.send_value(client_nonce);
            c.flush();
            const auto taken = c.recv_value<std::uint8_t>();
            server_nonce = c.recv_value<block>();
            if (taken > 1 || (taken == 1 && !present))
                throw protocol_error("session set-up on " + c.name() +
                                     ": the peer resumed a ticket this party did not present; build both parties "
                                     "with the same tandem version");
            if (taken == 1) from = std::move(held->ot);
        } else if (store && peer_tickets == ticket_role::slot) {
            const auto present = c.recv_value<std::uint8_t>();
            c.recv(name.data(), name.size());
            client_nonce = c.recv_value<block>();
            if (present > 1)
                throw protocol_error("session set-up on " + c.name() + ": the peer presented a malformed ticket; "
                                     "build both parties with the same tandem version");
            if (present == 1) {
                from = store->redeem(store_key(name));
                if (from && !fits(*from)) from.reset();  // the server's options changed: set up in full
            }
            server_nonce = declassified(rng.next());
            c.send_value(static_cast<std::uint8_t>(from != nullptr));
            c.send_value(server_nonce);
            c.flush();
        }
        if (from) {
            const auto cn = bytes_of(client_nonce), sn = bytes_of(server_nonce);
            n = ticket_hash("tandem resume", {name, cn, sn});
        }
        wipe(name.data(), name.size());
        return from;
    }

    /// At the end of the OT set-up, a store's party gives a slot's party a
    /// new ticket: a random name, and on both sides this set-up re-keyed
    /// under H(name).
    void give_ticket() {
        net::channel& c = *ch;
        bytes16 name;
        if (store && peer_tickets == ticket_role::slot) {
            const block drawn = rng.next();
            drawn.store(name.data());
            declassify(name.data(), name.size());  // sent inside the main link
            c.send(name.data(), name.size());
            c.flush();
            store->keep(store_key(name), proto->resumable(ticket_hash("tandem ticket", {name})));
        } else if (ticket && peer_tickets == ticket_role::store) {
            c.recv(name.data(), name.size());
            ticket->hold(name, proto->resumable(ticket_hash("tandem ticket", {name})));
        } else {
            return;
        }
        wipe(name.data(), name.size());
    }
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END

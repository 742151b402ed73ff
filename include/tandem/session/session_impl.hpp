// tandem/session/session_impl.hpp — the definitions of session.hpp's
// session and listener: what surrounds each run whatever the protocol (the
// run headers, the statistics, a failed run closing the session), on the
// protocol (session/protocol.hpp) set up by session/setup.hpp. Included at the end of
// session.hpp when tandem is used header-only; compiled once into the
// library, by src/session.cpp, when TANDEM_SEPARATE_COMPILATION is defined
// (then user code never sees this file, nor the sockets, libsodium or the kernels).
#pragma once

#include <tandem/crypto/target.hpp>
#include <tandem/detail/linkage.hpp>

#include <tandem/circuit/batch.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/keys_impl.hpp>
// memory.hpp too, though a session does not use it: with tcp_channel the only
// channel in sight, GCC speculatively devirtualizes and inlines it at every
// channel call, and a program that includes only session.hpp compiles in
// twice the time (52 s against 25 s; bench/RESULTS.md, issue 16).
#include <tandem/net/memory.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/session.hpp>
#include <tandem/session/pipelined.hpp>
#include <tandem/session/protocol.hpp>
#include <tandem/session/run_header.hpp>
#include <tandem/session/link_preface.hpp>
#include <tandem/session/setup.hpp>
#include <tandem/session/stream.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <utility>


TANDEM_CRYPTO_BEGIN

namespace tandem {


TANDEM_INLINE session::session(party me, std::unique_ptr<net::channel> channel, session_options options,
                               link_opener open_link)
    : session(me, std::move(channel), std::move(options), std::move(open_link), nullptr) {}

TANDEM_INLINE session::session(party me, std::unique_ptr<net::channel> channel, session_options options,
                               link_opener open_link, std::shared_ptr<detail::remote_workers> workers)
    : s_(std::make_unique<state>(me, std::move(channel), options)) {
    if (workers) {
        if (options.threads < 2)
            throw usage_error("session: remote workers need threads ≥ 2 (worker 0 is this process)");
        if (options.ipp && !open_link)
            throw usage_error("session: IPP with remote workers needs a way to open link 0 of Bob's world");
        s_->remote = std::move(workers);
    } else if (options.threads > 1 && !open_link) {
        throw usage_error("session: threads = " + std::to_string(options.threads) +
                          " needs a way to open the other connections; use session::listen/accept/connect, "
                          "or pass a link_opener");
    }
    s_->ch->set_timeout(options.timeout);
    const auto t0 = net::clock::now();
    s_->protect_main_link();
    s_->handshake();
    s_->make_protocol();
    s_->open_worker_links(open_link, options.timeout);
    s_->start_protocol();
    s_->setup_seconds = std::chrono::duration<double>(net::clock::now() - t0).count();
}

TANDEM_INLINE session::session(session&&) noexcept = default;
TANDEM_INLINE session& session::operator=(session&&) noexcept = default;
TANDEM_INLINE session::~session() = default;

TANDEM_INLINE session session::listen(party me, std::uint16_t port, session_options options,
                                      const std::string& address) {
    auto listener = std::make_shared<net::tcp_listener>(port, address);
    auto main = listener->accept(options.connect_timeout);
    return session(me, std::move(main), options, [listener, t = options.connect_timeout](const link_id& id) {
        std::unique_ptr<net::channel> link = listener->accept(t);
        detail::expect_link_preface(*link, id);
        return link;
    });
}

TANDEM_INLINE session session::accept(party me, net::tcp_listener& listener, session_options options) {
    return session(me, listener.accept(options.connect_timeout), options,
                   [&listener, t = options.connect_timeout](const link_id& id) {
                       std::unique_ptr<net::channel> link = listener.accept(t);
                       detail::expect_link_preface(*link, id);
                       return link;
                   });
}

TANDEM_INLINE session session::connect(party me, const std::string& host, std::uint16_t port,
                                       session_options options) {
    return session(me, net::tcp_connect(host, port, options.connect_timeout), options,
                   [host, port, t = options.connect_timeout](const link_id& id) {
                       std::unique_ptr<net::channel> link = net::tcp_connect(host, port, t);
                       detail::send_link_preface(*link, id);
                       return link;
                   });
}

TANDEM_INLINE party session::me() const noexcept { return s_->me; }
TANDEM_INLINE double session::setup_seconds() const noexcept { return s_->setup_seconds; }
TANDEM_INLINE bool session::resumed() const noexcept { return s_->resumed; }
TANDEM_INLINE const run_stats& session::last_run() const noexcept { return s_->last; }
TANDEM_INLINE net::channel& session::channel() noexcept { return *s_->ch; }

TANDEM_INLINE void session::trim() noexcept {
    if (!s_) return;
    if (s_->proto) s_->proto->trim();
    for (net::channel* l : s_->links) l->trim();
    for (net::channel* l : s_->bob_links) l->trim();
}
TANDEM_INLINE std::uint32_t session::threads() const noexcept { return s_->threads; }
TANDEM_INLINE bool session::ipp() const noexcept { return s_->ipp; }

TANDEM_INLINE std::optional<std::vector<std::vector<bool>>> session::run_checked(
    reveal who, const circuit<>& c, const std::vector<std::uint8_t>& my_bits, const detail::batch_context* batch) {
    guard_broken();
    try {
        const std::optional<std::vector<bool>> bits = run_protocol(who, c, my_bits, batch);
        if (!bits) return std::nullopt;
        std::vector<std::vector<bool>> values;
        for (const value_layout& v : c.data().outputs)
            values.emplace_back(bits->begin() + v.first_bit, bits->begin() + v.first_bit + v.bits);
        return values;
    } catch (const std::exception& e) {
        fail(e);
        throw;
    }
}

TANDEM_INLINE const circuit<>& session::batched_circuit(const circuit<>& c, std::uint64_t sets) {
    std::vector<detail::batched_entry>& cache = s_->batched;
    for (detail::batched_entry& e : cache)
        if (&e.of.data() == &c.data() && e.sets == sets) return e.batched;
    if (cache.size() >= detail::batched_cache_size) cache.erase(cache.begin());  // the oldest
    cache.push_back(detail::batched_entry{c, sets, detail::make_batched(c, sets)});
    return cache.back().batched;
}

TANDEM_INLINE std::optional<std::vector<std::vector<bool>>> session::run_batch_checked(
    reveal who, const circuit<>& c, std::uint64_t sets, const std::vector<std::uint8_t>& my_bits) {
    guard_broken();
    const circuit<>& batched = batched_circuit(c, sets);  // a usage_error here leaves the session usable
    const detail::batch_context note{sets, detail::run_header(who, c, s_->runs, s_->me)};
    return run_checked(who, batched, my_bits, &note);
}

TANDEM_INLINE void session::prepare(const circuit<>& c, std::size_t runs) {
    guard_broken();
    state& s = *s_;
    s.proto->check_prepare();
    try {
        const state::run_meter meter(s);
        detail::run_header mine(reveal::both, c, s.runs, s.me);
        mine.who = detail::run_header::prepare_who;
        mine.send(*s.ch);
        s.ch->send_value(static_cast<std::uint64_t>(runs));
        detail::check_peer_header(*s.ch, mine);
        if (const auto theirs = s.ch->recv_value<std::uint64_t>(); theirs != runs)
            throw protocol_error("session::prepare: this party prepares " + std::to_string(runs) +
                                 " executions and the peer " + std::to_string(theirs) +
                                 "; both must call prepare() with the same count");
        s.proto->prepare(c, runs);
        s.last = meter.finish();
        ++s.runs;
    } catch (const std::exception& e) {
        fail(e);
        throw;
    }
}

TANDEM_INLINE std::size_t session::prepared(const circuit<>& c) const {
    return s_->proto->prepared(c);
}

TANDEM_INLINE void session::guard_broken() const {
    if (s_->broken)
        throw usage_error("session::run: an earlier run failed (" + s_->broken_why +
                          "); the link is in an unknown state, open a new session");
}

TANDEM_INLINE void session::fail(const std::exception& e) {
    s_->broken = true;
    s_->broken_why = e.what();
    for (net::channel* l : s_->links) l->close();
    for (net::channel* l : s_->bob_links) l->close();
}

TANDEM_INLINE std::optional<std::vector<bool>> session::run_protocol(reveal who, const circuit<>& c,
                                                                   const std::vector<std::uint8_t>& my_bits,
                                                                   const detail::batch_context* batch) {
    state& s = *s_;
    const state::run_meter meter(s);
    const detail::run_header mine(who, c, s.runs, s.me);
    mine.send(*s.ch);
    std::optional<std::vector<bool>> bits =
        s.proto->run(who, c, my_bits, [&] { detail::check_peer_header(*s.ch, mine, batch); });
    s.last = meter.finish();
    ++s.runs;
    return bits;
}

TANDEM_INLINE void session::run_stream(reveal who, std::uint64_t segment_ands,
                                      const std::vector<std::uint64_t>& signature, std::uint64_t expected_ands,
                                      std::optional<bool> eager_asked,
                                      const std::function<void(detail::segment_runner*, detail::gate_sink*)>& body) {
    guard_broken();
    state& s = *s_;
    const bool eager = s.proto->eager(eager_asked);  // a refusal here: nothing sent, and both parties refuse
    try {
        const state::run_meter meter(s);
        detail::stream_run_header header;
        header.run = s.runs;
        header.segment_ands = segment_ands;
        header.who = static_cast<std::uint8_t>(who);
        header.eager = eager ? 1 : 0;
        header.inputs = signature;
        header.send(*s.ch);
        header.check(detail::stream_run_header::receive(*s.ch));
        const auto interrupt = [&s] {
            for (const auto* links : {&s.links, &s.bob_links})
                for (net::channel* l : *links) l->interrupt();
        };
        s.proto->stream(eager, s.progress, expected_ands, [&](detail::segment_runner* r, detail::gate_sink* g) {
            if (!s.pipeline) return body(r, g);
            // Make the next gates (eager) or record segment k + 1 while the
            // last are garbled or evaluated.
            if (g != nullptr) {
                detail::pipelined_sink p(*g, interrupt);
                body(nullptr, &p);
                p.finish();
            } else {
                detail::pipelined_runner p(*r, interrupt);
                body(&p, nullptr);
            }
        });
        s.last = meter.finish();
        s.last.pipelined = s.pipeline;
        s.last.eager = eager;
        ++s.runs;
    } catch (const std::exception& e) {
        fail(e);
        throw;
    }
}

TANDEM_INLINE listener::listener(std::uint16_t port, const std::string& address)
    : tcp_(std::make_unique<net::tcp_listener>(port, address)) {}
TANDEM_INLINE listener::listener(listener&&) noexcept = default;
TANDEM_INLINE listener& listener::operator=(listener&&) noexcept = default;
TANDEM_INLINE listener::~listener() = default;
TANDEM_INLINE std::uint16_t listener::port() const { return tcp_->port(); }
TANDEM_INLINE session listener::accept(party me, session_options options) {
    return session::accept(me, *tcp_, options);
}

}  // namespace tandem

TANDEM_CRYPTO_END


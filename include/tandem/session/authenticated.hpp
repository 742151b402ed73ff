// tandem/session/authenticated.hpp — authenticated garbling as a session's
// protocol (session/protocol.hpp) under security::malicious: the global
// keys, both SoftSpoken extensions and the triple makers (auth/), set up
// once per session; each run, stream or prepare() by
// auth::garbler_evaluator (docs/DESIGN.md §9.2).
//
// A streamed run (docs/DESIGN.md §11, "In malicious mode") goes segment by
// segment, as each is cut:
//
//   Alice → Bob    the segment header (session/stream.hpp): Bob compares it
//                  with his own and stops with protocol_error at the first
//                  segment that differs
//   both           the segment by authenticated garbling
//                  (auth::garbler_evaluator::run_segment): its preprocessing,
//                  online phase and AND check, then the bits it opens
//
// The wires a segment carries into the next keep their authenticated masks
// and labels (auth/garble.hpp), so no value is ever opened between segments
// but those the function opens.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/auth/bits.hpp>
#include <tandem/auth/garble.hpp>
#include <tandem/auth/triples.hpp>
#include <tandem/circuit/builder.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/protocol.hpp>
#include <tandem/session/remote_workers.hpp>
#include <tandem/session/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

class auth_stream_runner final : public segment_runner {
public:
    auth_stream_runner(auth::garbler_evaluator& g, party me, net::channel& ch, const progress_callback& progress,
                       std::uint64_t expected_ands)
        : g_(g), me_(me), ch_(ch), log(ch, progress, expected_ands) {
        g_.start_stream();
    }
    auth_stream_runner(const auth_stream_runner&) = delete;
    auth_stream_runner& operator=(const auth_stream_runner&) = delete;
    ~auth_stream_runner() { g_.end_stream(); }

    std::optional<std::vector<bool>> run(stream_segment&& s) override {
        const segment_header mine = log.header_of(s);
        if (me_ == party::alice) mine.send(ch_);
        else segment_log::compare(ch_, mine);
        const std::uint64_t ands = s.and_gates;
        const std::optional<std::vector<std::uint8_t>> bits = g_.run_segment(ch_, std::move(s));
        ch_.flush();
        log.done(ands, 0);
        if (!bits) return std::nullopt;
        return std::vector<bool>(bits->begin(), bits->end());
    }

private:
    auth::garbler_evaluator& g_;
    party me_;
    net::channel& ch_;

public:
    segment_log log;
};

/// Authenticated garbling, one party's side.
class authenticated_protocol final : public protocol {
public:
    /// Each party draws its global key (auth::draw_delta); both extensions
    /// and the triple maker's coin toss are set up (auth/bits.hpp).
    authenticated_protocol(const protocol_setup& s, cot_extension extension)
        : me_(s.me), ch_(s.ch), rng_(s.rng), extension_(extension) {
        delta_ = auth::draw_delta(me_, extension_, rng_);
        authenticator_.emplace(ch_, me_, delta_, rng_, extension_);
        triple_maker_.emplace(ch_, *authenticator_, rng_);
        ch_.flush();
    }
    authenticated_protocol(const authenticated_protocol&) = delete;
    authenticated_protocol& operator=(const authenticated_protocol&) = delete;
    ~authenticated_protocol() override { wipe(&delta_, sizeof delta_); }

    /// With threads > 1, each worker's own triple maker (on its link, or on
    /// an MPI rank's: remote), under this party's global key with randomness
    /// of its own: the triples are made by all at once, a task per worker on
    /// the session's pool (garbler_evaluator::make_triples), whose tasks
    /// suspend where they wait, as a compiled run's do (exec::workers). Their
    /// set-ups (both SoftSpoken extensions, the coin toss) run all at once
    /// too: a failure on one interrupts the others and is rethrown once all
    /// are done. Wide levels are garbled on the worker links too
    /// (garbler_evaluator::garble_on); with MPI ranks only the triples are
    /// made elsewhere.
    void start(const protocol_links& l) override {
        garbler_.emplace(*authenticator_, *triple_maker_, rng_);
        const std::size_t n = l.remote ? l.threads - 1 : l.links.size() - 1;
        if (n == 0) return;
        pool_.emplace(static_cast<std::uint32_t>(n + 1), exec::task_waits_on(l.links, l.remote != nullptr));
        std::vector<block> seeds(n);
        for (block& b : seeds) b = rng_.next();  // the PRG is not shared between threads
        const auto wipe_seeds = [&] {
            for (block& b : seeds) wipe(&b, sizeof b);
        };
        triple_sources_.resize(n);
        try {
            pool_->run_together(
                static_cast<std::uint32_t>(n),
                [&](std::uint32_t k) {
                    const std::uint32_t w = k + 1;
                    if (l.remote) triple_sources_[k] = l.remote->triples(w, delta_, seeds[k], extension_);
                    else
                        triple_sources_[k] =
                            std::make_unique<auth::linked_triples>(*l.links[w], me_, delta_, seeds[k], extension_);
                },
                [&] {
                    for (net::channel* link : l.links) link->interrupt();
                });
        } catch (...) {
            wipe_seeds();
            throw;
        }
        wipe_seeds();
        std::vector<auth::triple_source*> sources;
        for (const auto& t : triple_sources_) sources.push_back(t.get());
        garbler_->add_triple_sources(std::move(sources), *pool_);
        if (!l.remote) garbler_->garble_on(std::vector<net::channel*>(l.links.begin() + 1, l.links.end()));
    }

    std::optional<std::vector<bool>> run(reveal who, const circuit<>& c, std::span<const std::uint8_t> my_bits,
                                         const std::function<void()>& check_header) override {
        check_header();
        const std::optional<std::vector<std::uint8_t>> out = the_garbler().run(ch_, c, my_bits, who);
        ands_ = garbler_->and_gates();
        if (!out) return std::nullopt;
        return std::vector<bool>(out->begin(), out->end());
    }

    bool eager(std::optional<bool> asked) const override {
        if (asked.value_or(false))
            throw usage_error("session::run: streamed_function::eager runs in semi-honest sessions only (authenticated "
                              "garbling needs a segment's gates before its tables); set eager = false");
        return false;
    }

    void stream(bool, const progress_callback& progress, std::uint64_t expected_ands,
                const stream_body& body) override {
        auth_stream_runner r(the_garbler(), me_, ch_, progress, expected_ands);
        body(&r, nullptr);
        ands_ = r.log.and_gates;
    }

    void check_prepare() const override {}
    void prepare(const circuit<>& c, std::size_t runs) override {
        the_garbler().prepare(ch_, c, runs);
        ands_ = garbler_->and_gates();
    }
    std::size_t prepared(const circuit<>& c) const override { return garbler_ ? garbler_->prepared(c) : 0; }

    void report(run_stats& r) const override {
        r.and_gates = ands_;
        if (!garbler_) return;
        r.independent = garbler_->last_phases().independent;
        r.dependent = garbler_->last_phases().dependent;
        r.online = garbler_->last_phases().online;
    }

    std::unique_ptr<resumable_ot> resumable(block) const override {
        internal_error("session: the authenticated garbling protocol does not resume (tickets are refused first)");
    }

private:
    auth::garbler_evaluator& the_garbler() {
        if (!garbler_) internal_error("session: the authenticated garbling protocol was not started");
        return *garbler_;
    }

    party me_;
    net::channel& ch_;
    prg& rng_;
    cot_extension extension_;
    block delta_;  // this party's global key
    std::optional<auth::authenticator> authenticator_;
    std::optional<auth::triple_maker> triple_maker_;
    std::optional<exec::workers> pool_;  // with threads > 1: where the triples' parts run
    std::vector<std::unique_ptr<auth::triple_source>> triple_sources_;  // workers 1 .. threads-1
    std::optional<auth::garbler_evaluator> garbler_;
    std::uint64_t ands_ = 0;  // of the last run or prepare()
};

}  // namespace tandem::detail

TANDEM_CRYPTO_END

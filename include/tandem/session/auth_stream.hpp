// tandem/session/auth_stream.hpp — one streamed run under
// security::malicious (docs/DESIGN.md §11, "In malicious mode"): this party's segment runner.
//
// Per segment, as it is cut:
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

#include <tandem/auth/garble.hpp>
#include <tandem/circuit/builder.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/session/options.hpp>
#include <tandem/session/stream.hpp>

#include <cstdint>
#include <optional>
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

}  // namespace tandem::detail

TANDEM_CRYPTO_END

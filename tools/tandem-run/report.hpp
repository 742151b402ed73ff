// tools/tandem-run/report.hpp — what tandem-run prints: results and costs
// as text or one JSON object, and the progress line on a terminal.
#pragma once

#include "options.hpp"

#include <tandem/bits.hpp>
#include <tandem/tandem.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace tandem_run {

inline std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += buf;
        } else out += c;
    }
    return out + "\"";
}

inline std::string format_value(const std::vector<bool>& bits, output_format f) {
    switch (f) {
        case output_format::hex: return "0x" + tandem::hex_from_bits(bits);
        case output_format::dec: return tandem::decimal_from_bits(bits);
        case output_format::signed_dec: return tandem::decimal_from_bits(bits, true);
    }
    return {};
}

/// What one command produced, as this party saw it.
struct run_report {
    std::string mode;  ///< plain or garbled
    std::optional<tandem::party> party;
    bool learnt = true;
    std::optional<std::vector<std::vector<bool>>> outputs;
    std::uint64_t and_gates = 0;  ///< plain mode
    double seconds = 0;           ///< plain mode
    tandem::run_stats stats;      ///< garbled runs
    double setup_seconds = 0;
    std::uint32_t threads = 1;
    bool ipp = false, stream = false, malicious = false;
};

inline void print_run(const options& o, const run_report& r, std::ostream& out) {
    const bool garbled = r.mode == "garbled";
    if (o.json) {
        std::ostringstream j;
        j << "{\"mode\":" << json_string(r.mode);
        if (r.party) j << ",\"party\":" << json_string(std::string(tandem::to_string(*r.party)));
        j << ",\"circuit\":" << json_string(o.circuit) << ",\"outputs\":";
        if (r.outputs) {
            j << "[";
            for (std::size_t i = 0; i < r.outputs->size(); ++i)
                j << (i ? "," : "") << json_string(format_value((*r.outputs)[i], o.output));
            j << "]";
        } else {
            j << "null";
        }
        if (garbled) {
            j << ",\"and_gates\":" << r.stats.and_gates << ",\"bytes_sent\":" << r.stats.bytes_sent
              << ",\"bytes_received\":" << r.stats.bytes_received << ",\"setup_seconds\":" << r.setup_seconds
              << ",\"seconds\":" << r.stats.seconds << ",\"ot_seconds\":" << r.stats.ot_seconds
              << ",\"threads\":" << r.threads << ",\"ipp\":" << (r.ipp ? "true" : "false")
              << ",\"stream\":" << (r.stream ? "true" : "false");
            j << ",\"security\":" << json_string(r.malicious ? "malicious" : "semi-honest");
            if (r.malicious)
                for (const auto& [name, ph] : {std::pair{"independent", &r.stats.independent},
                                               std::pair{"dependent", &r.stats.dependent},
                                               std::pair{"online", &r.stats.online}})
                    j << ",\"" << name << "\":{\"seconds\":" << ph->seconds << ",\"bytes_sent\":" << ph->bytes_sent
                      << ",\"bytes_received\":" << ph->bytes_received << "}";
            if (r.ipp)
                j << ",\"transferred_bits\":" << r.stats.transferred_bits << ",\"transfer_ots\":" << r.stats.transfer_ots;
        } else {
            j << ",\"and_gates\":" << r.and_gates << ",\"seconds\":" << r.seconds;
        }
        j << "}\n";
        out << j.str() << std::flush;
        return;
    }
    const std::string who = r.party ? "[" + std::string(tandem::to_string(*r.party)) + "] " : std::string();
    std::ostringstream t;
    if (r.outputs) {
        for (std::size_t i = 0; i < r.outputs->size(); ++i)
            t << who << "output " << i << " (" << (*r.outputs)[i].size()
              << " bits): " << format_value((*r.outputs)[i], o.output) << "\n";
    } else {
        t << who << "outputs: revealed to the other party only\n";
    }
    t.setf(std::ios::fixed);
    t.precision(2);
    if (garbled) {
        t << who << "AND gates: " << r.stats.and_gates << "; sent " << r.stats.bytes_sent << " bytes, received "
          << r.stats.bytes_received << " bytes\n"
          << who << "set-up " << r.setup_seconds * 1e3 << " ms, run " << r.stats.seconds * 1e3 << " ms (OT extension "
          << r.stats.ot_seconds * 1e3 << " ms)";
        if (r.threads > 1) t << "; " << r.threads << " workers";
        if (r.ipp) t << "; IPP, " << r.stats.transferred_bits << " bits transferred between the worlds";
        if (r.stream) t << "; streamed";
        t << "\n";
        if (r.malicious)
            t << who << "malicious security: preprocessing " << r.stats.independent.seconds * 1e3
              << " ms independent of the function + " << r.stats.dependent.seconds * 1e3 << " ms dependent, online "
              << r.stats.online.seconds * 1e3 << " ms\n";
    } else {
        t << "AND gates: " << r.and_gates << " (plaintext, " << r.seconds * 1e3 << " ms)\n";
    }
    out << t.str() << std::flush;
}

inline void print_stats(const options& o, const tandem::circuit<>& c, std::ostream& out) {
    const tandem::circuit_stats s = c.stats();
    const std::uint64_t garbler_bytes = s.bytes_garbler_to_evaluator_with(o.session.scheme);
    // Labels are 16 bytes: the evaluator's working set in bytes.
    const std::uint64_t working_bytes = std::uint64_t{s.peak_working_set} * 16;
    if (o.json) {
        std::ostringstream j;
        j << "{\"circuit\":" << json_string(o.circuit) << ",\"inputs\":[";
        for (std::size_t i = 0; i < c.inputs().size(); ++i)
            j << (i ? "," : "") << "{\"owner\":" << json_string(std::string(tandem::to_string(c.inputs()[i].owner)))
              << ",\"bits\":" << c.inputs()[i].bits << "}";
        j << "],\"outputs\":[";
        for (std::size_t i = 0; i < c.outputs().size(); ++i) j << (i ? "," : "") << c.outputs()[i].bits;
        j << "],\"and_gates\":" << s.and_gates << ",\"xor_gates\":" << s.xor_gates << ",\"not_gates\":" << s.not_gates
          << ",\"executed_gates\":" << s.executed_gates << ",\"stored_gates\":" << s.stored_gates
          << ",\"and_depth\":" << s.and_depth << ",\"levels\":" << s.levels << ",\"regions\":" << s.regions.size()
          << ",\"width_histogram\":[";
        for (std::size_t k = 0; k < s.width_histogram.size(); ++k) j << (k ? "," : "") << s.width_histogram[k];
        j << "],\"peak_working_set_slots\":" << s.peak_working_set << ",\"peak_working_set_bytes\":" << working_bytes
          << ",\"wires\":" << s.wire_count
          << ",\"scheme\":" << json_string(std::string(tandem::to_string(o.session.scheme)))
          << ",\"bytes_garbler_to_evaluator\":" << garbler_bytes
          << ",\"bytes_evaluator_to_garbler\":" << s.bytes_evaluator_to_garbler << "}\n";
        out << j.str() << std::flush;
        return;
    }
    std::ostringstream t;
    t << o.circuit << "\n  inputs:  ";
    for (std::size_t i = 0; i < c.inputs().size(); ++i)
        t << (i ? ", " : "") << c.inputs()[i].bits << " bits (" << tandem::to_string(c.inputs()[i].owner) << ")";
    if (c.inputs().empty()) t << "none";
    t << "\n  outputs: ";
    for (std::size_t i = 0; i < c.outputs().size(); ++i) t << (i ? ", " : "") << c.outputs()[i].bits << " bits";
    t << "\n  gates:   " << s.and_gates << " AND, " << s.xor_gates << " XOR, " << s.not_gates << " NOT ("
      << s.executed_gates << " executed, " << s.stored_gates << " stored";
    if (!s.regions.empty()) t << ", " << s.regions.size() << " parallel region(s)";
    t << ")\n  depth:   " << s.and_depth << " AND levels (" << s.levels << " levels)\n";
    t << "  level widths (ANDs per level, levels with ANDs):\n";
    std::uint32_t most = 1;
    for (auto n : s.width_histogram) most = std::max(most, n);
    for (std::size_t k = 0; k < s.width_histogram.size(); ++k) {
        if (s.width_histogram[k] == 0) continue;
        const std::uint64_t lo = std::uint64_t{1} << k, hi = (std::uint64_t{1} << (k + 1)) - 1;
        char range[48];
        std::snprintf(range, sizeof range, "%llu-%llu", static_cast<unsigned long long>(lo),
                      static_cast<unsigned long long>(hi));
        const int bar = static_cast<int>(40.0 * s.width_histogram[k] / most + 0.5);
        char line[160];
        std::snprintf(line, sizeof line, "    %21s ANDs: %8u levels %.*s\n", range, s.width_histogram[k],
                      std::max(bar, 1), "########################################");
        t << line;
    }
    t << "  working set: " << s.peak_working_set << " labels (" << working_bytes / 1024
      << " KiB per evaluator, one thread)\n"
      << "  a run sends: " << garbler_bytes << " bytes alice -> bob (" << tandem::to_string(o.session.scheme) << "), "
      << s.bytes_evaluator_to_garbler
      << " bytes bob -> alice (one run, both learning the outputs; the session's one-off set-up, base OTs, comes on top)\n";
    out << t.str() << std::flush;
}

/// The progress line on stderr: drawn only on a terminal, at most 10 times a second.
class progress_line {
public:
    progress_line(bool wanted, tandem::party me)
        : on_(wanted && isatty(STDERR_FILENO) != 0), who_("[" + std::string(tandem::to_string(me)) + "] ") {}

    /// A phase ("connecting…") without a bar.
    void status(const std::string& what) const {
        if (!on_) return;
        std::fprintf(stderr, "\r\033[K%s%s…", who_.c_str(), what.c_str());
        std::fflush(stderr);
    }
    void clear() const {
        if (on_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
    }
    /// The streamed runs' callback: a bar with rate and ETA.
    tandem::progress_callback callback(tandem::party) const {
        if (!on_) return {};
        auto last = std::make_shared<std::chrono::steady_clock::time_point>();
        return [who = who_, last](const tandem::stream_progress& p) {
            const auto now = std::chrono::steady_clock::now();
            if (now - *last < std::chrono::milliseconds(100)) return;
            *last = now;
            const double f = p.expected_ands == 0
                                 ? 0.0
                                 : std::min(1.0, static_cast<double>(p.and_gates) / static_cast<double>(p.expected_ands));
            const int filled = static_cast<int>(f * 30);
            const auto eta = p.eta_seconds();
            std::fprintf(stderr, "\r\033[K%s[%.*s%*s] %5.1f%%  %.1f M AND/s  sent %.0f MB%s", who.c_str(), filled,
                         "##############################", 30 - filled, "", 100 * f, p.ands_per_second() / 1e6,
                         static_cast<double>(p.bytes_sent) / 1e6,
                         eta ? ("  ETA " + std::to_string(static_cast<long>(*eta)) + " s").c_str() : "");
            std::fflush(stderr);
        };
    }

private:
    bool on_;
    std::string who_;
};

}  // namespace tandem_run

// Shared command line and reporting of tandem's benchmarks (docs/BENCH.md):
// --json, --reps N, --threads N, --quick; median and minimum of the repetitions.
#pragma once

#include <tandem/crypto/isa.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bench {

struct options {
    bool json = false;
    bool quick = false;
    int reps = 5;
    int threads = 1;
};

inline options parse(int argc, char** argv, const char* name) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> int {
            if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
            return std::stoi(argv[++i]);
        };
        if (a == "--json") o.json = true;
        else if (a == "--quick") o.quick = true;
        else if (a == "--reps") o.reps = std::max(1, value());
        else if (a == "--threads") o.threads = std::max(1, value());
        else {
            std::cerr << "usage: " << name << " [--json] [--quick] [--reps N] [--threads N]\n";
            std::exit(2);
        }
    }
    if (o.quick) o.reps = std::min(o.reps, 2);
    return o;
}

/// Seconds since t0.
inline double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Seconds of each repetition of f().
template <class F>
std::vector<double> time_reps(int reps, F&& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return t;
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}
inline double minimum(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

/// Peak resident set of this process (VmHWM), 0 if unknown.
inline std::uint64_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    return 0;
}

/// s as the inside of a JSON string (quotes, backslashes and control characters escaped).
inline std::string json_escape(const std::string& s) {
    std::string out;
    for (const char ch : s) {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') out += '\\', out += ch;
        else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else out += ch;
    }
    return out;
}

/// This machine's CPU model ("model name" in /proc/cpuinfo), "unknown" if absent.
inline const std::string& cpu_model() {
    static const std::string model = [] {
        std::ifstream info("/proc/cpuinfo");
        std::string line;
        while (std::getline(info, line))
            if (line.rfind("model name", 0) == 0) {
                const auto colon = line.find(':');
                if (colon == std::string::npos) break;
                const auto start = line.find_first_not_of(" \t", colon + 1);
                return start == std::string::npos ? std::string("unknown") : line.substr(start);
            }
        return std::string("unknown");
    }();
    return model;
}

/// One JSON object on one line; values are pre-formatted JSON. Every record
/// names its benchmark and case, and the machine: "cpu" (model) and "nproc"
/// (hardware threads), so that bench/plot.py can caption its figures.
class record {
public:
    record(const std::string& bench, const std::string& cas) {
        add_string("bench", bench).add_string("case", cas);
        add_string("cpu", cpu_model()).add("nproc", std::thread::hardware_concurrency());
        add_string("isa", tandem::to_string(tandem::active_aes_isa()));  // the AES kernels this process runs
    }
    record& add_string(const std::string& k, const std::string& v) {
        std::string quoted(1, '"');  // appended, not "\"" + ...: GCC 12 warns (-Wrestrict) on that
        quoted += json_escape(v);
        quoted += '"';
        return add(k, quoted);
    }
    template <class T>
    record& add(const std::string& k, const T& v) {
        std::ostringstream s;
        s << v;
        fields_.emplace_back(k, s.str());
        return *this;
    }
    std::string json() const {
        std::string s = "{";
        for (std::size_t i = 0; i < fields_.size(); ++i)
            s += (i ? ", \"" : "\"") + fields_[i].first + "\": " + fields_[i].second;
        return s + "}";
    }

private:
    std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace bench

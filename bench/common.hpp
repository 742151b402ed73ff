// Shared command line and reporting of tandem's benchmarks (docs/BENCH.md):
// --json, --reps N, --threads N, --quick; median and minimum of the repetitions.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
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

/// One JSON object on one line; values are pre-formatted JSON.
class record {
public:
    record(const std::string& bench, const std::string& cas) { add_string("bench", bench).add_string("case", cas); }
    record& add_string(const std::string& k, const std::string& v) { return add(k, "\"" + v + "\""); }
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

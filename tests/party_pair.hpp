// Two parties of a protocol step in two threads over an in-memory channel
// pair (tests only): the OT and authenticated-bit tests' harness.
#pragma once

#include <tandem/error.hpp>
#include <tandem/net/memory.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <thread>

namespace tandem::test {

/// Runs a(first end) in a new thread and b(second end) here, over a fresh
/// memory pair. A party that throws closes its end (so the other fails
/// instead of waiting) and its exception is rethrown after both finish.
inline void run_pair(const std::function<void(net::channel&)>& a, const std::function<void(net::channel&)>& b) {
    auto [ca, cb] = net::memory_pair();
    ca->set_timeout(std::chrono::milliseconds(20'000));
    cb->set_timeout(std::chrono::milliseconds(20'000));
    std::exception_ptr ea, eb;
    std::thread t([&, ca = ca.get()] {
        try {
            a(*ca);
        } catch (...) {
            ea = std::current_exception();
            ca->close();
        }
    });
    try {
        b(*cb);
    } catch (...) {
        eb = std::current_exception();
        cb->close();
    }
    t.join();
    // The root cause first: the other party then only saw the link close.
    auto network = [](const std::exception_ptr& e) {
        try {
            std::rethrow_exception(e);
        } catch (const network_error&) {
            return true;
        } catch (...) {
            return false;
        }
    };
    if (ea && (!eb || !network(ea))) std::rethrow_exception(ea);
    if (eb) std::rethrow_exception(eb);
}

}  // namespace tandem::test

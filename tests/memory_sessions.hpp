// Two sessions in one process over in-memory links (tests only): the
// channels of a set-up, a link_opener over pre-made channels, both parties
// run on two threads, and a channel that drops the link after n bytes.
#pragma once

#include "exception_text.hpp"
#include "recording_channel.hpp"

#include <tandem/net/tcp.hpp>
#include <tandem/tandem.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace tandem::test {

using namespace std::chrono_literals;

/// A test's deadline d, or `factor` times d under the sanitizers
/// (TANDEM_SANITIZED), where a phase runs 5-50 times slower and two test
/// programs share the machine's two cores.
constexpr std::chrono::milliseconds sanitized_deadline(std::chrono::milliseconds d, int factor) noexcept {
#ifdef TANDEM_SANITIZED
    return factor * d;
#else
    (void)factor;
    return d;
#endif
}

/// The deadline of an honest test run's links: generous enough under the
/// sanitizers that an honest run misses it only by hanging. A test of the
/// deadline itself sets its own (faults.cpp: fault_timeout).
constexpr std::chrono::milliseconds honest_deadline(std::chrono::milliseconds d) noexcept {
    return sanitized_deadline(d, 6);
}

struct outcome {
    std::exception_ptr alice, bob;
};

using link_list = std::vector<std::unique_ptr<net::channel>>;

/// A link_opener that hands out pre-made channels in order.
inline session::link_opener opener_of(link_list links) {
    auto q = std::make_shared<std::deque<std::unique_ptr<net::channel>>>();
    for (auto& l : links) q->push_back(std::move(l));
    return [q](const session::link_id&) -> std::unique_ptr<net::channel> {
        if (q->empty()) throw network_error("test opener: no more links");
        auto l = std::move(q->front());
        q->pop_front();
        return l;
    };
}

/// The channels of a two-party set-up: the main pair and `extra` worker pairs.
struct wiring {
    std::unique_ptr<net::channel> main_a, main_b;
    link_list links_a, links_b;
};
inline wiring make_wiring(std::size_t extra) {
    wiring w;
    auto [a, b] = net::memory_pair();
    w.main_a = std::move(a);
    w.main_b = std::move(b);
    for (std::size_t k = 0; k < extra; ++k) {
        auto [x, y] = net::memory_pair();
        w.links_a.push_back(std::move(x));
        w.links_b.push_back(std::move(y));
    }
    return w;
}

/// Two ends of a TCP connection over loopback (server end first).
inline std::pair<std::unique_ptr<net::channel>, std::unique_ptr<net::channel>> tcp_pair() {
    net::tcp_listener listener(0, "127.0.0.1");
    std::unique_ptr<net::channel> client;
    std::thread t([&] { client = net::tcp_connect("127.0.0.1", listener.port(), 5s); });
    std::unique_ptr<net::channel> server = listener.accept(5s);
    t.join();
    return {std::move(server), std::move(client)};
}

/// make_wiring's links as TCP connections over loopback (real descriptors).
inline wiring make_tcp_wiring(std::size_t extra) {
    wiring w;
    auto main = tcp_pair();
    w.main_a = std::move(main.first);
    w.main_b = std::move(main.second);
    for (std::size_t k = 0; k < extra; ++k) {
        auto link = tcp_pair();
        w.links_a.push_back(std::move(link.first));
        w.links_b.push_back(std::move(link.second));
    }
    return w;
}

/// Runs alice and bob in two threads, each with a session over w.
inline outcome two_party(wiring w, session_options alice_options, session_options bob_options,
                  const std::function<void(session&)>& alice, const std::function<void(session&)>& bob) {
    outcome out;
    auto side = [](party p, std::unique_ptr<net::channel> ch, link_list links, session_options o,
                   const std::function<void(session&)>& f, std::exception_ptr& err) {
        try {
            session s(p, std::move(ch), o, opener_of(std::move(links)));
            f(s);
        } catch (...) {
            err = std::current_exception();
        }
    };
    std::thread tb(side, party::bob, std::move(w.main_b), std::move(w.links_b), bob_options, std::cref(bob),
                   std::ref(out.bob));
    side(party::alice, std::move(w.main_a), std::move(w.links_a), alice_options, alice, out.alice);
    tb.join();
    return out;
}

inline void rethrow(const outcome& o) {
    if (o.alice && o.bob) FAIL_CHECK("bob failed too: " << message_of(o.bob));
    if (o.alice) std::rethrow_exception(o.alice);
    if (o.bob) std::rethrow_exception(o.bob);
}

/// n values below `bound`, drawn from `rng` (a fixed seed: the test's INFO prints it).
inline std::vector<std::uint32_t> random_values(std::mt19937_64& rng, std::size_t n, std::uint32_t bound) {
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = static_cast<std::uint32_t>(rng() % bound);
    return v;
}

inline session_options with_threads(std::uint32_t threads) {
    session_options o;
    o.threads = threads;
    o.timeout = honest_deadline(10s);
    return o;
}

/// Wraps a channel; once `cut_after` bytes have moved through it (sent plus
/// received), it closes the link and fails like a dropped connection.
class cutting_channel final : public net::channel {
public:
    /// `was_cut` outlives the channel (the session owns and destroys it).
    cutting_channel(std::unique_ptr<net::channel> inner, std::uint64_t cut_after,
                    std::shared_ptr<std::atomic<bool>> was_cut)
        : net::channel("cutting " + inner->name()), inner_(std::move(inner)), cut_after_(cut_after),
          was_cut_(std::move(was_cut)) {
        inner_->set_timeout(2s);
    }
    void close() noexcept override { inner_->close(); }
    void interrupt() noexcept override { inner_->interrupt(); }
    bool peer_on_this_host() const noexcept override { return inner_->peer_on_this_host(); }
    bool waits_suspend() const noexcept override { return inner_->waits_suspend(); }

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        if (cut_) throw network_error("cutting channel: link cut");
        const std::uint64_t before = moved_.load();
        if (before + n > cut_after_) {
            inner_->send(p, static_cast<std::size_t>(cut_after_ - before));
            inner_->flush();
            cut();
        }
        inner_->send(p, n);
        inner_->flush();
        moved_ += n;
    }
    std::size_t read_some(std::byte* p, std::size_t min, std::size_t) override {
        if (cut_) throw network_error("cutting channel: link cut");
        inner_->recv(p, min);
        moved_ += min;
        if (moved_.load() > cut_after_) cut();
        return min;
    }

private:
    [[noreturn]] void cut() {
        cut_ = true;
        *was_cut_ = true;
        inner_->close();
        throw network_error("cutting channel: link cut");
    }
    std::unique_ptr<net::channel> inner_;
    std::uint64_t cut_after_;
    std::atomic<std::uint64_t> moved_{0};
    std::atomic<bool> cut_{false};
    std::shared_ptr<std::atomic<bool>> was_cut_;
};

}  // namespace tandem::test

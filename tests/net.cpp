// Channels: buffering, byte counts, deadlines and closed peers, over the
// in-memory pair and over real loopback TCP.
#include <doctest/doctest.h>

#include <tandem/net/memory.hpp>
#include <tandem/net/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace net_tests {

using namespace tandem;
using namespace std::chrono_literals;

namespace {

/// Sends messages of many sizes (small ones through the buffer, large ones
/// past it) one way and echoes a checksum back the other way.
void exchange(net::channel& a, net::channel& b) {
    const std::uint64_t seed = 7;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::vector<std::size_t> sizes{0, 1, 3, 100, net::channel::buffer_bytes - 1, net::channel::buffer_bytes,
                                   net::channel::buffer_bytes + 1, 3 * net::channel::buffer_bytes + 17, 5};
    std::vector<std::vector<std::uint8_t>> messages;
    for (std::size_t n : sizes) {
        std::vector<std::uint8_t> m(n);
        for (auto& x : m) x = static_cast<std::uint8_t>(rng());
        messages.push_back(std::move(m));
    }
    std::uint64_t expected_sum = 0;
    for (const auto& m : messages) expected_sum = std::accumulate(m.begin(), m.end(), expected_sum);

    std::thread sender([&] {
        for (const auto& m : messages) a.send(m.data(), m.size());
        const auto sum = a.recv_value<std::uint64_t>();  // recv flushes what a buffered
        a.send_value(sum + 1);
        a.flush();
    });
    std::uint64_t sum = 0;
    bool same = true;
    for (const auto& m : messages) {
        std::vector<std::uint8_t> got(m.size());
        b.recv(got.data(), got.size());
        same = same && got == m;
        sum = std::accumulate(got.begin(), got.end(), sum);
    }
    b.send_value(sum);
    const auto back = b.recv_value<std::uint64_t>();
    sender.join();
    CHECK(same);
    CHECK(sum == expected_sum);
    CHECK(back == expected_sum + 1);
    std::uint64_t total = 0;
    for (std::size_t n : sizes) total += n;
    CHECK(a.bytes_sent() == total + 8);
    CHECK(b.bytes_received() == total + 8);
    CHECK(b.bytes_sent() == 8);
    CHECK(a.bytes_received() == 8);
}

std::pair<std::unique_ptr<net::tcp_channel>, std::unique_ptr<net::tcp_channel>> tcp_pair() {
    net::tcp_listener listener(0, "127.0.0.1");
    std::unique_ptr<net::tcp_channel> client;
    std::thread t([&] { client = net::tcp_connect("127.0.0.1", listener.port(), 5s); });
    auto server = listener.accept(5s);
    t.join();
    return {std::move(server), std::move(client)};
}

}  // namespace

TEST_CASE("net.memory_pair_messages") {
    auto [a, b] = net::memory_pair();
    exchange(*a, *b);
}

TEST_CASE("net.tcp_messages") {
    auto [a, b] = tcp_pair();
    CHECK(a->name().find("tcp from 127.0.0.1") == 0);
    CHECK(b->name().find("tcp to 127.0.0.1") == 0);
    exchange(*a, *b);
}

TEST_CASE("net.silent_peer_hits_the_deadline") {
    auto [ma, mb] = net::memory_pair();
    auto [ta, tb] = tcp_pair();
    for (net::channel* ch : {static_cast<net::channel*>(mb.get()), static_cast<net::channel*>(tb.get())}) {
        ch->set_timeout(200ms);
        const auto t0 = net::clock::now();
        std::uint64_t x = 0;
        CHECK_THROWS_WITH_AS(ch->recv(&x, sizeof x), doctest::Contains("no progress within 200 ms"), network_error);
        const auto waited = net::clock::now() - t0;
        CHECK(waited >= 190ms);
        CHECK(waited < 5s);
    }
}

TEST_CASE("net.closed_peer") {
    SUBCASE("memory") {
        auto [a, b] = net::memory_pair();
        a->close();
        std::uint8_t x = 0;
        CHECK_THROWS_WITH_AS(b->recv(&x, 1), doctest::Contains("peer closed the connection"), network_error);
    }
    SUBCASE("tcp, while receiving") {
        auto [a, b] = tcp_pair();
        std::thread closer([&a = a] {
            std::this_thread::sleep_for(50ms);
            a->close();
        });
        std::uint8_t x = 0;
        CHECK_THROWS_WITH_AS(b->recv(&x, 1), doctest::Contains("recv on tcp to 127.0.0.1"), network_error);
        closer.join();
    }
    SUBCASE("tcp, while sending") {
        auto pair = tcp_pair();
        auto& a = pair.first;
        auto& b = pair.second;
        b.reset();
        std::vector<std::uint8_t> big(1 << 20);
        // The first writes may land in kernel buffers; keep writing until the reset arrives.
        CHECK_THROWS_AS(
            [&] {
                for (int i = 0; i < 1000; ++i) a->send(big.data(), big.size());
                a->flush();
            }(),
            network_error);
    }
}

TEST_CASE("net.connect_retries_until_its_deadline") {
    // Pick a free port, release it, and connect before anyone listens.
    std::uint16_t port = 0;
    { port = net::tcp_listener(0, "127.0.0.1").port(); }
    std::unique_ptr<net::tcp_channel> server;
    std::thread late([&] {
        std::this_thread::sleep_for(150ms);
        net::tcp_listener listener(port, "127.0.0.1");
        server = listener.accept(5s);
    });
    auto client = net::tcp_connect("127.0.0.1", port, 5s);
    late.join();
    REQUIRE(server);
    client->send_value(std::uint32_t{42});
    client->flush();
    CHECK(server->recv_value<std::uint32_t>() == 42);

    const auto t0 = net::clock::now();
    CHECK_THROWS_WITH_AS(net::tcp_connect("127.0.0.1", port, 200ms), doctest::Contains("no connection within 200 ms"),
                         network_error);
    CHECK(net::clock::now() - t0 < 3s);
}

TEST_CASE("net.accept_deadline_and_bad_address") {
    net::tcp_listener listener(0, "127.0.0.1");
    CHECK_THROWS_WITH_AS(listener.accept(100ms), doctest::Contains("no peer connected within 100 ms"), network_error);
    CHECK_THROWS_AS(net::tcp_listener(0, "not an address"), usage_error);
}

TEST_CASE("net.unknown_host_is_a_network_error_within_the_deadline") {
    const auto t0 = net::clock::now();
    CHECK_THROWS_AS(net::tcp_connect("no-such-host.invalid", 7766, 2s), network_error);
    CHECK(net::clock::now() - t0 < 10s);
}

}  // namespace net_tests

namespace net_tests {

// Whether the peer shares this host decides a streamed run's automatic
// pipelining (session_options::pipeline_streams): both parties' threads on
// too few cores halve its speed.
TEST_CASE("net.peer_on_this_host") {
    auto [ma, mb] = net::memory_pair();
    CHECK(ma->peer_on_this_host());
    CHECK(mb->peer_on_this_host());
    auto [server, client] = tcp_pair();
    CHECK(server->peer_on_this_host());
    CHECK(client->peer_on_this_host());
    server->close();
    CHECK_FALSE(server->peer_on_this_host());  // no socket left to ask: not known

    using net::detail::same_host;
    CHECK_FALSE(same_host("10.0.0.5", "not an address"));
    CHECK(same_host("10.0.0.5", "127.0.0.1"));
    CHECK(same_host("10.0.0.5", "127.3.2.1"));
    CHECK(same_host("10.0.0.5", "10.0.0.5"));
    CHECK_FALSE(same_host("10.0.0.5", "10.0.0.6"));
    CHECK(same_host("2001:db8::1", "::1"));
    CHECK(same_host("2001:db8::1", "2001:db8::1"));
    CHECK_FALSE(same_host("2001:db8::1", "2001:db8::2"));
    CHECK(same_host("::ffff:10.0.0.5", "10.0.0.5"));  // one end IPv4 mapped
    CHECK(same_host("10.0.0.5", "::ffff:127.0.0.1"));
    CHECK_FALSE(same_host("10.0.0.5", "::ffff:10.0.0.6"));
}

}  // namespace net_tests

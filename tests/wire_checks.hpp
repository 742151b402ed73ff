// What the tests see on the wire: every link of a two-party set-up recorded
// as each end writes it, and checks on those bytes — a sealed link starts with
// the Noise greeting (net/secure_channel.hpp), and a sealed stream carries
// none of the bytes the same run sends in the clear. Tests only.
#pragma once

#include "memory_sessions.hpp"
#include "recording_channel.hpp"

#include <tandem/core.hpp>
#include <tandem/net/secure_channel.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace tandem::test {

using wire_bytes = std::vector<std::uint8_t>;

/// A wiring whose every link end records what it writes: [0] the main link,
/// [k] the k-th link opened after it, for each party.
struct recorded_wiring {
    wiring w;
    std::vector<std::shared_ptr<wire_bytes>> alice, bob;
};

inline recorded_wiring make_recorded_wiring(std::size_t extra) {
    recorded_wiring r;
    r.w = make_wiring(extra);
    const auto wrap = [](std::unique_ptr<net::channel>& end, std::vector<std::shared_ptr<wire_bytes>>& into) {
        into.push_back(std::make_shared<wire_bytes>());
        end = std::make_unique<basic_recording_channel<wire_bytes>>(std::move(end), into.back());
    };
    wrap(r.w.main_a, r.alice);
    wrap(r.w.main_b, r.bob);
    for (std::size_t k = 0; k < extra; ++k) {
        wrap(r.w.links_a[k], r.alice);
        wrap(r.w.links_b[k], r.bob);
    }
    return r;
}

/// Whether a link's bytes start with the sealed links' greeting.
inline bool starts_sealed(const wire_bytes& b) {
    std::uint64_t magic = 0;
    if (b.size() < net::detail::greeting_bytes) return false;
    std::memcpy(&magic, b.data(), sizeof magic);
    return magic == net::detail::noise_magic;
}

/// How many of `probes` windows of `window` bytes, spread evenly over
/// `plain`, occur anywhere in `other`.
inline std::size_t windows_found(const wire_bytes& plain, const wire_bytes& other, std::size_t probes = 64,
                                 std::size_t window = 24) {
    if (plain.size() < window) return 0;
    std::size_t found = 0;
    for (std::size_t k = 0; k < probes; ++k) {
        const std::size_t at = (plain.size() - window) * k / probes;
        const auto first = plain.begin() + static_cast<std::ptrdiff_t>(at);
        const std::boyer_moore_horspool_searcher search(first, first + static_cast<std::ptrdiff_t>(window));
        if (std::search(other.begin(), other.end(), search) != other.end()) ++found;
    }
    return found;
}

/// The workload of the tests that look at every link of a session (sealed
/// with Noise or TLS): a product on the main link, and a parallel region the
/// workers — and with IPP both worlds — share, with Alice's and Bob's rows.
inline auto link_workload_product() {
    return compile([](secure_uint<32> x, secure_uint<32> y) { return x * y + (x ^ y); },
                   input<party::alice, secure_uint<32>>, input<party::bob, secure_uint<32>>);
}
inline auto link_workload_dots() {
    using row = std::array<secure_uint<32>, 8>;
    return compile(
        [](const row& a, const row& b) {
            const auto p = parallel_for<8>([&](std::size_t i) { return a[i] * b[i]; });
            secure_uint<32> sum = 0;
            for (const auto& x : p) sum = sum + x;
            return sum;
        },
        input<party::alice, row>, input<party::bob, row>);
}
inline constexpr std::array<std::uint32_t, 8> link_workload_alice_row{1, 2, 3, 4, 5, 6, 7, 8};
inline constexpr std::array<std::uint32_t, 8> link_workload_bob_row{9, 10, 11, 12, 13, 14, 15, 16};

}  // namespace tandem::test

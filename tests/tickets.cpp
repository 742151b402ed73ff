// Session resumption (session/tickets.hpp): a returning peer's set-up skips
// the base OTs, its runs equal plaintext, and every way a ticket can be
// missing — used, cleared, expired, evicted, another configuration's —
// falls back to a full set-up that gives a new ticket.
#include "exception_text.hpp"
#include "memory_sessions.hpp"

#include <tandem/session.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

using namespace tandem;
using namespace tandem::test;

namespace {

const auto& millionaires() {
    static const auto c = compile([](secure_int<32> a, secure_int<32> b) { return a > b; },
                                       input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    return c;
}

/// What one session of a pair saw.
struct seen {
    bool resumed_alice = false, resumed_bob = false;
    std::uint64_t setup_bytes = 0;  // both parties' set-up bytes, sent
};

/// One session between a server (with `store`) and a client (with `slot`);
/// `server` says which party serves. Runs `runs` millionaires' comparisons
/// with random inputs from rng, each checked on both sides against plain C++.
seen one_session(party server, const std::shared_ptr<ticket_store>& store, const std::shared_ptr<session_ticket>& slot,
                 std::uint32_t threads, bool ipp, std::mt19937_64& rng, int runs = 2,
                 garbling_hash hash = garbling_hash::rekeyed) {
    session_options base = with_threads(threads);
    base.ipp = ipp;
    base.ipp_min_ands = 0;
    base.hash = hash;
    session_options with_store = base, with_slot = base;
    with_store.ticket_store = store;
    with_slot.ticket = slot;
    const session_options& alice_options = server == party::alice ? with_store : with_slot;
    const session_options& bob_options = server == party::alice ? with_slot : with_store;
    std::vector<std::int32_t> a(runs), b(runs);
    for (int r = 0; r < runs; ++r) {
        a[r] = static_cast<std::int32_t>(rng());
        b[r] = static_cast<std::int32_t>(rng());
    }
    seen out;
    std::uint64_t bytes_a = 0, bytes_b = 0;
    const auto party_body = [&](party me, bool& resumed, std::uint64_t& bytes) {
        return [&, me](session& s) {
            resumed = s.resumed();
            bytes = s.channel().bytes_sent();
            for (int r = 0; r < runs; ++r) {
                const std::int32_t mine = me == party::alice ? a[r] : b[r];
                CHECK(s.run(millionaires(), mine) == (a[r] > b[r]));
            }
        };
    };
    rethrow(two_party(make_wiring(threads - 1 + (ipp ? threads : 0)), alice_options, bob_options,
                      party_body(party::alice, out.resumed_alice, bytes_a),
                      party_body(party::bob, out.resumed_bob, bytes_b)));
    out.setup_bytes = bytes_a + bytes_b;
    CHECK(out.resumed_alice == out.resumed_bob);
    return out;
}

}  // namespace

TEST_CASE("tickets.resumed_sessions_skip_the_base_ots_and_equal_plaintext") {
    const std::uint64_t seed = 0x7469636b657431;
    std::mt19937_64 rng(seed);
    for (const party server : {party::alice, party::bob})
        for (const std::uint32_t threads : {1u, 2u})
            for (const bool ipp : {false, true}) {
                INFO("server " << to_string(server) << ", threads " << threads << ", ipp " << ipp << ", seed "
                               << seed);
                auto store = std::make_shared<ticket_store>();
                auto slot = std::make_shared<session_ticket>();
                const seen first = one_session(server, store, slot, threads, ipp, rng);
                CHECK_FALSE(first.resumed_alice);
                CHECK_FALSE(slot->empty());
                CHECK(store->size() == 1);
                const seen second = one_session(server, store, slot, threads, ipp, rng);
                CHECK(second.resumed_alice);
                CHECK(store->size() == 1);  // the ticket presented is gone, the next one is held
                CHECK_FALSE(slot->empty());
                // No base OTs: the receiver's 128 points (32 bytes each, per
                // OT direction; ot/base_ot.hpp) are not sent, and what is
                // left is the handshake, the ticket's name and the nonces.
                INFO("set-up bytes: " << first.setup_bytes << " in full, " << second.setup_bytes << " resumed");
                CHECK(second.setup_bytes + (ipp ? 2 : 1) * 128 * 32 <= first.setup_bytes);
                CHECK(second.setup_bytes < 512);
                const seen third = one_session(server, store, slot, threads, ipp, rng);
                CHECK(third.resumed_alice);
            }
}

TEST_CASE("tickets.a_missing_ticket_sets_up_in_full_and_gives_a_new_one") {
    const std::uint64_t seed = 0x7469636b657432;
    std::mt19937_64 rng(seed);
    INFO("seed " << seed);
    auto slot = std::make_shared<session_ticket>();

    SUBCASE("the store forgot it") {
        auto store = std::make_shared<ticket_store>();
        one_session(party::alice, store, slot, 1, false, rng);
        store->clear();
        CHECK_FALSE(one_session(party::alice, store, slot, 1, false, rng).resumed_alice);
        CHECK(one_session(party::alice, store, slot, 1, false, rng).resumed_alice);
    }
    SUBCASE("another server's store") {
        auto store = std::make_shared<ticket_store>();
        auto other = std::make_shared<ticket_store>();
        one_session(party::alice, store, slot, 1, false, rng);
        CHECK_FALSE(one_session(party::alice, other, slot, 1, false, rng).resumed_alice);
        CHECK(store->size() == 1);  // never presented there: it stays until it expires or is evicted
    }
    SUBCASE("the client forgot it") {
        auto store = std::make_shared<ticket_store>();
        one_session(party::alice, store, slot, 1, false, rng);
        slot->clear();
        CHECK(slot->empty());
        CHECK_FALSE(one_session(party::alice, store, slot, 1, false, rng).resumed_alice);
    }
    SUBCASE("expired") {
        auto store = std::make_shared<ticket_store>(16, std::chrono::seconds(1));
        one_session(party::alice, store, slot, 1, false, rng);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        CHECK_FALSE(one_session(party::alice, store, slot, 1, false, rng).resumed_alice);
    }
    SUBCASE("evicted by a newer one") {
        auto store = std::make_shared<ticket_store>(1);
        auto second_client = std::make_shared<session_ticket>();
        one_session(party::alice, store, slot, 1, false, rng);
        one_session(party::alice, store, second_client, 1, false, rng);
        CHECK(store->size() == 1);
        CHECK_FALSE(one_session(party::alice, store, slot, 1, false, rng).resumed_alice);
        CHECK_FALSE(one_session(party::alice, store, second_client, 1, false, rng).resumed_alice);  // evicted in turn
    }
    SUBCASE("another configuration's (the garbling hash changed)") {
        auto store = std::make_shared<ticket_store>();
        one_session(party::alice, store, slot, 1, false, rng);
        CHECK_FALSE(one_session(party::alice, store, slot, 1, false, rng, 1, garbling_hash::fixed_key).resumed_alice);
        CHECK(one_session(party::alice, store, slot, 1, false, rng, 1, garbling_hash::fixed_key).resumed_alice);
    }
    SUBCASE("a server that keeps no store") {
        auto store = std::make_shared<ticket_store>();
        one_session(party::alice, store, slot, 1, false, rng);
        CHECK_FALSE(one_session(party::alice, nullptr, slot, 1, false, rng).resumed_alice);
        CHECK_FALSE(slot->empty());  // not presented: kept for the server that gave it
        CHECK(one_session(party::alice, store, slot, 1, false, rng).resumed_alice);
    }
}

TEST_CASE("tickets.many_clients_share_one_store_over_tcp") {
    // Four clients at once against one store, twice each: every second
    // session resumes, and every run equals plaintext (also under TSan).
    constexpr int clients = 4;
    auto store = std::make_shared<ticket_store>();
    std::array<std::shared_ptr<session_ticket>, clients> slots;
    for (auto& s : slots) s = std::make_shared<session_ticket>();
    for (int round = 0; round < 2; ++round) {
        std::array<std::thread, clients> threads;
        std::array<int, clients> resumed{};
        std::array<std::exception_ptr, clients> failed{};
        for (int k = 0; k < clients; ++k)
            threads[k] = std::thread([&, k] {
                try {
                    const std::int32_t a = 1000 + k, b = 1002;
                    wiring w = make_tcp_wiring(0);
                    session_options server = with_threads(1), client = with_threads(1);
                    server.ticket_store = store;
                    client.ticket = slots[k];
                    bool got_bob = false;
                    std::thread tb([&] {
                        session s(party::bob, std::move(w.main_b), client);
                        got_bob = s.run(millionaires(), b);
                    });
                    session s(party::alice, std::move(w.main_a), server);
                    const bool got = s.run(millionaires(), a);
                    tb.join();
                    resumed[k] = s.resumed();
                    if (got != (a > b) || got_bob != (a > b))
                        throw std::runtime_error("a wrong result");
                } catch (...) {
                    failed[k] = std::current_exception();
                }
            });
        for (auto& t : threads) t.join();
        for (int k = 0; k < clients; ++k) {
            INFO("round " << round << ", client " << k);
            if (failed[k]) FAIL(message_of(failed[k]));
            CHECK(resumed[k] == round);
        }
        CHECK(store->size() == clients);
    }
}

TEST_CASE("tickets.refused_where_they_do_not_apply") {
    auto [a, b] = net::memory_pair();
    session_options both;
    both.ticket_store = std::make_shared<ticket_store>();
    both.ticket = std::make_shared<session_ticket>();
    CHECK_THROWS_WITH_AS(session(party::alice, std::move(a), both),
                         doctest::Contains("ticket_store on the party that serves"), usage_error);
    session_options malicious;
    malicious.security = security::malicious;
    malicious.allow_plain_links = true;
    malicious.ticket_store = std::make_shared<ticket_store>();
    CHECK_THROWS_WITH_AS(session(party::alice, std::move(b), malicious), doctest::Contains("do not resume"),
                         usage_error);
    CHECK_THROWS_AS(ticket_store(0), usage_error);
}

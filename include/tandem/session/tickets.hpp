// tandem/session/tickets.hpp — session resumption: a returning peer skips
// the base OTs, nearly all of a session's set-up (docs/DESIGN.md §7.11).
//
//   // the server: one store for all its sessions
//   session_options served;
//   served.ticket_store = std::make_shared<tandem::ticket_store>();
//
//   // a client: one ticket slot, kept between its sessions to that server
//   session_options mine;
//   mine.ticket = std::make_shared<tandem::session_ticket>();
//   { session s = session::connect(party::bob, host, port, mine); ... }  // full set-up; a ticket arrives
//   { session s = session::connect(party::bob, host, port, mine); ... }  // s.resumed(): no base OTs
//
// At the end of a set-up, a party with a store gives a peer with a slot a
// ticket: a random 16-byte name, sent inside the session's main link, and
// on both sides the session's OT set-up re-keyed under it — each column key
// k of IKNP becomes AES_k(H(name)), so what the ticket holds was never used
// by any session. The peer's next session presents the name; a store that
// holds it gives it up (a ticket is used once), both parties draw a fresh
// nonce, and each column key is re-keyed once more under H(name, nonces):
// the new session continues the old one's correlated OT — the same Δ, as
// every run of one session garbles under one Δ — on keys no session has
// used. A name the store does not hold (expired, evicted, used, another
// server's, another configuration's) makes a full set-up, and the client's
// slot then receives a new ticket. Semi-honest sessions only (the
// authenticated protocol's set-up is its own).
#pragma once

#include <tandem/crypto/wipe.hpp>
#include <tandem/error.hpp>
#include <tandem/party.hpp>
#include <tandem/session/options.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace tandem {

namespace detail {

struct session_state;

/// 16 bytes: a ticket's name (a bearer secret), a key, Δ.
using bytes16 = std::array<std::uint8_t, 16>;

/// One party's OT set-up as a ticket keeps it (session/yao.hpp makes and
/// resumes it): Δ and the column keys, re-keyed under the ticket's name.
struct resumable_ot {
    party me = party::alice;  ///< whose side this is
    garbling_hash hash = garbling_hash::rekeyed;
    bool ipp = false;
    bytes16 delta{};                                               ///< with sender keys: this party's Δ
    std::optional<std::array<bytes16, 128>> sender;                ///< k_j^{Δ_j}: this party sends COTs
    std::optional<std::array<std::array<bytes16, 2>, 128>> receiver;  ///< (k_j^0, k_j^1): it receives them

    resumable_ot() = default;
    resumable_ot(const resumable_ot&) = delete;
    resumable_ot& operator=(const resumable_ot&) = delete;
    ~resumable_ot() {
        wipe(delta.data(), delta.size());
        if (sender) wipe(sender->data(), sizeof *sender);
        if (receiver) wipe(receiver->data(), sizeof *receiver);
    }
};

}  // namespace detail

/// A client's ticket slot (session_options::ticket): empty, or the ticket a
/// server gave its last session, which the next session with these options
/// presents — and, whether the server took it or not, replaces with the
/// next one it is given. Thread-safe: sessions made at once with one slot
/// each find it full or empty, never the same ticket twice.
class session_ticket {
public:
    session_ticket() = default;
    session_ticket(const session_ticket&) = delete;
    session_ticket& operator=(const session_ticket&) = delete;

    /// Whether the slot holds a ticket.
    bool empty() const {
        std::lock_guard lock(m_);
        return !held_;
    }
    /// Forgets the ticket (wiping its keys): the next session sets up in full.
    void clear() noexcept {
        std::lock_guard lock(m_);
        held_.reset();
    }

private:
    friend struct detail::session_state;
    struct held {
        detail::bytes16 name;
        std::unique_ptr<detail::resumable_ot> ot;
    };
    std::optional<held> take() {
        std::lock_guard lock(m_);
        std::optional<held> t = std::move(held_);
        held_.reset();
        return t;
    }
    void hold(const detail::bytes16& name, std::unique_ptr<detail::resumable_ot> ot) {
        std::lock_guard lock(m_);
        held_ = held{name, std::move(ot)};
    }

    mutable std::mutex m_;
    std::optional<held> held_;
};

/// A server's tickets (session_options::ticket_store): the ones it gave and
/// that were not presented yet, each for `lifetime` at most; when
/// `capacity` are held the oldest goes. Each costs 2–6 KiB (the keys of one
/// or, with IPP, both OT directions). Share one store between the sessions
/// of a server (thread-safe); a ticket is redeemed by the store that gave it.
class ticket_store {
public:
    explicit ticket_store(std::size_t capacity = 4096, std::chrono::seconds lifetime = std::chrono::hours(24))
        : capacity_(capacity), lifetime_(lifetime) {
        if (capacity == 0) throw usage_error("ticket_store: capacity must be at least 1");
        if (lifetime.count() <= 0) throw usage_error("ticket_store: lifetime must be positive");
    }
    ticket_store(const ticket_store&) = delete;
    ticket_store& operator=(const ticket_store&) = delete;

    /// Tickets held now (expired ones go when a ticket is given or presented).
    std::size_t size() const {
        std::lock_guard lock(m_);
        return held_.size();
    }
    /// Forgets every ticket: their peers set up in full next time.
    void clear() noexcept {
        std::lock_guard lock(m_);
        held_.clear();
        order_.clear();
    }

private:
    friend struct detail::session_state;
    using clock = std::chrono::steady_clock;
    // Entries are found by a hash of the name (session/setup.hpp), so that
    // how long a lookup takes says nothing about the names held.
    using key = detail::bytes16;
    struct entry {
        std::unique_ptr<detail::resumable_ot> ot;
        clock::time_point expires;
    };

    void keep(const key& k, std::unique_ptr<detail::resumable_ot> ot) {
        const clock::time_point now = clock::now();
        std::lock_guard lock(m_);
        drop_expired(now);
        while (held_.size() >= capacity_ && !order_.empty()) {  // the oldest goes
            held_.erase(order_.front().second);
            order_.pop_front();
        }
        held_[k] = entry{std::move(ot), now + lifetime_};
        order_.emplace_back(now + lifetime_, k);
    }
    /// The ticket's set-up, given up (used once), or null.
    std::unique_ptr<detail::resumable_ot> redeem(const key& k) {
        const clock::time_point now = clock::now();
        std::lock_guard lock(m_);
        drop_expired(now);
        const auto it = held_.find(k);
        if (it == held_.end()) return nullptr;
        std::unique_ptr<detail::resumable_ot> ot = std::move(it->second.ot);
        held_.erase(it);  // its entry in order_ stays until it is the oldest
        return ot;
    }
    void drop_expired(clock::time_point now) {
        while (!order_.empty() && order_.front().first <= now) {
            const auto it = held_.find(order_.front().second);
            if (it != held_.end() && it->second.expires <= now) held_.erase(it);
            order_.pop_front();
        }
        // Names redeemed early leave entries behind in order_; bound them.
        if (order_.size() > 2 * capacity_ + 64) {
            std::deque<std::pair<clock::time_point, key>> live;
            for (const auto& o : order_)
                if (held_.count(o.second) != 0) live.push_back(o);
            order_ = std::move(live);
        }
    }

    const std::size_t capacity_;
    const std::chrono::seconds lifetime_;
    mutable std::mutex m_;
    std::map<key, entry> held_;
    std::deque<std::pair<clock::time_point, key>> order_;  // by expiry = by age
};

}  // namespace tandem


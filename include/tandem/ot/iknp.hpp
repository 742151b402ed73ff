// tandem/ot/iknp.hpp — correlated OT extension: any number of OTs from 128
// base OTs and symmetric crypto. Semi-honest security.
//
// Ishai, Kilian, Nissim, Petrank, "Extending Oblivious Transfers Efficiently",
// CRYPTO 2003, in the correlated ("Δ-OT") form of Asharov, Lindell, Schneider,
// Zohner, "More Efficient Oblivious Transfer and Extensions for Faster Secure
// Computation", CCS 2013: the sender fixes Δ (for Yao, the garbler's free-XOR
// offset) and gets q_i; the receiver, with choice bit r_i, gets
// t_i = q_i ⊕ r_i·Δ. The sender's pair is thus (q_i, q_i ⊕ Δ) — directly the
// two labels of an input wire — and no ciphertexts are sent back.
//
// Roles are reversed in the base OTs (ot/base_ot.hpp): the COT receiver sends
// seed pairs (k_j^0, k_j^1), j < 128, and the COT sender picks k_j^{Δ_j}. For
// m OTs, with G_k the AES-CTR stream under key k (one counter per 128 OTs,
// shared by all columns and never reused across extend calls):
//   receiver: t^j = G(k_j^0), sends u^j = t^j ⊕ G(k_j^1) ⊕ r          (m bits each)
//   sender:   q^j = G(k_j^{Δ_j}) ⊕ Δ_j·u^j = t^j ⊕ Δ_j·r
// and transposing the 128 × m matrices (ot/transpose.hpp) gives rows with
// q_i = t_i ⊕ r_i·Δ. Work goes in chunks of 8192 OTs (a 128 KiB matrix, in
// L2): the receiver streams the columns of a chunk, the sender expands and
// transposes them as they arrive. m is padded to a multiple of 128 internally;
// only the ⌈m/8⌉ bytes of each column that hold real OTs are sent.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/isa.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/detail/secret.hpp>
#include <tandem/error.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/ot/base_ot.hpp>
#include <tandem/ot/transpose.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#if TANDEM_X86
#include <emmintrin.h>
#endif

TANDEM_CRYPTO_BEGIN

namespace tandem::ot {

namespace detail {

/// Blocks per column in a chunk: 64 blocks = 8192 OTs.
inline constexpr std::size_t chunk_blocks = 64;
inline constexpr std::size_t chunk_ots = 128 * chunk_blocks;
/// Rows of the chunk matrix are one cache line longer than a column, so the
/// transpose's 128 strided reads do not all fall into the same L1 sets.
inline constexpr std::size_t row_stride = chunk_blocks + 4;

/// The per-chunk buffers both sides need, allocated on first use.
struct iknp_buffers {
    std::vector<block> matrix;  // 128 rows of row_stride blocks, then 128 blocks of scratch for a partial tile
    std::vector<block> column;  // one column (chunk_blocks)
    std::vector<block> bits;    // the receiver's choice bits of the chunk (chunk_blocks)
    std::vector<block> counters;  // the chunk's counter blocks (chunk_blocks)

    block* row(std::size_t j) noexcept { return matrix.data() + j * row_stride; }
    void ensure() {
        if (!matrix.empty()) return;
        matrix.resize(128 * row_stride + 128);
        column.resize(chunk_blocks);
        bits.resize(chunk_blocks);
        counters.resize(chunk_blocks);
    }
    void wipe() noexcept {
        tandem::detail::wipe_all(matrix);
        tandem::detail::wipe_all(column);
        tandem::detail::wipe_all(bits);
    }
    /// Wipes and frees them (ensure() makes them again).
    void release() noexcept {
        wipe();
        std::vector<block>().swap(matrix);
        std::vector<block>().swap(column);
        std::vector<block>().swap(bits);
        std::vector<block>().swap(counters);
    }
};

/// The counter blocks c, c + 1, …, c + n − 1 of a chunk, written once and
/// encrypted under every column's key (aes_key::encrypt out of place).
inline void counter_blocks(std::uint64_t counter, block* out, std::size_t n) noexcept {
    for (std::size_t k = 0; k < n; ++k) out[k] = block(0, counter + k);
}

/// The input that re-keys a column key for a resumed session
/// (session/tickets.hpp): k' = AES_k(rekey_input(n)). Its top bit is set, so
/// it is never a counter block of the key's own stream (those have a zero
/// high half), and the re-keyed keys are independent of every block the
/// session drew from k.
inline block rekey_input(block n) noexcept { return n | block(std::uint64_t{1} << 63, 0); }

/// Counter blocks c, c+1, ... then AES under key: a slice of the key's stream.
inline void expand(const aes_key& key, std::uint64_t counter, block* out, std::size_t n) noexcept {
    counter_blocks(counter, out, n);
    key.encrypt(out, n);
}

/// Transposes the first nb tiles of a chunk matrix (128 rows of row_stride
/// blocks) into out (n ≤ 128·nb rows of output); a partial last tile goes
/// through `scratch` (128 blocks).
inline void transpose_tiles(const block* matrix, block* scratch, std::size_t nb, block* out, std::size_t n) noexcept {
    for (std::size_t t = 0; t < nb; ++t) {
        const std::size_t have = std::min<std::size_t>(128, n - 128 * t);
        block* dst = have == 128 ? out + 128 * t : scratch;
        transpose128_strided(matrix + t, row_stride * sizeof(block), dst);
        if (have < 128) std::copy_n(scratch, have, out + 128 * t);
    }
}

/// Transposes the nb tiles of the chunk matrix into out (n ≤ 128·nb rows of output).
inline void transpose_chunk(iknp_buffers& buf, std::size_t nb, block* out, std::size_t n) noexcept {
    transpose_tiles(buf.matrix.data(), buf.matrix.data() + 128 * row_stride, nb, out, n);
}

/// Bit j of x (little-endian), as 0 or 1.
inline unsigned bit_of(block x, std::size_t j) noexcept {
    return static_cast<unsigned>(((j < 64 ? x.low() : x.high()) >> (j % 64)) & 1);
}

/// Packs n choice bytes (0/1) into bits, bit i = c[i], zero-padded to nb blocks.
inline void pack_choices(const std::uint8_t* c, std::size_t n, block* bits, std::size_t nb) noexcept {
    auto* out = reinterpret_cast<unsigned char*>(bits);
    std::memset(out, 0, nb * sizeof(block));
    std::size_t i = 0;
#if TANDEM_X86
    for (; i + 16 <= n; i += 16) {  // bit 0 of each byte up to bit 7, then one movemask
        const __m128i v = _mm_slli_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c + i)), 7);
        const auto m = static_cast<std::uint16_t>(_mm_movemask_epi8(v));
        std::memcpy(out + i / 8, &m, 2);
    }
#else
    for (; i + 8 <= n; i += 8) {  // eight 0/1 bytes: one multiply moves byte k's bit to bit 56 + k, no carries
        std::uint64_t v;
        std::memcpy(&v, c + i, 8);
        out[i / 8] = static_cast<unsigned char>((v * 0x0102040810204080ull) >> 56);
    }
#endif
    for (; i < n; ++i) out[i / 8] = static_cast<unsigned char>(out[i / 8] | (c[i] << (i % 8)));
}

/// The packer of a receiver's extend(): checks the choices (one byte each,
/// 0 or 1) up front, so the peer is never left mid-stream, and returns what
/// puts those of OTs [done, done + n) into nb blocks of bits.
inline auto unpacked_choices(const char* who, std::span<const std::uint8_t> choices, std::size_t outputs) {
    if (choices.size() != outputs)
        throw usage_error(std::string(who) + ": " + std::to_string(choices.size()) + " choices for " +
                          std::to_string(outputs) + " outputs");
    unsigned char bad = 0;
    for (std::uint8_t c : choices) bad = static_cast<unsigned char>(bad | (c & 0xFE));
    // The choices are secret; whether all are 0 or 1 is public (detail/secret.hpp).
    if (tandem::detail::declassified(bad) != 0) throw usage_error(std::string(who) + ": choices must be 0 or 1");
    return [choices](std::size_t done, std::size_t n, block* bits, std::size_t nb) {
        pack_choices(choices.data() + done, n, bits, nb);
    };
}

/// The same for packed choices (bit i % 8 of byte i / 8 is choice i).
inline auto packed_choices(const char* who, std::span<const std::uint8_t> choice_bits, std::size_t outputs) {
    if (choice_bits.size() != (outputs + 7) / 8)
        throw usage_error(std::string(who) + ": " + std::to_string(choice_bits.size()) +
                          " bytes of choice bits for " + std::to_string(outputs) + " outputs");
    return [choice_bits](std::size_t done, std::size_t n, block* bits, std::size_t nb) {
        std::fill_n(bits, nb, block());
        std::memcpy(static_cast<void*>(bits), choice_bits.data() + done / 8, (n + 7) / 8);  // done: a multiple of 8
    };
}

}  // namespace detail

/// The sender's side of correlated OT under a fixed correlation Δ (the
/// garbler's free-XOR offset): `extend(ch, q)` gives q.size() new COTs q_i,
/// the receiver learning t_i = q_i ⊕ r_i·Δ for its choice bits r_i, in the
/// same order on both sides. What the session and the engine need of an OT
/// extension; cot_sender (IKNP) models it, and so must a replacement such as
/// SoftSpoken OT.
template <class S>
concept correlated_ot_sender = requires(S& s, const S& cs, net::channel& ch, std::span<block> q) {
    { cs.delta() } -> std::same_as<block>;
    s.extend(ch, q);
};

/// The receiver's side: `extend(ch, r, t)` with one byte (0 or 1) per choice,
/// `extend_packed(ch, r, t)` with eight choices per byte (bit i % 8 of byte
/// i / 8); t_i = q_i ⊕ r_i·Δ. Both flush the channel before returning.
template <class R>
concept correlated_ot_receiver =
    requires(R& r, net::channel& ch, std::span<const std::uint8_t> choices, std::span<block> t) {
        r.extend(ch, choices, t);
        r.extend_packed(ch, choices, t);
    };

/// The COT sender (the garbler): fixes Δ, learns q_i per OT.
class cot_sender {
public:
    /// Runs the 128 base OTs (as their receiver, choosing the bits of delta).
    /// The peer constructs a cot_receiver on the same channel at the same time.
    /// `rng` feeds the base OTs (nullptr: libsodium's generator; see base_ot_send).
    cot_sender(net::channel& ch, block delta, prg* rng = nullptr) : delta_(delta) {
        tandem::detail::require_aes_instructions();
        // Whether Δ is zero is public (detail/secret.hpp): it never is in a valid run.
        if (tandem::detail::declassified(delta == block())) throw usage_error("ot::cot_sender: delta must not be zero");
        std::array<std::uint8_t, 128> choices;
        std::array<block, 128> seeds;
        for (std::size_t j = 0; j < 128; ++j) choices[j] = static_cast<std::uint8_t>(detail::bit_of(delta, j));
        base_ot_receive(ch, choices, seeds, rng);
        take_keys(seeds);
        tandem::detail::wipe(choices.data(), sizeof choices);
        tandem::detail::wipe(seeds.data(), sizeof seeds);
    }
    /// A sender resumed without base OTs (session/tickets.hpp): Δ and the
    /// column keys k_j^{Δ_j} a ticket kept, re-keyed by the caller; the
    /// receiver resumes from the same ticket's key pairs.
    cot_sender(block delta, std::span<const block, 128> keys) : delta_(delta) {
        tandem::detail::require_aes_instructions();
        if (tandem::detail::declassified(delta == block())) throw usage_error("ot::cot_sender: delta must not be zero");
        take_keys(keys);
    }
    cot_sender(const cot_sender&) = delete;
    cot_sender& operator=(const cot_sender&) = delete;
    cot_sender(cot_sender&&) noexcept = default;  // the moved-from object keeps nothing but Δ, wiped on destruction
    cot_sender& operator=(cot_sender&&) = delete;
    ~cot_sender() {
        tandem::detail::wipe(&delta_, sizeof delta_);
        tandem::detail::wipe_all(keys_);
        buf_.wipe();
    }

    block delta() const noexcept { return delta_; }

    /// The column keys re-keyed by n: k'_j = AES_{k_j}(rekey_input(n)) — a
    /// later sender's (session/tickets.hpp), matching the receiver's
    /// rekeyed(n) at the same n; this sender's own streams are untouched.
    std::array<block, 128> rekeyed(block n) const noexcept {
        std::array<block, 128> out;
        const block x = detail::rekey_input(n);
        for (std::size_t j = 0; j < 128; ++j) out[j] = keys_[j].encrypt(x);
        tandem::detail::mark_secret(out.data(), sizeof out);
        return out;
    }

    /// Frees the 140 KiB of chunk buffers until the next extend (an idle
    /// session's memory, session::trim).
    void trim() noexcept { buf_.release(); }

    /// q.size() new COTs: q[i] such that the receiver's t_i = q[i] ⊕ r_i·Δ.
    /// The receiver calls extend with the same number of choices.
    void extend(net::channel& ch, std::span<block> q) {
        const std::size_t m = q.size();
        const auto peer_m = ch.recv_value<std::uint64_t>();
        if (peer_m != m)
            throw protocol_error("COT extension: the receiver asks for " + std::to_string(peer_m) +
                                 " OTs, the sender for " + std::to_string(m) + " (the parties run different programs?)");
        buf_.ensure();
        for (std::size_t done = 0; done < m; done += detail::chunk_ots) {
            const std::size_t n = std::min(m - done, detail::chunk_ots);
            const std::size_t nb = (n + 127) / 128;
            block* u = buf_.column.data();
            const std::size_t column_bytes = (n + 7) / 8;  // the padding of the last block is not sent
            u[nb - 1] = block();
            detail::counter_blocks(counter_, buf_.counters.data(), nb);
            for (std::size_t j = 0; j < 128; ++j) {
                block* row = buf_.row(j);
                keys_[j].encrypt(buf_.counters.data(), row, nb);
                ch.recv(u, column_bytes);
                const block mask = mask_of(detail::bit_of(delta_, j) != 0);  // no branch on Δ
                for (std::size_t k = 0; k < nb; ++k) row[k] ^= u[k] & mask;
            }
            counter_ += nb;
            detail::transpose_chunk(buf_, nb, q.data() + done, n);
        }
    }

private:
    void take_keys(std::span<const block, 128> keys) {
        keys_.reserve(128);
        for (const block& k : keys) keys_.emplace_back(k);
        tandem::detail::mark_secret(keys_.data(), keys_.size() * sizeof(aes_key));
    }

    block delta_;
    std::vector<aes_key> keys_;  // column PRGs, keyed k_j^{Δ_j}
    std::uint64_t counter_ = 0;  // next AES-CTR block, common to all columns
    detail::iknp_buffers buf_;
};

/// The COT receiver (the evaluator): chooses r_i, learns t_i = q_i ⊕ r_i·Δ.
class cot_receiver {
public:
    /// Runs the 128 base OTs (as their sender). The peer constructs a cot_sender.
    explicit cot_receiver(net::channel& ch, prg* rng = nullptr) {
        tandem::detail::require_aes_instructions();
        std::array<std::array<block, 2>, 128> seeds;
        base_ot_send(ch, seeds, rng);
        take_keys(seeds);
        tandem::detail::wipe(seeds.data(), sizeof seeds);
    }
    /// A receiver resumed without base OTs from the key pairs (k_j^0, k_j^1)
    /// a ticket kept, re-keyed by the caller (see cot_sender's).
    explicit cot_receiver(std::span<const std::array<block, 2>, 128> keys) {
        tandem::detail::require_aes_instructions();
        take_keys(keys);
    }
    cot_receiver(const cot_receiver&) = delete;
    cot_receiver& operator=(const cot_receiver&) = delete;
    cot_receiver(cot_receiver&&) noexcept = default;
    cot_receiver& operator=(cot_receiver&&) = delete;
    ~cot_receiver() {
        tandem::detail::wipe_all(keys0_);
        tandem::detail::wipe_all(keys1_);
        buf_.wipe();
    }

    /// The key pairs re-keyed by n (see cot_sender::rekeyed).
    std::array<std::array<block, 2>, 128> rekeyed(block n) const noexcept {
        std::array<std::array<block, 2>, 128> out;
        const block x = detail::rekey_input(n);
        for (std::size_t j = 0; j < 128; ++j) out[j] = {keys0_[j].encrypt(x), keys1_[j].encrypt(x)};
        tandem::detail::mark_secret(out.data(), sizeof out);
        return out;
    }

    /// Frees the chunk buffers until the next extend (see cot_sender::trim).
    void trim() noexcept { buf_.release(); }

    /// choices.size() new COTs with choice bits choices[i] ∈ {0, 1}; t.size()
    /// must equal choices.size(). Flushes the channel before returning.
    void extend(net::channel& ch, std::span<const std::uint8_t> choices, std::span<block> t) {
        run(ch, t, detail::unpacked_choices("ot::cot_receiver::extend", choices, t.size()));
    }

    /// The same with packed choice bits: bit i (bit i%8 of byte i/8) is r_i;
    /// choice_bits.size() must be (t.size() + 7) / 8.
    void extend_packed(net::channel& ch, std::span<const std::uint8_t> choice_bits, std::span<block> t) {
        run(ch, t, detail::packed_choices("ot::cot_receiver::extend_packed", choice_bits, t.size()));
    }

private:
    template <class Pack>
    void run(net::channel& ch, std::span<block> t, Pack pack) {
        const std::size_t m = t.size();
        ch.send_value<std::uint64_t>(m);
        buf_.ensure();
        for (std::size_t done = 0; done < m; done += detail::chunk_ots) {
            const std::size_t n = std::min(m - done, detail::chunk_ots);
            const std::size_t nb = (n + 127) / 128;
            block* r = buf_.bits.data();
            block* u = buf_.column.data();
            pack(done, n, r, nb);
            const std::size_t column_bytes = (n + 7) / 8;  // only the rows of real OTs
            detail::counter_blocks(counter_, buf_.counters.data(), nb);
            for (std::size_t j = 0; j < 128; ++j) {
                block* row = buf_.row(j);
                keys0_[j].encrypt(buf_.counters.data(), row, nb);
                keys1_[j].encrypt(buf_.counters.data(), u, nb);
                for (std::size_t k = 0; k < nb; ++k) u[k] = u[k] ^ row[k] ^ r[k];
                ch.send(u, column_bytes);
            }
            counter_ += nb;
            detail::transpose_chunk(buf_, nb, t.data() + done, n);
        }
        ch.flush();
    }

    void take_keys(std::span<const std::array<block, 2>, 128> keys) {
        keys0_.reserve(128);
        keys1_.reserve(128);
        for (const auto& k : keys) {
            keys0_.emplace_back(k[0]);
            keys1_.emplace_back(k[1]);
        }
        tandem::detail::mark_secret(keys0_.data(), keys0_.size() * sizeof(aes_key));
        tandem::detail::mark_secret(keys1_.data(), keys1_.size() * sizeof(aes_key));
    }

    std::vector<aes_key> keys0_, keys1_;  // column PRGs, keyed k_j^0 and k_j^1
    std::uint64_t counter_ = 0;
    detail::iknp_buffers buf_;
};

static_assert(correlated_ot_sender<cot_sender>);
static_assert(correlated_ot_receiver<cot_receiver>);

}  // namespace tandem::ot

TANDEM_CRYPTO_END

// tools/tandem-run/builtins.hpp — the functions tandem-run offers by name,
// from tandem's standard library (include/tandem/lib/).
//
// Every built-in takes and returns whole numbers in the convention of
// Bristol files and tandem/bits.hpp: bit j of a value is bit j of the number,
// and a hex string is one big-endian number. So AES's key 0x2b7e15…3c is the
// FIPS-197 byte string 2b 7e 15 … 3c, and `aes128` gives the same bits as
// the Bristol AES-128 circuit.
#pragma once

#include <tandem/tandem.hpp>
#include <tandem/lib/aes.hpp>
#include <tandem/lib/float.hpp>
#include <tandem/lib/sha256.hpp>
#include <tandem/lib/sha3.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tandem_run {

using tandem::input;
using tandem::party;
using tandem::secure_uint;

/// A built-in: its name, what it computes, and how to record it.
struct builtin {
    std::string name;
    std::string summary;  ///< one line: inputs, owners, output
    std::function<tandem::circuit<>()> compile;
};

/// The N bytes of a value, most significant first (FIPS-197 order of a hex string).
template <std::size_t N>
std::array<secure_uint<8>, N> bytes_of(const secure_uint<8 * N>& v) {
    std::array<secure_uint<8>, N> out;
    for (std::size_t j = 0; j < N; ++j) out[j] = (v >> (8 * (N - 1 - j))).template resize<8>();
    return out;
}

/// The inverse of bytes_of: shifts and XORs of disjoint bits, no ANDs.
template <std::size_t N>
secure_uint<8 * N> value_of(const std::array<secure_uint<8>, N>& bytes) {
    secure_uint<8 * N> v = 0;
    for (std::size_t j = 0; j < N; ++j) v = v ^ (bytes[j].template resize<8 * N>() << (8 * (N - 1 - j)));
    return v;
}

template <std::size_t W>
void add_integer_builtins(std::vector<builtin>& out) {
    using u = secure_uint<W>;
    const std::string w = std::to_string(W);
    const auto two = [](auto f) {
        return [f] { return tandem::circuit<>(tandem::compile(f, input<party::alice, u>, input<party::bob, u>)); };
    };
    out.push_back({"add" + w, "a + b mod 2^" + w + "  (Alice a, Bob b: " + w + " bits each)",
                   two([](const u& a, const u& b) { return a + b; })});
    out.push_back({"mul" + w, "a * b mod 2^" + w + "  (Alice a, Bob b: " + w + " bits each)",
                   two([](const u& a, const u& b) { return a * b; })});
    out.push_back({"less" + w, "1 if a < b as unsigned numbers, else 0  (Alice a, Bob b: " + w + " bits each)",
                   two([](const u& a, const u& b) { return a < b; })});
    out.push_back({"equal" + w, "1 if a == b, else 0  (Alice a, Bob b: " + w + " bits each)",
                   two([](const u& a, const u& b) { return a == b; })});
    out.push_back({"max" + w, "the larger of a and b, unsigned  (Alice a, Bob b: " + w + " bits each)",
                   two([](const u& a, const u& b) { return tandem::max(a, b); })});
}

/// Every built-in, in the order `tandem-run list` shows them.
inline const std::vector<builtin>& builtins() {
    static const std::vector<builtin> all = [] {
        std::vector<builtin> v;
        v.push_back({"aes128", "AES-128 encryption (FIPS-197): Alice's 128-bit key, Bob's 128-bit block -> 128-bit ciphertext",
                     [] {
                         return tandem::circuit<>(tandem::compile(
                             [](const secure_uint<128>& key, const secure_uint<128>& block) {
                                 return value_of(tandem::lib::aes_encrypt(bytes_of<16>(key), bytes_of<16>(block)));
                             },
                             input<party::alice, secure_uint<128>>, input<party::bob, secure_uint<128>>));
                     }});
        // A hash of the 64-byte message a || b, Alice's a and Bob's b 32 bytes each.
        const auto hash_of_halves = [](auto hash) {
            return [hash] {
                return tandem::circuit<>(tandem::compile(
                    [hash](const secure_uint<256>& a, const secure_uint<256>& b) {
                        std::array<secure_uint<8>, 64> m;
                        const auto x = bytes_of<32>(a), y = bytes_of<32>(b);
                        for (std::size_t j = 0; j < 32; ++j) m[j] = x[j], m[32 + j] = y[j];
                        return value_of(hash(m));
                    },
                    input<party::alice, secure_uint<256>>, input<party::bob, secure_uint<256>>));
            };
        };
        v.push_back({"sha256", "SHA-256 of the 64-byte message a || b: Alice's 256-bit a, Bob's 256-bit b -> 256-bit digest",
                     hash_of_halves([](const std::array<secure_uint<8>, 64>& m) { return tandem::lib::sha256(m); })});
        v.push_back({"sha3-256", "SHA3-256 of the 64-byte message a || b: Alice's 256-bit a, Bob's 256-bit b -> 256-bit digest",
                     hash_of_halves([](const std::array<secure_uint<8>, 64>& m) { return tandem::lib::sha3_256(m); })});
        const auto float_op = [](auto op) {
            return [op] {
                using f = tandem::secure_f32;
                return tandem::circuit<>(tandem::compile(
                    [op](const secure_uint<32>& a, const secure_uint<32>& b) {
                        return op(f::from_bits(a), f::from_bits(b)).bits();
                    },
                    input<party::alice, secure_uint<32>>, input<party::bob, secure_uint<32>>));
            };
        };
        v.push_back({"fadd32", "IEEE-754 binary32 a + b (round to nearest even): Alice's a, Bob's b as bit patterns "
                               "(e.g. 0x3f800000 = 1.0)",
                     float_op([](const auto& a, const auto& b) { return a + b; })});
        v.push_back({"fmul32", "IEEE-754 binary32 a * b (round to nearest even): Alice's a, Bob's b as bit patterns",
                     float_op([](const auto& a, const auto& b) { return a * b; })});
        add_integer_builtins<8>(v);
        add_integer_builtins<32>(v);
        add_integer_builtins<64>(v);
        add_integer_builtins<128>(v);
        return v;
    }();
    return all;
}

/// The built-in of that name, or nullptr.
inline const builtin* find_builtin(const std::string& name) {
    for (const builtin& b : builtins())
        if (b.name == name) return &b;
    return nullptr;
}

}  // namespace tandem_run

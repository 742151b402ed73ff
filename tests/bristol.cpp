// Bristol Fashion: the external AES-128 vector, export/import round trips and
// malformed files.
#include <doctest/doctest.h>

#include "hex_bits.hpp"
#include <tandem/tandem.hpp>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace bristol_tests {

using namespace tandem;

namespace {

const std::string aes_path = TANDEM_DATA_DIR "/aes_128.txt";

circuit<> round_trip(const circuit<>& c) {
    std::stringstream s;
    bristol::write(s, c);
    return bristol::read(s, "round-trip");
}

void check_malformed(const std::string& text, const std::string& expected) {
    std::istringstream in(text);
    CHECK_THROWS_WITH_AS(bristol::read(in, "bad.txt"), doctest::Contains(expected.c_str()), usage_error);
}

}  // namespace

TEST_CASE("bristol.aes128_fips197") {
    const circuit<> aes = bristol::read_file(aes_path);
    CHECK(aes.stats().and_gates == 6400);
    CHECK(aes.stats().xor_gates == 28176);
    CHECK(aes.data().inputs.size() == 2);
    CHECK(aes.data().inputs[0].owner == party::alice);
    CHECK(aes.data().inputs[1].owner == party::bob);
    const auto out = eval_plain_bits(aes, {bits_of_hex("000102030405060708090a0b0c0d0e0f"),
                                           bits_of_hex("00112233445566778899aabbccddeeff")});
    REQUIRE(out.size() == 1);
    CHECK(hex_of_bits(out[0]) == "69c4e0d86a7b0430d8cdb78070b4c55a");
}

TEST_CASE("bristol.round_trip_keeps_function_and_counts") {
    const circuit<> aes = bristol::read_file(aes_path);
    const circuit<> again = round_trip(aes);
    CHECK(again.stats().and_gates == aes.stats().and_gates);
    CHECK(again.stats().xor_gates == aes.stats().xor_gates);
    CHECK(again.stats().not_gates == aes.stats().not_gates);
    CHECK(again.stats().and_depth == aes.stats().and_depth);
    const std::vector<std::vector<bool>> in{bits_of_hex("2b7e151628aed2a6abf7158809cf4f3c"),
                                            bits_of_hex("3243f6a8885a308d313198a2e0370734")};
    CHECK(hex_of_bits(eval_plain_bits(again, in)[0]) == "3925841d02dc09fbdc118597196a0b32");  // FIPS-197 App. B
    CHECK(eval_plain_bits(again, in) == eval_plain_bits(aes, in));

    // A compiled program with awkward outputs: an input, a constant, a repeat.
    using U = secure_uint<16>;
    const auto prog = compile([](U a, U b) { return std::tuple{a * b, a, U(0xBEEF), a * b, a < b}; },
                              input<party::alice, U>, input<party::bob, U>);
    const circuit<> back = round_trip(prog);
    CHECK(back.stats().and_gates == prog.stats().and_gates);
    CHECK(back.stats().xor_gates == prog.stats().xor_gates);
    CHECK(back.stats().not_gates == prog.stats().not_gates);
    for (unsigned a : {0u, 1u, 300u, 65535u})
        for (unsigned b : {0u, 7u, 40000u}) {
            std::vector<std::vector<bool>> bits(2, std::vector<bool>(16));
            for (unsigned k = 0; k < 16; ++k) bits[0][k] = (a >> k) & 1u, bits[1][k] = (b >> k) & 1u;
            CHECK(eval_plain_bits(back, bits) == eval_plain_bits(prog, bits));
        }
}

TEST_CASE("bristol.malformed_files") {
    check_malformed("", "missing the header");
    check_malformed("1 3\n2 1 1\n1 1\n\n2 1 0 1", "bad.txt:5: expected an output wire");
    check_malformed("2 4\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n", "bad.txt: truncated after line 5: expected 2 gates, found 1");
    check_malformed("1 3\n2 1 1\n1 1\n\n2 1 0 7 2 AND\n", "bad.txt:5: wire index 7 is out of range");
    check_malformed("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 NAND\n", "bad.txt:5: unknown gate kind 'NAND'");
    check_malformed("2 5\n2 1 1\n1 1\n\n2 1 0 3 4 AND\n2 1 0 1 3 XOR\n", "bad.txt:5: wire 3 is used before it is set");
    check_malformed("1 3\n2 1 1\n1 1\n\n1 1 0 2 XOR\n", "bad.txt:5: XOR takes 2 input(s)");
    check_malformed("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 XOR extra\n", "unexpected 'extra'");
    check_malformed("1 3\n2 1 x\n", "bad.txt:2: expected a value width");
    check_malformed("1 4\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n", "output wire 3 is never set");
    check_malformed("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n2 1 0 1 2 AND\n", "more gate lines");
    check_malformed("2 3\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n2 1 0 1 2 AND\n", "bad.txt:6: wire 2 is set twice");
    check_malformed("1 3\n2 1 1\n1 1\n\n2 1 0 1 1 XOR\n", "bad.txt:5: wire 1 is set twice");
    CHECK_THROWS_WITH_AS(bristol::read_file("/nonexistent/file.txt"), doctest::Contains("cannot open"), usage_error);
}

TEST_CASE("bristol.eq_eqw_mand") {
    // EQ and EQW become constants and aliases; MAND is k ANDs.
    // Outputs are wires 5..7: a0, a0 & b0, a1 & b1.
    std::istringstream in("3 8\n2 2 2\n1 3\n\n1 1 1 4 EQ\n1 1 0 5 EQW\n4 2 0 1 2 3 6 7 MAND\n");
    const circuit<> c = bristol::read(in, "small.txt");
    CHECK(c.stats().and_gates == 2);
    const auto out = eval_plain_bits(c, {{true, true}, {true, false}});
    CHECK(out[0] == std::vector<bool>{true, true, false});
}

TEST_CASE("bristol.mutated_files_throw_or_parse") {
    // Random edits of a valid file: each must parse or throw usage_error —
    // never crash, hang or throw anything else (run under ASan in CI presets).
    using U = secure_uint<4>;
    const circuit<> c = compile([](U a, U b) { return std::tuple{a * b, a < b}; }, input<party::alice, U>,
                                input<party::bob, U>);
    std::stringstream original;
    bristol::write(original, c);
    const std::string text = original.str();
    const std::uint64_t seed = 424242;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const char alphabet[] = "0123456789 \n-XORANDINVEQWM";
    int parsed = 0, rejected = 0;
    for (int t = 0; t < 3000; ++t) {
        std::string s = text;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !s.empty(); ++e) {
            const std::size_t at = rng() % s.size();
            switch (rng() % 3) {
                case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
                case 1: s.erase(at, 1 + rng() % 8); break;
                default: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
            }
        }
        std::istringstream in(s);
        try {
            const circuit<> back = bristol::read(in, "mutated");
            (void)back.stats();
            ++parsed;
        } catch (const usage_error&) {
            ++rejected;
        }
    }
    CHECK(parsed + rejected == 3000);
    CHECK(rejected > 0);
    MESSAGE("mutations: " << parsed << " parsed, " << rejected << " rejected");
}

namespace {

/// A 3-bit ripple-carry adder with carry out, written by hand in the old
/// (pre-Fashion) format: inputs a (wires 0-2) and b (3-5), least significant
/// bit first; outputs s0, s1, s2, carry (wires 17-20). c1 = a0 & b0,
/// t1 = a1 ^ b1, c2 = (a1 & b1) ^ (c1 & t1), t2 = a2 ^ b2, and the carry out
/// (a2 & b2) | (c2 & t2) through INV as ~(~g2 & ~p2).
const std::string old_adder =
    "15 21\n"
    "3 3 4\n"
    "\n"
    "2 1 0 3 6 AND\n"
    "2 1 1 4 7 XOR\n"
    "2 1 1 4 8 AND\n"
    "2 1 6 7 9 AND\n"
    "2 1 8 9 10 XOR\n"
    "2 1 2 5 11 XOR\n"
    "2 1 2 5 12 AND\n"
    "2 1 10 11 13 AND\n"
    "1 1 12 14 INV\n"
    "1 1 13 15 INV\n"
    "2 1 14 15 16 AND\n"
    "2 1 0 3 17 XOR\n"
    "2 1 7 6 18 XOR\n"
    "2 1 11 10 19 XOR\n"
    "1 1 16 20 INV\n";

/// Two 1-bit inputs ANDed, in Bristol Fashion.
const std::string fashion_and = "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n";

circuit<> read_text(const std::string& text, bristol::format fmt) {
    std::istringstream in(text);
    return bristol::read(in, "text.txt", {}, fmt);
}

void check_refused(const std::string& text, bristol::format fmt, const std::string& expected) {
    std::istringstream in(text);
    CHECK_THROWS_WITH_AS(bristol::read(in, "text.txt", {}, fmt), doctest::Contains(expected.c_str()), usage_error);
}

}  // namespace

TEST_CASE("bristol.old_format_adder") {
    for (const bristol::format fmt : {bristol::format::detect, bristol::format::old}) {
        const circuit<> c = read_text(old_adder, fmt);
        CHECK(c.stats().and_gates == 6);
        REQUIRE(c.data().inputs.size() == 2);
        CHECK(c.data().inputs[0].bits == 3);
        CHECK(c.data().inputs[0].owner == party::alice);
        CHECK(c.data().inputs[1].bits == 3);
        CHECK(c.data().inputs[1].owner == party::bob);
        REQUIRE(c.data().outputs.size() == 1);
        CHECK(c.data().outputs[0].bits == 4);
        for (unsigned a = 0; a < 8; ++a)
            for (unsigned b = 0; b < 8; ++b) {
                std::vector<std::vector<bool>> in(2, std::vector<bool>(3));
                for (unsigned k = 0; k < 3; ++k) in[0][k] = (a >> k) & 1u, in[1][k] = (b >> k) & 1u;
                const auto out = eval_plain_bits(c, in);
                unsigned sum = 0;
                for (unsigned k = 0; k < 4; ++k) sum |= unsigned{out[0][k]} << k;
                CHECK(sum == a + b);
            }
        // Exported, it is Bristol Fashion, which reads back as the same function.
        std::stringstream fashion;
        bristol::write(fashion, c);
        const circuit<> back = read_text(fashion.str(), bristol::format::fashion);
        CHECK(eval_plain_bits(back, {{true, true, false}, {true, false, true}}) ==
              eval_plain_bits(c, {{true, true, false}, {true, false, true}}));
    }
}

TEST_CASE("bristol.old_format_empty_input_round_trips") {
    // Found by fuzz_bristol (fuzz/regressions/bristol/old-format-zero-width-input):
    // an old-format circuit whose first input has no bits was written as a
    // Fashion value of width 0, which the reader then refused.
    std::istringstream in("1 4\n0 3 1\n2 1 0 1 3 AND\n");
    const circuit<> c = bristol::read(in, "old.txt");
    REQUIRE(c.data().inputs.size() == 2);
    CHECK(c.data().inputs[0].bits == 0);
    const circuit<> back = round_trip(c);
    for (unsigned v = 0; v < 8; ++v) {
        const std::vector<std::vector<bool>> bits{{}, {(v & 1) != 0, (v & 2) != 0, (v & 4) != 0}};
        INFO("bob's bits " << v);
        CHECK(eval_plain_bits(back, bits) == eval_plain_bits(c, bits));
        CHECK(eval_plain_bits(c, bits)[0][0] == ((v & 3) == 3));
    }
}

TEST_CASE("bristol.format_detection_and_refusal") {
    // Fashion is still detected as Fashion.
    CHECK(eval_plain_bits(read_text(fashion_and, bristol::format::detect), {{true}, {true}})[0] ==
          std::vector<bool>{true});
    CHECK_NOTHROW(read_text(fashion_and, bristol::format::fashion));
    // Insisting on one format refuses the other, naming the one found (with
    // the file's own line number: a blank line precedes the adder's first gate).
    check_refused(old_adder, bristol::format::fashion,
                  "text.txt:4: '2 1 0 3 6 AND' is a gate where Bristol Fashion has its line of output values: this "
                  "is a circuit in the old Bristol format");
    check_refused(fashion_and, bristol::format::old,
                  "text.txt:3: '1 1' holds only numbers where the old Bristol format has its first gate: this is a "
                  "Bristol Fashion circuit");
    // An old file's line 2 has exactly three numbers.
    check_refused("1 4\n2 1\n2 1 0 1 3 AND\n", bristol::format::detect,
                  "text.txt:2: line 2 of the old Bristol format must be 'n1 n2 n3'");
    check_refused("1 5\n2 1 1 1\n2 1 0 1 4 AND\n", bristol::format::old, "must be 'n1 n2 n3'");
    // Old files are checked like Fashion ones.
    check_refused("2 5\n1 1 1\n2 1 0 1 4 AND\n", bristol::format::detect, "expected 2 gates, found 1");
    check_refused("0 3\n1 1 1\n2 1 0 1 2 AND\n", bristol::format::detect,
                  "text.txt:3: more gate lines than the declared 0");
    check_refused("1 4\n1 1 1\n2 1 0 1 3 XOR\n2 1 0 1 3 AND\n", bristol::format::old, "text.txt:4: more gate lines");
    check_refused("1 4\n1 1 1\n2 1 0 9 3 AND\n", bristol::format::detect, "text.txt:3: wire index 9 is out of range");
    check_refused("1 4\n1 1 0\n2 1 0 1 3 AND\n", bristol::format::detect, "text.txt:2: value width 0 is out of range");
    // Inputs may be empty in the old format; a file of two lines with no
    // gates is old when line 2 has three numbers (here: the identity).
    const circuit<> id = read_text("0 1\n1 0 1\n", bristol::format::detect);
    REQUIRE(id.data().inputs.size() == 2);
    CHECK(id.data().inputs[1].bits == 0);
    CHECK(eval_plain_bits(id, {{true}, {}})[0] == std::vector<bool>{true});
    CHECK(eval_plain_bits(id, {{false}, {}})[0] == std::vector<bool>{false});
    check_refused("0 1\n1 1 1\n", bristol::format::fashion, "missing the output values line");
}

TEST_CASE("bristol.mutated_old_files_throw_or_parse") {
    // As bristol.mutated_files_throw_or_parse, on the old adder: format
    // detection sees damaged headers too.
    const std::uint64_t seed = 131313;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const char alphabet[] = "0123456789 \n-XORANDINVEQWM";
    int parsed = 0, rejected = 0;
    for (int t = 0; t < 3000; ++t) {
        std::string s = old_adder;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !s.empty(); ++e) {
            const std::size_t at = rng() % s.size();
            switch (rng() % 3) {
                case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
                case 1: s.erase(at, 1 + rng() % 8); break;
                default: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
            }
        }
        try {
            (void)read_text(s, bristol::format::detect).stats();
            ++parsed;
        } catch (const usage_error&) {
            ++rejected;
        }
    }
    CHECK(parsed + rejected == 3000);
    CHECK(parsed > 0);
    CHECK(rejected > 0);
    MESSAGE("mutations: " << parsed << " parsed, " << rejected << " rejected");
}

}  // namespace bristol_tests

// tandem/core.hpp — the light half of tandem: write, compile and test secure
// functions in plaintext, with neither libsodium nor sockets and no
// networking, garbling or OT code (a first program compiles in about half the
// time of <tandem/tandem.hpp>; bench/RESULTS.md, issue 16).
//
//   #include <tandem/core.hpp>
//   auto c = tandem::compile([](tandem::secure_int<32> a, tandem::secure_int<32> b) { return a + b; },
//                            tandem::input<tandem::party::alice, tandem::secure_int<32>>,
//                            tandem::input<tandem::party::bob, tandem::secure_int<32>>);
//   assert(c.eval_plain(2, 3) == 5);
//
// Here: secure types and compile (recording), parallel_for / reduce,
// streamed functions (recording and plaintext runs), the plaintext
// evaluator, Bristol import and export, circuit statistics, and hex /
// decimal / bytes for untyped values (bits.hpp), and the standard library
// (tandem::lib: AES, SHA-256, SHA-3, floats, sorting, set operations). Running a
// circuit between two parties needs <tandem/session.hpp> (or
// <tandem/tandem.hpp>, which includes this header and everything else).
#pragma once

#include <tandem/bits.hpp>
#include <tandem/circuit/bristol.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/parallel.hpp>
#include <tandem/dsl/stream.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>
#include <tandem/int128.hpp>
#include <tandem/lib/aes.hpp>
#include <tandem/lib/float.hpp>
#include <tandem/lib/set_ops.hpp>
#include <tandem/lib/sha256.hpp>
#include <tandem/lib/sha3.hpp>
#include <tandem/lib/sort.hpp>
#include <tandem/lib/word_sum.hpp>
#include <tandem/party.hpp>
#include <tandem/plain/eval.hpp>
#include <tandem/plain/wide.hpp>

// tandem/lib/float.hpp — IEEE-754 binary floating point on secret values:
// secure_float<E, M>, secure_f32 (binary32) and secure_f64 (binary64).
//
//   secure_f64 mean = (a + b) / 2.0;
//   secure_bit in_range = isfinite(x) && x < 1.0f;
//
// Everything computes what x86-64 SSE computes with the default MXCSR, bit for
// bit (round to nearest even, subnormals, ±0, ±∞, NaN payloads), and is tested
// against the CPU (tests/lib_float.cpp, tests/lib_float_ops.cpp):
//   lib/float/type.hpp      the type, public constants, inputs and outputs as float / double
//   lib/float/arith.hpp     + − × ÷ and sqrt            (binary32: 695 / 695 / 1,651 / 1,434 / 595 ANDs)
//   lib/float/compare.hpp   == != < <= > >=, isunordered, min, max (MINSS / MAXSS)
//   lib/float/classify.hpp  isnan, isinf, isfinite, isnormal, signbit, is_zero, …
//   lib/float/sign.hpp      abs, unary −, copysign (free)
//   lib/float/convert.hpp   integers ↔ floats, binary32 ↔ binary64 (and binary16, bfloat16)
// Each header lists its AND counts; EMP's binary32 counts, which these beat,
// are add 1,143, mul 2,286, div 7,845, sqrt 5,699.
#pragma once

#include <tandem/lib/float/arith.hpp>
#include <tandem/lib/float/classify.hpp>
#include <tandem/lib/float/compare.hpp>
#include <tandem/lib/float/convert.hpp>
#include <tandem/lib/float/sign.hpp>
#include <tandem/lib/float/type.hpp>

// tandem/tandem.hpp — umbrella header: everything tandem offers today.
#pragma once

#include <tandem/circuit/bristol.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/tables.hpp>
#include <tandem/party.hpp>
#include <tandem/plain/eval.hpp>
#include <tandem/plain/wide.hpp>

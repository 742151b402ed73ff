// tandem/tandem.hpp — umbrella header: everything tandem offers today.
#pragma once

#include <tandem/circuit/bristol.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>
#include <tandem/party.hpp>
#include <tandem/plain/eval.hpp>
#include <tandem/plain/wide.hpp>

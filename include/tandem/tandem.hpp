// tandem/tandem.hpp — umbrella header: everything tandem offers today.
// <tandem/core.hpp> is the light part (no libsodium, no sockets).
#pragma once

#include <tandem/core.hpp>

#include <tandem/circuit/bristol.hpp>
#include <tandem/circuit/circuit.hpp>
#include <tandem/circuit/flatten.hpp>
#include <tandem/circuit/stats.hpp>
#include <tandem/crypto/aes.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/fixed_key_hash.hpp>
#include <tandem/crypto/hash.hpp>
#include <tandem/crypto/prg.hpp>
#include <tandem/dsl/bit.hpp>
#include <tandem/dsl/compile.hpp>
#include <tandem/dsl/integer.hpp>
#include <tandem/dsl/parallel.hpp>
#include <tandem/dsl/stream.hpp>
#include <tandem/dsl/value_traits.hpp>
#include <tandem/error.hpp>
#include <tandem/exec/executor.hpp>
#include <tandem/exec/plan.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/gc/channel_tables.hpp>
#include <tandem/gc/tables.hpp>
#include <tandem/net/channel.hpp>
#include <tandem/net/memory.hpp>
#include <tandem/net/tcp.hpp>
#include <tandem/ot/base_ot.hpp>
#include <tandem/ot/iknp.hpp>
#include <tandem/ot/transpose.hpp>
#include <tandem/party.hpp>
#include <tandem/plain/eval.hpp>
#include <tandem/plain/wide.hpp>
#include <tandem/session.hpp>

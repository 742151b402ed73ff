// tandem/session/yao.hpp — one compiled run of Yao's protocol, after the run
// headers were sent (session/run_header.hpp): the engine's steps
// (session/engine.hpp, where each step's messages are listed) in the order
//
//   Bob            choose: his OT extension columns, right after his header
//   both           the peer's header checked
//   Alice → Bob    start_run: the hash start S
//   both           enter: Bob's columns read, Alice's active labels sent
//   Alice → Bob    run: the tables (with IPP, both worlds at once)
//   both           open: the outputs to whoever learns them
//
// A compiled circuit's input bit k sits in slot k of its label array.
#pragma once

#include <tandem/crypto/target.hpp>

#include <tandem/circuit/circuit.hpp>
#include <tandem/crypto/block.hpp>
#include <tandem/crypto/wipe.hpp>
#include <tandem/gc/half_gates.hpp>
#include <tandem/party.hpp>
#include <tandem/session/engine.hpp>
#include <tandem/session/options.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

TANDEM_CRYPTO_BEGIN

namespace tandem::detail {

/// The input bits of a compiled circuit in circuit order, each in its slot
/// (bit k in slot k), with this party's values (`my_bits`, its own bits in
/// circuit order) filled in.
inline std::vector<stream_input_bit> compiled_inputs(const circuit_data& d, party me,
                                                     std::span<const std::uint8_t> my_bits) {
    std::vector<stream_input_bit> inputs(d.input_bits);
    std::size_t mine = 0;
    for (const value_layout& in : d.inputs)
        for (std::uint32_t k = 0; k < in.bits; ++k) {
            const std::uint32_t bit = in.first_bit + k;
            inputs[bit] = {bit, in.owner, in.owner == me ? my_bits[mine++] : std::uint8_t{0}};
        }
    return inputs;
}

/// One compiled run of c, this party's side; `check_header()` reads and
/// checks the peer's run header. Returns the output bits if this party
/// learns them.
template <class CheckHeader>
std::optional<std::vector<bool>> compiled_run(engine& e, reveal who, const circuit<>& c,
                                              std::span<const std::uint8_t> my_bits, CheckHeader&& check_header) {
    const circuit_data& d = c.data();
    const std::vector<stream_input_bit> inputs = compiled_inputs(d, e.garbler() ? party::alice : party::bob, my_bits);
    std::vector<block> t;                        // Bob's input labels
    gc::detail::label_array labels(d.slot_count);
    const wipe_on_exit wipe_t{t};
    const wipe_on_exit wipe_labels{labels};
    if (!e.garbler()) t = e.choose(my_bits);
    check_header();
    e.start_run();
    e.enter(inputs, labels, t);
    e.run(c, labels);
    return e.open(who, d.output_slots, labels, [](std::size_t k) { return "output bit " + std::to_string(k); });
}

}  // namespace tandem::detail

TANDEM_CRYPTO_END

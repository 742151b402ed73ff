// Yao's millionaires' problem: Alice and Bob learn who is richer and nothing
// else about each other's wealth. Alice holds her wealth, Bob his; the output
// is one bit, "Alice is richer".
//
// For now both roles run in this one process: the recorded circuit is
// evaluated in plaintext mode and then garbled (half-gates) and evaluated
// from its garbled tables, and both answers are printed. The two-party run
// over TCP arrives with the protocol (issue 4).
//
//   millionaires [--alice <wealth>] [--bob <wealth>]
#include <tandem/gc/half_gates.hpp>
#include <tandem/tandem.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    std::int64_t alice = 3'200'000, bob = 2'750'000;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if ((arg == "--alice" || arg == "--bob") && i + 1 < argc) {
            try {
                (arg == "--alice" ? alice : bob) = std::stoll(argv[++i]);
            } catch (const std::exception&) {
                std::cerr << "millionaires: " << arg << " needs an integer, got '" << argv[i] << "'\n";
                return 2;
            }
        } else {
            std::cerr << "usage: millionaires [--alice <wealth>] [--bob <wealth>]\n";
            return 2;
        }
    }

    using wealth = tandem::secure_int<64>;
    const auto richer = tandem::compile([](wealth a, wealth b) { return a > b; },
                                        tandem::input<tandem::party::alice, wealth>,
                                        tandem::input<tandem::party::bob, wealth>);

    const bool alice_richer = richer.eval_plain(alice, bob);

    // The same circuit garbled and evaluated (both roles here, for now).
    tandem::prg rng;  // seeded from the OS
    tandem::gc::table_buffer tables;
    const tandem::gc::garbling g = tandem::gc::garble(richer, rng, tables);
    std::vector<tandem::block> active;
    for (unsigned k = 0; k < 64; ++k) active.push_back(g.input.label(k, (static_cast<std::uint64_t>(alice) >> k) & 1));
    for (unsigned k = 0; k < 64; ++k) active.push_back(g.input.label(64 + k, (static_cast<std::uint64_t>(bob) >> k) & 1));
    tandem::gc::table_reader reader(tables.tables());
    const bool garbled = tandem::gc::decode(tandem::gc::evaluate(richer, g.hash_start, reader, active), g.output)[0];

    const auto& s = richer.stats();
    std::cout << "Alice is " << (alice_richer ? "" : "not ") << "richer than Bob\n"
              << "garbled evaluation agrees: " << (garbled == alice_richer ? "yes" : "NO") << " (" << tables.bytes()
              << " bytes of garbled tables)\n"
              << "circuit: " << s.and_gates << " AND, " << s.xor_gates << " XOR, " << s.not_gates << " NOT, AND depth "
              << s.and_depth << "\n"
              << "a garbled run would send " << s.bytes_garbler_to_evaluator << " bytes Alice->Bob and "
              << s.bytes_evaluator_to_garbler << " bytes Bob->Alice\n"
              << "(both roles in one process: the two-party protocol is not implemented yet)\n";
    return garbled == alice_richer ? 0 : 1;
}

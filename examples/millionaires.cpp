// Yao's millionaires' problem: Alice and Bob learn who is richer and nothing
// else about each other's wealth. Alice holds her wealth, Bob his; the output
// is one bit, "Alice is richer".
//
// For now this runs the recorded circuit in plaintext mode — the very gates a
// garbled run will process — on wealth given on the command line. The
// two-party run over TCP arrives with the protocol (issue 4).
//
//   millionaires [--alice <wealth>] [--bob <wealth>]
#include <tandem/tandem.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

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
    const auto& s = richer.stats();
    std::cout << "Alice is " << (alice_richer ? "" : "not ") << "richer than Bob\n"
              << "circuit: " << s.and_gates << " AND, " << s.xor_gates << " XOR, " << s.not_gates << " NOT, AND depth "
              << s.and_depth << "\n"
              << "a garbled run would send " << s.bytes_garbler_to_evaluator << " bytes Alice->Bob and "
              << s.bytes_evaluator_to_garbler << " bytes Bob->Alice\n"
              << "(plaintext mode: the two-party protocol is not implemented yet)\n";
    return 0;
}

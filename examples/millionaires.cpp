// Yao's millionaires' problem: Alice and Bob learn who is richer and nothing
// else about each other's wealth.
//
//   millionaires --local [--alice <wealth>] [--bob <wealth>]     both parties, two processes, loopback TCP
//   millionaires --party alice [--port 7766] --alice <wealth>    on Alice's machine
//   millionaires --party bob --host <alice> --bob <wealth>       on Bob's machine
//
// Each party passes only its own wealth to the run; the other flag is ignored.
#include "two_party.hpp"

#include <cstdint>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    std::int64_t alice = 3'200'000, bob = 2'750'000;
    example::cli cli;
    try {
        cli = example::parse(argc, argv);
        for (std::size_t i = 0; i < cli.rest.size(); ++i) {
            const std::string& arg = cli.rest[i];
            if ((arg != "--alice" && arg != "--bob") || i + 1 == cli.rest.size())
                throw std::invalid_argument("unknown argument '" + arg + "'");
            (arg == "--alice" ? alice : bob) = std::stoll(cli.rest[++i]);
        }
    } catch (const std::exception& e) {
        std::cerr << "millionaires: " << e.what() << "\nusage: millionaires (--local | --party alice|bob) "
                  << "[--alice <wealth>] [--bob <wealth>]\n"
                  << example::common_usage;
        return 2;
    }

    using wealth = tandem::secure_int<64>;
    const auto richer = tandem::compile([](wealth a, wealth b) { return a > b; },
                                        tandem::input<tandem::party::alice, wealth>,
                                        tandem::input<tandem::party::bob, wealth>);

    return example::run(cli, argc, argv, [&](tandem::session& s) {
        const std::int64_t mine = s.me() == tandem::party::alice ? alice : bob;
        const std::optional<bool> alice_richer = s.run(cli.who, richer, mine);
        example::report(s, !alice_richer ? std::string("result: not revealed to this party")
                                         : std::string("result: Alice is ") + (*alice_richer ? "" : "not ") +
                                               "richer than Bob");
        return 0;
    });
}

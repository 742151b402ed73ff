// A joint sealed-bid auction. Alice and Bob each run an auction house and
// hold the sealed bids of their own bidders, prices in dollars (binary32).
// Together they sell K = 3 identical items to the three highest bids of both
// houses, every winner paying the same price: the highest losing bid (the
// uniform (K+1)-th-price auction, Vickrey's second-price auction for K items,
// where bidding one's true value is a dominant strategy). Both houses learn
// the price, the revenue and who won (house and bidder number); no other bid
// is revealed, not even the winners' own.
//
//   auction --local [--alice <p,p,…>] [--bob <p,p,…>]
//   auction --party alice [--port 7766] --alice <p,p,…>
//   auction --party bob --host <alice> --bob <p,p,…>
//
// Up to 8 bids per house; a house with fewer has "no bid" (0) in the other
// places. Bids are finite and non-negative. Equal bids are ranked by house
// (Alice's first) and then by order of arrival (tandem::stable_sort).
#include "two_party.hpp"

#include <tandem/lib/float.hpp>
#include <tandem/lib/sort.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr std::size_t bids_per_house = 8;
constexpr std::size_t items = 3;

using price = tandem::secure_f32;
using bidder = tandem::secure_uint<16>;  // house << 8 | bidder number
using bid = std::tuple<price, bidder>;
using house_bids = std::array<price, bids_per_house>;

auto auction(const house_bids& alice, const house_bids& bob) {
    std::vector<bid> all;
    for (std::size_t i = 0; i < bids_per_house; ++i) all.emplace_back(alice[i], bidder(i));
    for (std::size_t i = 0; i < bids_per_house; ++i) all.emplace_back(bob[i], bidder(0x100 | i));
    // Highest first: one bid goes before another when its price is greater.
    tandem::stable_sort(std::span<bid>(all), [](const bid& a, const bid& b) { return std::get<0>(b) < std::get<0>(a); });
    std::array<bidder, items> winners;
    for (std::size_t k = 0; k < items; ++k) winners[k] = std::get<1>(all[k]);
    const price clearing = std::get<0>(all[items]);
    return std::tuple{clearing, clearing * static_cast<float>(items), winners};
}

std::array<float, bids_per_house> parse_bids(const std::string& list) {
    std::array<float, bids_per_house> out{};
    std::stringstream in(list);
    std::string item;
    std::size_t n = 0;
    while (std::getline(in, item, ',')) {
        if (n == bids_per_house) throw std::invalid_argument("at most 8 bids per house");
        std::size_t used = 0;
        const float v = std::stof(item, &used);
        if (used != item.size() || !std::isfinite(v) || v < 0)
            throw std::invalid_argument("'" + item + "' is not a finite, non-negative price");
        out[n++] = v;
    }
    return out;
}

std::string bidder_name(std::uint16_t id) {
    return std::string(id >> 8 ? "Bob's" : "Alice's") + " bidder " + std::to_string((id & 0xff) + 1);
}

}  // namespace

int main(int argc, char** argv) {
    std::string alice_list = "120.5,99.99,310,42", bob_list = "250,310,75.25,180,99.99";
    example::cli cli;
    std::array<float, bids_per_house> alice_bids{}, bob_bids{};
    try {
        cli = example::parse(argc, argv);
        for (std::size_t i = 0; i < cli.rest.size(); ++i) {
            const std::string& arg = cli.rest[i];
            if ((arg != "--alice" && arg != "--bob") || i + 1 == cli.rest.size())
                throw std::invalid_argument("unknown argument '" + arg + "'");
            (arg == "--alice" ? alice_list : bob_list) = cli.rest[++i];
        }
        alice_bids = parse_bids(alice_list);
        bob_bids = parse_bids(bob_list);
    } catch (const std::exception& e) {
        std::cerr << "auction: " << e.what() << "\nusage: auction (--local | --party alice|bob) "
                  << "[--alice <price,price,…>] [--bob <price,price,…>]\n"
                  << example::common_usage;
        return 2;
    }

    const auto circuit = tandem::compile(auction, tandem::input<tandem::party::alice, house_bids>,
                                         tandem::input<tandem::party::bob, house_bids>);

    return example::run(cli, argc, argv, [&](tandem::session& s) {
        const auto& mine = s.me() == tandem::party::alice ? alice_bids : bob_bids;
        const auto result = s.run(cli.who, circuit, mine);
        if (!result) {
            example::report(s, "result: not revealed to this party");
            return 0;
        }
        const auto& [clearing, revenue, winners] = *result;
        std::ostringstream text;
        text << "result: " << items << " items at $" << clearing << " each, revenue $" << revenue << "; winners:";
        for (std::size_t k = 0; k < items; ++k) text << (k ? "," : "") << " " << bidder_name(winners[k]);
        example::report(s, text.str());
        return 0;
    });
}

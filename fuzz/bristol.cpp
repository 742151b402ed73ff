// fuzz_bristol: the Bristol reader (circuit/bristol.hpp, bristol::read; both
// formats it knows, Fashion and the old one) on arbitrary text. A circuit it
// returns is evaluated in plaintext on all-zero and on alternating input
// bits, written back as Bristol Fashion and read again.
//
// Checks: read() returns a circuit or throws a tandem::error; what it returns
// evaluates without crashing; what bristol::write makes of it reads back
// (any error there is a finding) and computes the same outputs.
//
// The header's wire count is the caller's promise (an input value may be up
// to that wide, and a 2^30-bit identity circuit is a valid 20-byte file):
// inputs declaring more than 2^20 wires are skipped, so the harness measures
// the reader, not the machine's memory.
#include "fuzz.hpp"

#include <sstream>

using namespace tandem;

namespace {

/// The wire count of the first non-blank line ("ngates nwires"), if it has one.
std::optional<std::uint64_t> declared_wires(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::istringstream t(line);
        std::uint64_t gates = 0, wires = 0;
        if (t >> gates >> wires) return wires;
        return std::nullopt;
    }
    return std::nullopt;
}

std::vector<std::vector<bool>> inputs_of(const circuit<>& c, bool alternating) {
    std::vector<std::vector<bool>> in;
    for (const value_layout& v : c.data().inputs) {
        std::vector<bool> bits(v.bits);
        for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = alternating && k % 2 == 0;
        in.push_back(std::move(bits));
    }
    return in;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (const auto wires = declared_wires(text); wires && *wires > (std::uint64_t{1} << 20)) return 0;
    std::optional<circuit<>> c;
    fuzz::allow_tandem_errors([&] {
        std::istringstream in(text);
        c = bristol::read(in, "fuzz input");
    });
    if (!c) return 0;
    const auto zeros = inputs_of(*c, false), alternating = inputs_of(*c, true);
    const auto out0 = eval_plain_bits(*c, zeros), out1 = eval_plain_bits(*c, alternating);
    std::stringstream written;
    bristol::write(written, *c);
    try {
        const circuit<> back = bristol::read(written, "written back");
        if (eval_plain_bits(back, zeros) != out0 || eval_plain_bits(back, alternating) != out1)
            fuzz::finding("the circuit written back as Bristol Fashion computes other outputs");
    } catch (const tandem::error& e) {
        fuzz::finding(std::string("bristol::read refuses what bristol::write wrote: ") + e.what());
    }
    return 0;
}

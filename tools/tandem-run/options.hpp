// tools/tandem-run/options.hpp — tandem-run's command line: subcommands,
// options, help texts. A bad argument is a bad_argument (exit status 2).
#pragma once

#include <tandem/tandem.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tandem_run {

/// A command line that cannot be carried out: exit status 2, one line.
struct bad_argument : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class output_format { hex, dec, signed_dec };

struct options {
    std::string command;  ///< run, plain, stats, convert, list
    std::string circuit;  ///< a Bristol file or a built-in's name
    bool help = false;

    // Which circuit: Bristol format and input owners.
    tandem::bristol::format format = tandem::bristol::format::detect;
    std::vector<tandem::party> owners;  ///< empty: value 0 Alice's, the rest Bob's

    std::vector<std::string> inputs;  ///< --input values, in order
    output_format output = output_format::hex;
    bool json = false;

    // run
    std::optional<tandem::party> me;
    bool local = false;
    std::string host;
    std::optional<std::uint16_t> port;
    tandem::reveal who = tandem::reveal::both;
    tandem::session_options session;
    bool stream = false;
    std::uint64_t segment_ands = tandem::default_segment_ands;
    bool progress = true;
    bool quiet_setup = false;  ///< internal: the Bob process --local starts
    std::string key_file, peer_key_file, psk_file;  ///< --key, --peer-key, --psk: sealed links
    std::string cert_file, ca_file, peer_cert_file, peer_name;  ///< --cert (with --key), --ca, --peer-cert, --peer-name: TLS

    // keygen
    bool pre_shared = false;

    // convert
    std::string out_path;
};

inline const char* main_help =
    "tandem-run: run a Boolean circuit between two parties with Yao's garbled circuits (tandem)\n"
    "\n"
    "usage: tandem-run <command> CIRCUIT [options]\n"
    "\n"
    "CIRCUIT is a Bristol circuit file (Bristol Fashion or the old Bristol format) or the name of a\n"
    "built-in function (tandem-run list).\n"
    "\n"
    "commands:\n"
    "  run      run CIRCUIT between two parties (two hosts, or two processes here with --local)\n"
    "  plain    evaluate CIRCUIT in plaintext on this machine (no security: to check inputs and outputs)\n"
    "  stats    what CIRCUIT costs: gates, AND depth, level widths, working set, bytes a run sends\n"
    "  convert  write CIRCUIT as a Bristol Fashion file\n"
    "  list     the built-in functions and their inputs\n"
    "  keygen   make a key pair (or a pre-shared key) that authenticates and encrypts the links\n"
    "\n"
    "tandem-run <command> --help shows the options of one command.\n"
    "Exit status: 0 done, 1 the run failed (network, peer, protocol), 2 a bad argument, file or value.\n";

inline const char* circuit_help =
    "circuit options:\n"
    "  --format detect|fashion|old   the Bristol format of the file (default detect)\n"
    "  --owners alice,bob,...        who supplies each input value of a Bristol file, in order\n"
    "                                (default: value 0 Alice, every other value Bob)\n";

inline const char* value_help =
    "  --input V [V ...]   input values, in the circuit's order: decimal (-5, 1000000) or hex with 0x\n"
    "                      (0x2b7e...); a hex value is one big-endian number, bit 0 its least significant\n"
    "                      bit, as Bristol numbers a value's wires. Each is checked against its value's\n"
    "                      width before anything is sent.\n"
    "  --output hex|dec|signed   how outputs are printed (default hex)\n"
    "  --json              print the result and its figures as one JSON object on stdout\n";

inline std::string command_help(const std::string& command) {
    if (command == "run")
        return std::string(
                   "usage: tandem-run run CIRCUIT --party alice|bob [--host H] [--port P] [--input V ...] [options]\n"
                   "       tandem-run run CIRCUIT --local --input V ... [options]\n"
                   "\n"
                   "Runs CIRCUIT between two parties: Alice garbles, Bob evaluates. Alice listens on --port,\n"
                   "Bob connects to --host; each passes only its own input values (--input), in the circuit's\n"
                   "order. With --local both parties run here as two processes over loopback TCP and --input\n"
                   "takes every input value of the circuit, in order.\n"
                   "\n"
                   "  --party alice|bob   which party this process is (alice listens, bob connects)\n"
                   "  --host H            bob: alice's address (default 127.0.0.1); alice: the address to\n"
                   "                      listen on (default all)\n"
                   "  --port P            TCP port (default 7766; alice may give 0 for any free port, printed\n"
                   "                      on stderr)\n"
                   "  --local             both parties on this machine, two processes over loopback TCP\n"
                   "  --reveal both|alice|bob   who learns the outputs (default both)\n"
                   "  --threads N         workers per party, each with a thread and a TCP connection (default 1;\n"
                   "                      both parties alike)\n"
                   "  --ipp               inter-party parallelization: each party garbles half of every large\n"
                   "                      parallel region (both parties alike)\n"
                   "  --stream            read and garble the Bristol file gate by gate, in bounded memory (for\n"
                   "                      circuits too big to hold; both parties alike)\n"
                   "  --segment-ands K    with --stream: ANDs per segment (default 16384; both alike)\n"
                   "  --timeout MS        deadline of every network wait, and of waiting for the peer (default\n"
                   "                      60000)\n"
                   "  --malicious         security against a malicious peer (authenticated garbling): a peer\n"
                   "                      that deviates is caught before any output (both parties alike; not\n"
                   "                      with --ipp). Needs sealed links (--key, --psk or --cert) or\n"
                   "                      --plain-links;\n"
                   "                      --local runs on one host and needs neither\n"
                   "  --silent-ot         with --malicious: make the authenticated bits with silent OT (under\n"
                   "                      half a bit per COT; fewer bytes, more CPU: for slow links; both alike)\n"
                   "  --plain-links       with --malicious: plain TCP links, for a path protected otherwise\n"
                   "                      (a VPN, an SSH tunnel)\n"
                   "  --hash rekeyed|fixed-key   garbling hash (default rekeyed; both parties alike)\n"
                   "  --scheme half-gates|three-halves\n"
                   "                      how ANDs are garbled (default half-gates, 32 bytes per AND; three-halves\n"
                   "                      sends 24.6 for 1.5x the hashing: for links slower than the cores, see\n"
                   "                      the README; semi-honest only; both parties alike)\n"
                   "  --key FILE          encrypt and authenticate every link (Noise KK): this party's secret key\n"
                   "                      (tandem-run keygen); needs --peer-key\n"
                   "  --peer-key FILE     the peer's public key (its .pub file): a peer without the matching\n"
                   "                      secret key is refused before any input is used\n"
                   "  --psk FILE          encrypt and authenticate every link with a key both parties hold\n"
                   "                      (Noise NNpsk0; tandem-run keygen NAME --pre-shared). With --local\n"
                   "                      both processes use it. Without --key or --psk the links are plain\n"
                   "                      TCP: anyone on the path can read the revealed outputs and alter\n"
                   "                      the run\n"
                   "  --cert FILE         protect every link with TLS 1.3 instead: this party's X.509 certificate\n"
                   "                      (PEM), with its private key as --key FILE; needs --ca or --peer-cert\n"
                   "  --ca FILE           with --cert: the CA certificates the peer's certificate must chain to\n"
                   "  --peer-cert FILE    with --cert: the peer's own certificate, pinned (instead of --ca)\n"
                   "  --peer-name NAME    with --cert: the name the peer's certificate must carry (DNS name)\n"
                   "  --no-progress       no progress line on stderr (drawn only when stderr is a terminal)\n") +
               value_help + circuit_help;
    if (command == "plain")
        return std::string("usage: tandem-run plain CIRCUIT --input V ... [options]\n"
                           "\n"
                           "Evaluates CIRCUIT on plain values here: every input value, in the circuit's order.\n"
                           "No security; use it to check what a run will output.\n"
                           "\n"
                           "  --stream            read the Bristol file gate by gate, in bounded memory\n") +
               value_help + circuit_help;
    if (command == "stats")
        return std::string("usage: tandem-run stats CIRCUIT [--json] [circuit options]\n"
                           "\n"
                           "Prints what CIRCUIT costs: its inputs and outputs, gates (AND, XOR, NOT), AND depth,\n"
                           "the histogram of level widths (ANDs per level), the evaluator's working set, and the\n"
                           "bytes a semi-honest run sends each way.\n"
                           "\n"
                           "  --json              one JSON object on stdout\n"
                           "  --scheme half-gates|three-halves\n"
                           "                      the garbling scheme the bytes are counted for (default half-gates)\n") +
               circuit_help;
    if (command == "convert")
        return std::string("usage: tandem-run convert CIRCUIT [-o FILE] [circuit options]\n"
                           "\n"
                           "Writes CIRCUIT (a Bristol file in either format, or a built-in) as Bristol Fashion, to\n"
                           "FILE or standard output. Parallel regions are flattened.\n"
                           "\n"
                           "  -o, --out FILE      where to write (default standard output)\n") +
               circuit_help;
    if (command == "list") return "usage: tandem-run list\n\nLists the built-in functions, their inputs and outputs.\n";
    if (command == "keygen")
        return "usage: tandem-run keygen NAME [--pre-shared]\n"
               "\n"
               "Writes a fresh X25519 key pair: NAME.key (secret, readable by you only: keep it) and NAME.pub\n"
               "(give it to the peer, who passes it as --peer-key). With --pre-shared, writes NAME.psk instead:\n"
               "one secret key for both parties (--psk), to be copied to the peer over a safe channel.\n"
               "Existing files are overwritten.\n";
    return main_help;
}

namespace detail {

inline std::uint64_t parse_count(const std::string& flag, const std::string& v, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t n = 0;
    if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos ||
        (n = std::stoull(v)) < lo || n > hi)
        throw bad_argument(flag + " takes a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                           ", not '" + v + "'");
    return n;
}

inline tandem::party parse_party(const std::string& flag, const std::string& v) {
    if (v == "alice") return tandem::party::alice;
    if (v == "bob") return tandem::party::bob;
    throw bad_argument(flag + " takes alice or bob, not '" + v + "'");
}

}  // namespace detail

/// Parses argv; throws bad_argument.
inline options parse(int argc, char** argv) {
    options o;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) throw bad_argument("no command given; try tandem-run --help");
    std::size_t i = 0;
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        o.help = true;
        if (args.size() > 1) o.command = args[1];
        return o;
    }
    o.command = args[i++];
    if (o.command != "run" && o.command != "plain" && o.command != "stats" && o.command != "convert" &&
        o.command != "list" && o.command != "keygen")
        throw bad_argument("unknown command '" + o.command +
                           "'; the commands are run, plain, stats, convert, list, keygen (tandem-run --help)");
    bool have_port = false;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw bad_argument(a + " needs a value (tandem-run " + o.command + " --help)");
            return args[++i];
        };
        const auto for_run = [&] {
            if (o.command != "run")
                throw bad_argument(a + " is an option of 'tandem-run run', not of '" + o.command + "'");
        };
        if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--input") {
            if (o.command == "stats" || o.command == "convert" || o.command == "list")
                throw bad_argument("--input is an option of run and plain, not of '" + o.command + "'");
            const std::size_t before = o.inputs.size();
            while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) o.inputs.push_back(args[++i]);
            if (o.inputs.size() == before) throw bad_argument("--input needs at least one value");
        } else if (a == "--output") {
            const std::string v = value();
            if (v == "hex") o.output = output_format::hex;
            else if (v == "dec") o.output = output_format::dec;
            else if (v == "signed") o.output = output_format::signed_dec;
            else throw bad_argument("--output takes hex, dec or signed, not '" + v + "'");
        } else if (a == "--json") {
            o.json = true;
        } else if (a == "--format") {
            const std::string v = value();
            if (v == "detect") o.format = tandem::bristol::format::detect;
            else if (v == "fashion") o.format = tandem::bristol::format::fashion;
            else if (v == "old") o.format = tandem::bristol::format::old;
            else throw bad_argument("--format takes detect, fashion or old, not '" + v + "'");
        } else if (a == "--owners") {
            const std::string v = value();
            o.owners.clear();
            std::size_t start = 0;
            while (start <= v.size()) {
                const std::size_t comma = std::min(v.find(',', start), v.size());
                o.owners.push_back(detail::parse_party("--owners", v.substr(start, comma - start)));
                start = comma + 1;
            }
        } else if (a == "--party") {
            for_run();
            o.me = detail::parse_party("--party", value());
        } else if (a == "--local") {
            for_run();
            o.local = true;
        } else if (a == "--host") {
            for_run();
            o.host = value();
        } else if (a == "--port") {
            for_run();
            o.port = static_cast<std::uint16_t>(detail::parse_count("--port", value(), 0, 65535));
            have_port = true;
        } else if (a == "--reveal") {
            for_run();
            const std::string v = value();
            if (v == "both") o.who = tandem::reveal::both;
            else if (v == "alice") o.who = tandem::reveal::alice;
            else if (v == "bob") o.who = tandem::reveal::bob;
            else throw bad_argument("--reveal takes both, alice or bob, not '" + v + "'");
        } else if (a == "--threads") {
            for_run();
            o.session.threads = static_cast<std::uint32_t>(detail::parse_count("--threads", value(), 1, 256));
        } else if (a == "--ipp") {
            for_run();
            o.session.ipp = true;
        } else if (a == "--malicious") {
            for_run();
            o.session.security = tandem::security::malicious;
        } else if (a == "--silent-ot") {
            for_run();
            o.session.malicious_ot = tandem::cot_extension::silent;
        } else if (a == "--stream") {
            if (o.command != "run" && o.command != "plain")
                throw bad_argument("--stream is an option of run and plain, not of '" + o.command + "'");
            o.stream = true;
        } else if (a == "--segment-ands") {
            o.segment_ands = detail::parse_count("--segment-ands", value(), 64, std::uint64_t{1} << 30);
        } else if (a == "--timeout") {
            for_run();
            const auto ms = detail::parse_count("--timeout", value(), 1, 86'400'000);
            o.session.timeout = o.session.connect_timeout = std::chrono::milliseconds(ms);
        } else if (a == "--hash") {
            for_run();
            const std::string v = value();
            if (v == "rekeyed") o.session.hash = tandem::garbling_hash::rekeyed;
            else if (v == "fixed-key") o.session.hash = tandem::garbling_hash::fixed_key;
            else throw bad_argument("--hash takes rekeyed or fixed-key, not '" + v + "'");
        } else if (a == "--scheme") {
            if (o.command != "run" && o.command != "stats")
                throw bad_argument("--scheme is an option of run and stats, not of '" + o.command + "'");
            const std::string v = value();
            if (v == "half-gates") o.session.scheme = tandem::garbling_scheme::half_gates;
            else if (v == "three-halves") o.session.scheme = tandem::garbling_scheme::three_halves;
            else throw bad_argument("--scheme takes half-gates or three-halves, not '" + v + "'");
        } else if (a == "--key") {
            for_run();
            o.key_file = value();
        } else if (a == "--peer-key") {
            for_run();
            o.peer_key_file = value();
        } else if (a == "--cert") {
            for_run();
            o.cert_file = value();
        } else if (a == "--ca") {
            for_run();
            o.ca_file = value();
        } else if (a == "--peer-cert") {
            for_run();
            o.peer_cert_file = value();
        } else if (a == "--peer-name") {
            for_run();
            o.peer_name = value();
        } else if (a == "--psk") {
            for_run();
            o.psk_file = value();
        } else if (a == "--plain-links") {
            for_run();
            o.session.allow_plain_links = true;
        } else if (a == "--pre-shared") {
            if (o.command != "keygen") throw bad_argument("--pre-shared is an option of keygen, not of '" + o.command + "'");
            o.pre_shared = true;
        } else if (a == "--no-progress") {
            o.progress = false;
        } else if (a == "--bob-of-local") {  // internal: the Bob process that --local starts
            o.quiet_setup = true;
        } else if (a == "-o" || a == "--out") {
            if (o.command != "convert") throw bad_argument(a + " is an option of convert, not of '" + o.command + "'");
            o.out_path = value();
        } else if (a.rfind("-", 0) == 0 && a.size() > 1 && !(a[1] >= '0' && a[1] <= '9')) {
            throw bad_argument("unknown option '" + a + "' (tandem-run " + o.command + " --help)");
        } else if (o.circuit.empty() && o.command != "list") {
            o.circuit = a;
        } else {
            throw bad_argument("unexpected argument '" + a + "'" +
                               (o.command == "list" ? std::string() : "; input values follow --input"));
        }
    }
    if (o.help) return o;
    if (o.command == "keygen" && o.circuit.empty())
        throw bad_argument("tandem-run keygen needs a NAME: it writes NAME.key and NAME.pub (or NAME.psk)");
    if (o.command != "list" && o.circuit.empty())
        throw bad_argument("tandem-run " + o.command + " needs a CIRCUIT: a Bristol file or a built-in's name "
                           "(tandem-run list)");
    if (o.command == "run") {
        if (o.local == o.me.has_value())
            throw bad_argument("tandem-run run needs either --party alice|bob (two hosts) or --local (two processes "
                               "here)");
        if (o.local && (have_port || !o.host.empty()))
            throw bad_argument("--local picks a free loopback port itself; drop --host and --port");
        if (o.me == tandem::party::bob && o.port == std::uint16_t{0})
            throw bad_argument("bob needs alice's --port (0 means 'any free port' only for alice)");
        const bool tls = !o.cert_file.empty();
        if (!tls && (!o.ca_file.empty() || !o.peer_cert_file.empty() || !o.peer_name.empty()))
            throw bad_argument("--ca, --peer-cert and --peer-name are TLS options: give this party's --cert FILE and "
                               "--key FILE too");
        if (tls && o.key_file.empty())
            throw bad_argument("--cert needs its private key: --key FILE (PEM)");
        if (tls && o.ca_file.empty() == o.peer_cert_file.empty())
            throw bad_argument("--cert needs what the peer's certificate is checked against: --ca FILE or "
                               "--peer-cert FILE (one of them)");
        if (tls && (!o.peer_key_file.empty() || !o.psk_file.empty()))
            throw bad_argument("give either TLS (--cert/--key with --ca or --peer-cert) or Noise (--key/--peer-key or "
                               "--psk), not both");
        if (!tls && o.key_file.empty() != o.peer_key_file.empty())
            throw bad_argument("--key and --peer-key go together: this party's secret key and the peer's public key");
        if (!o.key_file.empty() && !o.psk_file.empty())
            throw bad_argument("give either --key/--peer-key or --psk, not both");
        if (o.local && !o.key_file.empty())
            throw bad_argument("--local runs both parties here; protect its links with --psk FILE instead of --key or "
                               "--cert");
        if (o.session.malicious_ot == tandem::cot_extension::silent && o.session.security != tandem::security::malicious)
            throw bad_argument("--silent-ot chooses how --malicious makes its authenticated bits: add --malicious");
        if (o.session.security == tandem::security::malicious &&
            o.session.scheme != tandem::garbling_scheme::half_gates)
            throw bad_argument("--malicious and --scheme three-halves do not go together: authenticated garbling has "
                               "tables of its own, and no authenticated three-halves construction is known");
        if (o.session.security == tandem::security::malicious && o.session.ipp)
            throw bad_argument("--malicious and --ipp do not go together: authenticated garbling already keeps both "
                               "parties' cores busy; drop --ipp");
        if (o.session.security == tandem::security::malicious && o.key_file.empty() && o.psk_file.empty() &&
            !o.local && !o.quiet_setup && !o.session.allow_plain_links)
            throw bad_argument("--malicious encrypts its links: give --key FILE --peer-key FILE or --psk FILE "
                               "(tandem-run keygen), --cert/--key with --ca or --peer-cert (TLS), or --plain-links "
                               "where the path is protected otherwise");
        if (o.stream && o.session.ipp)
            throw bad_argument("--stream and --ipp do not go together: IPP splits parallel regions between the "
                               "parties, and a Bristol file read gate by gate has none; drop one");
    }
    return o;
}

}  // namespace tandem_run

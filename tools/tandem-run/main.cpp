// tandem-run — run a Bristol circuit, or one of tandem's library functions,
// between two hosts; evaluate it in plaintext; see what it costs; convert it.
//
//   tandem-run run aes128 --local --input 0x2b7e151628aed2a6abf7158809cf4f3c 0x3243f6a8885a308d313198a2e0370734
//   tandem-run run circuit.txt --party alice --port 7766 --input 0x…     (on one host)
//   tandem-run run circuit.txt --party bob --host alice.example --port 7766 --input 0x…   (on the other)
//   tandem-run stats circuit.txt
//
// tandem-run --help and tandem-run <command> --help say the rest. Exit status:
// 0 done, 1 the run failed, 2 a bad argument, file or value (nothing sent).
#include "builtins.hpp"
#include "bristol_stream.hpp"
#include "options.hpp"
#include "report.hpp"

#include <tandem/bits.hpp>
#include <tandem/tandem.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace tandem_run {

namespace {

/// What a command runs: a whole circuit, or (--stream) a Bristol file read as it runs.
struct program {
    std::optional<tandem::circuit<>> circuit;
    std::unique_ptr<bristol_stream> streamed;
    std::vector<tandem::value_layout> inputs;  ///< owner and width of each input value
    std::vector<std::uint32_t> output_widths;
};

bool is_file(const std::string& path) {
    std::ifstream f(path);
    return static_cast<bool>(f);
}

program load(const options& o, bool stream) {
    program p;
    const bool file = is_file(o.circuit);
    const builtin* b = file ? nullptr : find_builtin(o.circuit);
    if (!file && b == nullptr)
        throw bad_argument("'" + o.circuit + "' is neither a readable file nor a built-in function (tandem-run list)");
    if (b != nullptr && (!o.owners.empty() || o.format != tandem::bristol::format::detect))
        throw bad_argument("--owners and --format apply to Bristol files, not to the built-in '" + b->name + "'");
    if (stream) {
        if (b != nullptr)
            throw bad_argument("--stream reads a Bristol file as it runs; the built-in '" + b->name +
                               "' is small enough to run without it");
        p.streamed = std::make_unique<bristol_stream>(o.circuit, o.format, o.owners);
        const auto& h = p.streamed->head();
        for (std::size_t i = 0; i < h.input_widths.size(); ++i)
            p.inputs.push_back({p.streamed->owners()[i], 0, h.input_widths[i]});
        p.output_widths = h.output_widths;
        return p;
    }
    p.circuit = b != nullptr ? b->compile() : tandem::bristol::read_file(o.circuit, o.owners, o.format);
    for (const auto& v : p.circuit->inputs()) p.inputs.push_back(v);
    for (const auto& v : p.circuit->outputs()) p.output_widths.push_back(v.bits);
    return p;
}

/// The values given, checked against the widths of the inputs that `who`
/// supplies (every input if nullopt). A value that does not fit is a
/// bad_argument naming it.
std::vector<std::vector<bool>> parse_inputs(const options& o, const program& p, std::optional<tandem::party> who) {
    std::vector<std::size_t> wanted;  // indices into p.inputs
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
        if (!who || p.inputs[i].owner == *who) wanted.push_back(i);
    const std::string whose = who ? std::string(tandem::to_string(*who)) + "'s" : std::string("the circuit's");
    if (o.inputs.size() != wanted.size()) {
        std::string widths;
        for (std::size_t i : wanted)
            widths += (widths.empty() ? "" : ", ") + std::to_string(p.inputs[i].bits) + " bits (" +
                      std::string(tandem::to_string(p.inputs[i].owner)) + ")";
        throw bad_argument("'" + o.circuit + "' takes " + std::to_string(wanted.size()) + " input value(s) as " +
                           whose + (wanted.empty() ? "" : ": " + widths) + "; " + std::to_string(o.inputs.size()) +
                           " given with --input");
    }
    std::vector<std::vector<bool>> values;
    for (std::size_t k = 0; k < wanted.size(); ++k) {
        const tandem::value_layout& in = p.inputs[wanted[k]];
        try {
            values.push_back(tandem::bits_from_string(o.inputs[k], in.bits));
        } catch (const tandem::usage_error& e) {
            throw bad_argument("input value " + std::to_string(wanted[k]) + " (" +
                               std::string(tandem::to_string(in.owner)) + "'s, " + std::to_string(in.bits) +
                               " bits): " + e.what());
        }
    }
    return values;
}

/// One party's values out of all of them (circuit order).
std::vector<std::vector<bool>> values_of(const program& p, const std::vector<std::vector<bool>>& all, tandem::party who) {
    std::vector<std::vector<bool>> mine;
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
        if (p.inputs[i].owner == who) mine.push_back(all[i]);
    return mine;
}

/// A party's input bits concatenated (a streamed run's sequence).
std::vector<bool> concatenated(const std::vector<std::vector<bool>>& values) {
    std::vector<bool> bits;
    for (const auto& v : values) bits.insert(bits.end(), v.begin(), v.end());
    return bits;
}

int cmd_list(const options& o) {
    if (o.json) {
        std::cout << "[";
        bool first = true;
        for (const builtin& b : builtins()) {
            std::cout << (first ? "" : ",") << "{\"name\":" << json_string(b.name)
                      << ",\"summary\":" << json_string(b.summary) << "}";
            first = false;
        }
        std::cout << "]\n";
        return 0;
    }
    std::cout << "built-in functions (tandem-run run NAME ..., inputs as --input ALICE BOB):\n";
    for (const builtin& b : builtins()) std::printf("  %-9s %s\n", b.name.c_str(), b.summary.c_str());
    return 0;
}

int cmd_stats(const options& o) {
    const program p = load(o, false);
    print_stats(o, *p.circuit, std::cout);
    return 0;
}

int cmd_convert(const options& o) {
    const program p = load(o, false);
    if (o.out_path.empty()) {
        tandem::bristol::write(std::cout, *p.circuit);
        std::cout.flush();
    } else {
        tandem::bristol::write_file(o.out_path, *p.circuit);
    }
    return 0;
}

int cmd_plain(const options& o) {
    const program p = load(o, o.stream);
    const auto values = parse_inputs(o, p, std::nullopt);
    run_report r;
    r.mode = "plain";
    const auto t0 = std::chrono::steady_clock::now();
    if (p.streamed) {
        auto fn = p.streamed->function(tandem::reveal::both, o.segment_ands);
        fn.eval_plain(concatenated(values_of(p, values, tandem::party::alice)),
                      concatenated(values_of(p, values, tandem::party::bob)));
        r.outputs = *p.streamed->outputs();
        r.and_gates = fn.last_run().and_gates;
    } else {
        r.outputs = tandem::eval_plain_bits(*p.circuit, values);
        r.and_gates = p.circuit->stats().and_gates;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_run(o, r, std::cout);
    return 0;
}

/// Runs this party's side over an open session.
run_report run_party(const options& o, program& p, tandem::session& s, const std::vector<std::vector<bool>>& mine,
                     const progress_line& progress) {
    run_report r;
    r.mode = "garbled";
    r.party = s.me();
    if (p.streamed) {
        auto fn = p.streamed->function(o.who, o.segment_ands);
        const std::vector<bool> bits = concatenated(mine);
        s.run(o.who, fn, bits);
        progress.clear();
        if (p.streamed->outputs()) r.outputs = *p.streamed->outputs();
    } else {
        progress.status("running " + std::to_string(p.circuit->stats().and_gates) + " ANDs");
        r.outputs = s.run_bits(o.who, *p.circuit, mine);
        progress.clear();
    }
    r.learnt = r.outputs.has_value();
    r.stats = s.last_run();
    r.setup_seconds = s.setup_seconds();
    r.threads = s.threads();
    r.ipp = s.ipp();
    r.malicious = o.session.security == tandem::security::malicious;
    r.stream = p.streamed != nullptr;
    return r;
}

tandem::session_options session_options(const options& o, tandem::party me, const progress_line& progress) {
    tandem::session_options so = o.session;
    if (o.stream) so.progress = progress.callback(me);
    if (o.local || o.quiet_setup) so.allow_plain_links = true;  // --local: both parties on this host
    if (!o.cert_file.empty()) {
        tandem::net::tls_credentials tls;
        tls.certificate = o.cert_file;
        tls.private_key = o.key_file;
        tls.ca = o.ca_file;
        tls.peer_certificate = o.peer_cert_file;
        tls.peer_name = o.peer_name;
        so.tls = tandem::net::tls_context(tls);  // the files read and checked now: exit status 2 if unusable
    } else if (!o.psk_file.empty())
        so.encrypt_links = tandem::net::link_credentials::pre_shared(tandem::net::load_pre_shared_key(o.psk_file));
    else if (!o.key_file.empty())
        so.encrypt_links = tandem::net::link_credentials::pinned(tandem::net::load_key_pair(o.key_file),
                                                                 tandem::net::load_public_key(o.peer_key_file));
    return so;
}

int cmd_keygen(const options& o) {
    if (o.pre_shared) {
        const std::string path = o.circuit + ".psk";
        tandem::net::save_pre_shared_key(tandem::net::pre_shared_key::generate(), path);
        std::cout << "wrote " << path << ": a pre-shared key; copy it to the peer over a safe channel, and pass it to "
                  << "both parties as --psk " << path << "\n";
    } else {
        const std::string secret = o.circuit + ".key", pub = o.circuit + ".pub";
        tandem::net::save_key_pair(tandem::net::key_pair::generate(), secret, pub);
        std::cout << "wrote " << secret << " (secret: keep it, pass it as --key) and " << pub
                  << " (give it to the peer, who passes it as --peer-key)\n";
    }
    return 0;
}

int cmd_run_party(const options& o) {
    const tandem::party me = *o.me;
    program p = load(o, o.stream);
    const auto mine = parse_inputs(o, p, me);  // checked before anything is sent
    const progress_line progress(o.progress && !o.json, me);
    const tandem::session_options so = session_options(o, me, progress);  // key files: exit status 2
    run_report r;
    try {
        const std::uint16_t port = o.port.value_or(7766);
        std::optional<tandem::session> s;
        if (me == tandem::party::alice) {
            tandem::listener listener(port, o.host.empty() ? "0.0.0.0" : o.host);
            if (!o.quiet_setup)
                std::cerr << "[alice] listening on port " << listener.port() << ", waiting for bob\n" << std::flush;
            s.emplace(listener.accept(me, so));
        } else {
            progress.status("connecting to " + (o.host.empty() ? std::string("127.0.0.1") : o.host) + ":" +
                            std::to_string(port));
            s.emplace(tandem::session::connect(me, o.host.empty() ? "127.0.0.1" : o.host, port, so));
        }
        r = run_party(o, p, *s, mine, progress);
    } catch (const tandem::usage_error& e) {
        progress.clear();
        throw;
    } catch (const std::exception& e) {
        progress.clear();
        std::cerr << "tandem-run (" << tandem::to_string(me) << "): the run failed: " << e.what() << "\n";
        return 1;
    }
    print_run(o, r, std::cout);
    return 0;
}

/// --local: Alice here, Bob a second process of this program over loopback.
int cmd_run_local(const options& o, const char* self) {
    program p = load(o, o.stream);
    const auto all = parse_inputs(o, p, std::nullopt);
    tandem::listener listener(0, "127.0.0.1");
    session_options(o, tandem::party::alice, progress_line(false, tandem::party::alice));  // bad key files: status 2

    std::vector<std::string> args{self, "run", o.circuit, "--party", "bob", "--host", "127.0.0.1", "--port",
                                  std::to_string(listener.port()), "--no-progress", "--bob-of-local"};
    const auto add = [&](std::initializer_list<std::string> a) { args.insert(args.end(), a); };
    if (!o.owners.empty()) {
        std::string list;
        for (auto w : o.owners) list += (list.empty() ? "" : ",") + std::string(tandem::to_string(w));
        add({"--owners", list});
    }
    if (o.format == tandem::bristol::format::fashion) add({"--format", "fashion"});
    if (o.format == tandem::bristol::format::old) add({"--format", "old"});
    add({"--reveal", o.who == tandem::reveal::both ? "both" : o.who == tandem::reveal::alice ? "alice" : "bob"});
    add({"--threads", std::to_string(o.session.threads)});
    add({"--timeout", std::to_string(o.session.timeout.count())});
    if (o.session.ipp) add({"--ipp"});
    if (o.session.security == tandem::security::malicious) add({"--malicious"});
    if (o.session.malicious_ot == tandem::cot_extension::silent) add({"--silent-ot"});
    if (o.stream) add({"--stream", "--segment-ands", std::to_string(o.segment_ands)});
    if (o.session.hash == tandem::garbling_hash::fixed_key) add({"--hash", "fixed-key"});
    if (o.session.scheme == tandem::garbling_scheme::three_halves) add({"--scheme", "three-halves"});
    if (!o.psk_file.empty()) add({"--psk", o.psk_file});
    add({"--output", o.output == output_format::hex ? "hex" : o.output == output_format::dec ? "dec" : "signed"});
    if (o.json) add({"--json"});
    std::vector<std::string> bob_inputs;  // as typed: bob's process checks them again
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
        if (p.inputs[i].owner == tandem::party::bob) bob_inputs.push_back(o.inputs[i]);
    if (!bob_inputs.empty()) {
        args.push_back("--input");
        args.insert(args.end(), bob_inputs.begin(), bob_inputs.end());
    }

    // Bob's report comes back through a pipe, printed after Alice's.
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) throw std::runtime_error("cannot make a pipe for the bob process");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t bob = 0;
    const int spawned = posix_spawn(&bob, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (spawned != 0) {
        close(pipe_fds[0]);
        throw std::runtime_error("cannot start the bob process");
    }

    const progress_line progress(o.progress && !o.json, tandem::party::alice);
    std::optional<run_report> alice;
    std::string failure;
    try {
        tandem::session s = listener.accept(tandem::party::alice, session_options(o, tandem::party::alice, progress));
        alice = run_party(o, p, s, values_of(p, all, tandem::party::alice), progress);
    } catch (const std::exception& e) {
        progress.clear();
        failure = e.what();
    }
    std::string bob_out;
    char buf[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) bob_out.append(buf, static_cast<std::size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(bob, &status, 0);
    const bool bob_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!failure.empty()) {
        std::cerr << "tandem-run (alice): the run failed: " << failure << "\n";
        return 1;
    }
    if (!bob_ok) {
        std::cerr << "tandem-run: the bob process failed (its message is above)\n";
        return 1;
    }
    if (o.json) {
        std::ostringstream a;
        print_run(o, *alice, a);
        std::string alice_json = a.str(), bob_json = bob_out;
        while (!alice_json.empty() && alice_json.back() == '\n') alice_json.pop_back();
        while (!bob_json.empty() && bob_json.back() == '\n') bob_json.pop_back();
        std::cout << "{\"alice\":" << alice_json << ",\"bob\":" << bob_json << "}\n";
    } else {
        print_run(o, *alice, std::cout);
        std::cout << bob_out;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    options o;
    try {
        o = parse(argc, argv);
        if (o.help) {
            std::cout << command_help(o.command);
            return 0;
        }
        if (o.command == "list") return cmd_list(o);
        if (o.command == "keygen") return cmd_keygen(o);
        if (o.command == "stats") return cmd_stats(o);
        if (o.command == "convert") return cmd_convert(o);
        if (o.command == "plain") return cmd_plain(o);
        return o.local ? cmd_run_local(o, argv[0]) : cmd_run_party(o);
    } catch (const bad_argument& e) {
        std::cerr << "tandem-run: " << e.what() << "\n";
        return 2;
    } catch (const tandem::usage_error& e) {
        std::cerr << "tandem-run: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "tandem-run: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace tandem_run

int main(int argc, char** argv) { return tandem_run::main(argc, argv); }

// Two real processes over loopback TCP: the aes, millionaires and mvmul
// examples run as --party alice and --party bob; a peer killed or frozen
// mid-run (also with worker links) makes the other fail with a clear error
// within its deadline.
#include <doctest/doctest.h>

#include <tandem/net/tcp.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;  // POSIX: declared by no header; global, so outside processes_tests

namespace processes_tests {

using namespace std::chrono_literals;

namespace {

/// A child process with stdout and stderr in files.
class process {
public:
    process(const std::vector<std::string>& args, const std::string& tag)
        : out_("/tmp/tandem_test_" + std::to_string(getpid()) + "_" + tag + ".out"),
          err_("/tmp/tandem_test_" + std::to_string(getpid()) + "_" + tag + ".err") {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<std::string> a = args;
        std::vector<char*> argv;
        for (auto& s : a) argv.push_back(s.data());
        argv.push_back(nullptr);
        const int r = posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        REQUIRE_MESSAGE(r == 0, "cannot start " << args[0]);
    }
    ~process() {
        if (pid_ > 0 && !reaped_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        std::remove(out_.c_str());
        std::remove(err_.c_str());
    }

    /// Waits up to `limit` for the exit; returns the exit status, or -1 if it
    /// is still running (then it is killed) or died from a signal.
    int wait(std::chrono::milliseconds limit) {
        const auto end = std::chrono::steady_clock::now() + limit;
        int status = 0;
        while (std::chrono::steady_clock::now() < end) {
            const pid_t r = waitpid(pid_, &status, WNOHANG);
            if (r == pid_) {
                reaped_ = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
            std::this_thread::sleep_for(10ms);
        }
        return -1;
    }
    void signal(int sig) { kill(pid_, sig); }
    /// CPU seconds the process has used so far (/proc/<pid>/stat, utime +
    /// stime); 0 once it is gone.
    double cpu_seconds() const {
        std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
        std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const std::size_t close = all.rfind(')');  // the command name may hold spaces
        if (close == std::string::npos) return 0;
        std::istringstream fields(all.substr(close + 2));
        std::string field;
        unsigned long long utime = 0, stime = 0;
        for (int k = 3; k <= 15 && fields >> field; ++k) {  // field 3 (state) first; 14, 15: utime, stime
            if (k == 14) utime = std::stoull(field);
            if (k == 15) stime = std::stoull(field);
        }
        return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
    /// Waits up to `limit` until the process has used more than `seconds` of CPU.
    bool wait_cpu(double seconds, std::chrono::milliseconds limit) const {
        const auto end = std::chrono::steady_clock::now() + limit;
        while (cpu_seconds() <= seconds) {
            if (std::chrono::steady_clock::now() >= end) return false;
            std::this_thread::sleep_for(10ms);
        }
        return true;
    }
    std::string out() const { return slurp(out_); }
    std::string err() const { return slurp(err_); }

private:
    static std::string slurp(const std::string& path) {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    std::string out_, err_;
    pid_t pid_ = 0;
    bool reaped_ = false;
};

std::string free_port() { return std::to_string(tandem::net::tcp_listener(0, "127.0.0.1").port()); }

/// Established TCP connections accepted on `port` (from /proc/net/tcp).
int accepted_connections(const std::string& port) {
    std::ifstream tcp("/proc/net/tcp");
    std::string line;
    std::getline(tcp, line);  // header
    char hex[8];
    std::snprintf(hex, sizeof hex, ":%04X", static_cast<unsigned>(std::stoi(port)));
    int n = 0;
    while (std::getline(tcp, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state;
        fields >> slot >> local >> remote >> state;
        if (local.size() >= 5 && local.compare(local.size() - 5, 5, hex) == 0 && state == "01") ++n;
    }
    return n;
}

const std::string fips_ciphertext = "69c4e0d86a7b0430d8cdb78070b4c55a";

/// Waits until the session between the two is under way — every link on
/// `port` connected, and both processes past half a CPU-second of work (the
/// set-up takes milliseconds, so the runs have started and a fault lands
/// mid-run) — instead of sleeping for a guess.
void wait_running(const process& a, const process& b, const std::string& port, int links) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    int connected = 0;
    while ((connected = accepted_connections(port)) < links && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    INFO("connections " << connected << " of " << links << "; CPU seconds: alice " << a.cpu_seconds() << ", bob "
                        << b.cpu_seconds());
    REQUIRE(connected >= links);
    REQUIRE(a.wait_cpu(0.5, 60s));
    REQUIRE(b.wait_cpu(0.5, 60s));
}

/// Sends `sig` (SIGKILL or SIGSTOP) to `dead`; the survivor must exit with 1
/// within its 2 s deadline (plus slack), saying what happened.
void stop_and_check_survivor(process& dead, process& survivor, int sig) {
    dead.signal(sig);
    const auto t0 = std::chrono::steady_clock::now();
    const int status = survivor.wait(15s);
    const auto waited = std::chrono::steady_clock::now() - t0;
    INFO("survivor exit status " << status << ", stdout: " << survivor.out() << "\nstderr: " << survivor.err());
    CHECK(status == 1);
    CHECK(waited < 10s);
    if (sig == SIGSTOP) {
        CHECK(survivor.err().find("no progress within 2000 ms") != std::string::npos);
        dead.signal(SIGCONT);
    } else {
        CHECK((survivor.err().find("closed the connection") != std::string::npos ||
               survivor.err().find("reset") != std::string::npos));
    }
}

}  // namespace

TEST_CASE("processes.aes128_fips197_between_two_processes") {
    const std::string port = free_port();
    process alice({TANDEM_EXAMPLE_AES, "--party", "alice", "--host", "127.0.0.1", "--port", port, "--expect",
                   fips_ciphertext},
                  "aes_alice");
    process bob({TANDEM_EXAMPLE_AES, "--party", "bob", "--port", port, "--expect", fips_ciphertext}, "aes_bob");
    const int a = alice.wait(60s), b = bob.wait(60s);
    INFO("alice: " << alice.out() << alice.err());
    INFO("bob: " << bob.out() << bob.err());
    CHECK(a == 0);
    CHECK(b == 0);
    CHECK(alice.out().find("[alice] ciphertext: " + fips_ciphertext) != std::string::npos);
    CHECK(bob.out().find("[bob] ciphertext: " + fips_ciphertext) != std::string::npos);
    CHECK(alice.out().find("AND gates: 6400") != std::string::npos);
}

TEST_CASE("processes.millionaires_between_two_processes") {
    for (auto [x, y, expected] : {std::tuple{"5", "7", "Alice is not richer"}, std::tuple{"-3", "-4", "Alice is richer"}}) {
        const std::string port = free_port();
        process alice({TANDEM_EXAMPLE_MILLIONAIRES, "--party", "alice", "--port", port, "--alice", x}, "m_alice");
        process bob({TANDEM_EXAMPLE_MILLIONAIRES, "--party", "bob", "--host", "127.0.0.1", "--port", port, "--bob", y},
                    "m_bob");
        const int a = alice.wait(60s), b = bob.wait(60s);
        INFO("alice: " << alice.out() << alice.err());
        INFO("bob: " << bob.out() << bob.err());
        CHECK(a == 0);
        CHECK(b == 0);
        CHECK(alice.out().find(expected) != std::string::npos);
        CHECK(bob.out().find(expected) != std::string::npos);
    }
}

TEST_CASE("processes.mismatched_programs_fail_the_handshake") {
    // Alice runs AES, Bob millionaires on the same port: different circuits.
    const std::string port = free_port();
    process alice({TANDEM_EXAMPLE_AES, "--party", "alice", "--port", port, "--timeout", "5000"}, "mm_alice");
    process bob({TANDEM_EXAMPLE_MILLIONAIRES, "--party", "bob", "--port", port, "--timeout", "5000"}, "mm_bob");
    CHECK(alice.wait(30s) == 1);
    CHECK(bob.wait(30s) == 1);
    CHECK(alice.err().find("hold different circuits") != std::string::npos);
    CHECK(bob.err().find("hold different circuits") != std::string::npos);
}

TEST_CASE("processes.killed_or_frozen_peer_fails_the_other_within_its_deadline") {
    // Long sessions (many AES runs) so the fault lands mid-stream.
    for (int sig : {SIGKILL, SIGSTOP}) {
        for (const char* victim : {"bob", "alice"}) {
            INFO("signal " << sig << " to " << victim);
            const std::string port = free_port();
            process alice({TANDEM_EXAMPLE_AES, "--party", "alice", "--port", port, "--repeat", "1000000", "--timeout",
                           "2000"},
                          "k_alice");
            process bob({TANDEM_EXAMPLE_AES, "--party", "bob", "--port", port, "--repeat", "1000000", "--timeout",
                         "2000"},
                        "k_bob");
            wait_running(alice, bob, port, 1);
            stop_and_check_survivor(std::string(victim) == "bob" ? bob : alice,
                                    std::string(victim) == "bob" ? alice : bob, sig);
        }
    }
}

TEST_CASE("processes.killed_peer_with_worker_links_fails_the_other_within_its_deadline") {
    // mvmul with two workers per party: a main connection and a worker link
    // each (with IPP two more, for Bob's world: both parties garble and
    // evaluate); the victim dies or freezes while tables stream on all.
    std::set<std::string> used_ports;
    for (bool ipp : {false, true})
    for (int sig : {SIGKILL, SIGSTOP}) {
        for (const char* victim : {"bob", "alice"}) {
            INFO("signal " << sig << " to " << victim << (ipp ? ", IPP" : ""));
            // A port no earlier scenario used: a frozen victim's connections may linger.
            std::string port = free_port();
            while (!used_ports.insert(port).second) port = free_port();
            const std::vector<std::string> common{"--port", port, "--threads", "2", "--repeat", "1000000",
                                                  "--timeout", "2000"};
            std::vector<std::string> a{TANDEM_EXAMPLE_MVMUL, "--party", "alice"}, b{TANDEM_EXAMPLE_MVMUL, "--party", "bob"};
            a.insert(a.end(), common.begin(), common.end());
            b.insert(b.end(), common.begin(), common.end());
            if (ipp) a.push_back("--ipp"), b.push_back("--ipp");
            process alice(a, "w_alice");
            process bob(b, "w_bob");
            // All links up (the main one and the worker links), then runs under way.
            wait_running(alice, bob, port, ipp ? 4 : 2);
            stop_and_check_survivor(std::string(victim) == "bob" ? bob : alice,
                                    std::string(victim) == "bob" ? alice : bob, sig);
        }
    }
}

TEST_CASE("processes.killed_peer_mid_stream_fails_the_other_within_its_deadline") {
    // A streamed minimum of 4·10^6 values: the victim dies or freezes while
    // segments are being recorded and garbled on both sides.
    std::set<std::string> used_ports;
    for (int sig : {SIGKILL, SIGSTOP}) {
        for (const char* victim : {"bob", "alice"}) {
            INFO("signal " << sig << " to " << victim);
            std::string port = free_port();
            while (!used_ports.insert(port).second) port = free_port();
            process alice({TANDEM_EXAMPLE_MINIMUM, "--party", "alice", "--port", port, "--count", "4000000",
                           "--timeout", "2000"},
                          "s_alice");
            process bob({TANDEM_EXAMPLE_MINIMUM, "--party", "bob", "--port", port, "--count", "4000000", "--timeout",
                         "2000"},
                        "s_bob");
            wait_running(alice, bob, port, 1);  // connected and streaming
            stop_and_check_survivor(std::string(victim) == "bob" ? bob : alice,
                                    std::string(victim) == "bob" ? alice : bob, sig);
        }
    }
}

TEST_CASE("processes.streamed_runs_of_different_sizes_fail_with_both_sizes") {
    const std::string port = free_port();
    process alice({TANDEM_EXAMPLE_MINIMUM, "--party", "alice", "--port", port, "--count", "1000", "--timeout", "5000"},
                  "m_alice");
    process bob({TANDEM_EXAMPLE_MINIMUM, "--party", "bob", "--port", port, "--count", "2000", "--timeout", "5000"},
                "m_bob");
    const int a = alice.wait(30s), b = bob.wait(30s);
    INFO("alice: " << alice.err() << "\nbob: " << bob.err());
    CHECK(a == 1);
    CHECK(b == 1);
    CHECK(alice.err().find("the parties run different functions") != std::string::npos);
    CHECK(alice.err().find("500 x 20 bits") != std::string::npos);
    CHECK(alice.err().find("1000 x 20 bits") != std::string::npos);
}

}  // namespace processes_tests

// tandem_fuzz_seeds: writes the seed corpus of every harness, as honest
// peers produce it, into <dir>/<harness>/ (fuzz/README.md, "Seeds"):
//
//   build/fuzz/fuzz/tandem_fuzz_seeds fuzz/corpus
//
// Two-party seeds are the bytes an honest peer writes on each link in a real
// run over in-memory links, recorded on the peer's side. Both parties draw
// their randomness from fixed seeds (session_options::insecure_seed; fixed
// PRGs for the OT harness), so the harness's party — the same code with the
// same seed — receives exactly these bytes and goes the whole way. A change
// of the wire format makes them stale (still valid inputs, only shallower):
// run this again and commit the result.
#include "circuit_codec.hpp"
#include "../tests/recording_channel.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

using namespace tandem;
namespace fs = std::filesystem;

namespace {

using bytes = std::vector<std::uint8_t>;

/// Forwards to an inner channel and keeps a copy of what this end writes.
using recording_channel = tandem::test::basic_recording_channel<bytes>;

/// Keeps what is written; has nothing to read.
class capture_channel final : public net::channel {
public:
    capture_channel() : net::channel("capture") {}
    bytes written;
    void close() noexcept override {}
    void interrupt() noexcept override {}

protected:
    void write_all(const std::byte* p, std::size_t n, const char*) override {
        const auto* b = reinterpret_cast<const std::uint8_t*>(p);
        written.insert(written.end(), b, b + n);
    }
    std::size_t read_some(std::byte*, std::size_t, std::size_t) override { fail("recv", "nothing to read"); }
};

party other(party p) { return p == party::alice ? party::bob : party::alice; }

class seed_writer {
public:
    explicit seed_writer(fs::path root) : root_(std::move(root)) {}
    void write(const std::string& harness, const std::string& name, const bytes& b) {
        const fs::path dir = root_ / harness;
        fs::create_directories(dir);
        std::ofstream out(dir / name, std::ios::binary);
        out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
        total_ += b.size();
        std::cout << harness << '/' << name << ": " << b.size() << " bytes\n";
    }
    void write(const std::string& harness, const std::string& name, const std::string& text) {
        write(harness, name, bytes(text.begin(), text.end()));
    }
    std::size_t total() const noexcept { return total_; }

private:
    fs::path root_;
    std::size_t total_ = 0;
};

/// Runs both parties of cfg (the party cfg.me and its peer) over in-memory
/// links, set-up only or with one run; returns what the peer wrote on each link.
std::vector<bytes> record_peer(const fuzz::session_config& cfg, bool run) {
    const party peer = other(cfg.me);
    const std::size_t n = 1 + cfg.extra_links();
    std::vector<std::shared_ptr<bytes>> written;
    std::vector<std::unique_ptr<net::channel>> mine, theirs;
    for (std::size_t k = 0; k < n; ++k) {
        auto [x, y] = net::memory_pair();
        written.push_back(std::make_shared<bytes>());
        mine.push_back(std::move(x));
        theirs.push_back(std::make_unique<recording_channel>(std::move(y), written.back()));
    }
    (void)fuzz::compiled_program(cfg.threads);  // compiled before the sessions start their deadlines
    std::optional<session> sessions[2];
    std::exception_ptr errors[2];
    const auto side = [&](party p, std::vector<std::unique_ptr<net::channel>>& links) {
        const int i = static_cast<int>(p);
        try {
            std::size_t next = 1;
            sessions[i].emplace(p, std::move(links[0]), cfg.options(p), [&links, &next] { return std::move(links.at(next++)); });
            if (!run) return;
            session& s = *sessions[i];
            if (cfg.streamed) {
                auto fn = fuzz::streamed_program();
                (void)s.run(cfg.who, fn, p == party::alice ? fuzz::alice_sequence : fuzz::bob_sequence);
            } else {
                const fuzz::program& prog = fuzz::compiled_program(cfg.threads);
                (void)s.run_bits(cfg.who, prog.c, prog.inputs_of(p));
            }
        } catch (...) {
            errors[i] = std::current_exception();
        }
    };
    std::thread t(side, peer, std::ref(theirs));
    side(cfg.me, mine);
    t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<bytes> out;
    for (const auto& w : written) out.push_back(*w);
    return out;
}

std::string session_name(const fuzz::session_config& c) {
    std::string n = std::string(to_string(c.me)) + (c.streamed ? "-streamed" : "-compiled");
    n += "-t" + std::to_string(c.threads);
    if (c.ipp) n += "-ipp";
    if (c.pipeline) n += "-pipelined";
    if (c.who != reveal::both) n += c.who == reveal::alice ? "-to-alice" : "-to-bob";
    if (c.hash == garbling_hash::fixed_key) n += "-fixed-key";
    if (c.aesni) n += "-aesni";
    return n;
}

void session_seeds(seed_writer& out) {
    std::vector<fuzz::session_config> configs;
    for (party me : {party::alice, party::bob}) {
        for (const auto& [streamed, ipp, threads] :
             {std::tuple{false, false, 1u}, std::tuple{false, false, 2u}, std::tuple{false, true, 1u},
              std::tuple{false, true, 2u}, std::tuple{true, false, 1u}, std::tuple{true, false, 2u}}) {
            fuzz::session_config c;
            c.me = me;
            c.streamed = streamed;
            c.ipp = ipp;
            c.threads = threads;
            configs.push_back(c);
        }
        for (bool streamed : {false, true})
            for (reveal who : {reveal::alice, reveal::bob}) {
                fuzz::session_config c;
                c.me = me;
                c.streamed = streamed;
                c.who = who;
                configs.push_back(c);
            }
        fuzz::session_config c;
        c.me = me;
        c.hash = garbling_hash::fixed_key;
        configs.push_back(c);
        for (std::uint32_t threads : {1u, 2u}) {
            fuzz::session_config k;
            k.me = me;
            k.streamed = true;
            k.pipeline = true;
            k.threads = threads;
            configs.push_back(k);
        }
        for (bool streamed : {false, true}) {
            fuzz::session_config k;
            k.me = me;
            k.streamed = streamed;
            k.aesni = true;
            configs.push_back(k);
        }
    }
    for (const fuzz::session_config& c : configs) {
        if (fuzz::session_config::decode(c.encode()).encode() != c.encode())
            throw std::logic_error("session_config does not round-trip");
        out.write("session", session_name(c), fuzz::join_links(c.encode(), record_peer(c, true)));
        if (!c.streamed && c.who == reveal::both && c.hash == garbling_hash::rekeyed && !c.aesni)
            out.write("handshake",
                      std::string(to_string(c.me)) + "-t" + std::to_string(c.threads) + (c.ipp ? "-ipp" : ""),
                      fuzz::join_links(c.encode(), record_peer(c, false)));
    }
}

void run_header_seeds(seed_writer& out) {
    const circuit<>& c = fuzz::compiled_program(1).c;
    const auto header = [&](std::uint8_t config, reveal who, std::uint64_t run, party sender) {
        capture_channel cap;
        detail::run_header(who, c, run, sender).send(cap);
        cap.flush();
        bytes b{config};
        b.insert(b.end(), cap.written.begin(), cap.written.end());
        return b;
    };
    out.write("run_header", "compiled-alice", header(0x00, reveal::both, 0, party::bob));
    out.write("run_header", "compiled-bob", header(0x04, reveal::both, 0, party::alice));
    out.write("run_header", "compiled-to-alice", header(0x10, reveal::alice, 0, party::bob));
    out.write("run_header", "compiled-to-bob", header(0x24, reveal::bob, 0, party::alice));
    out.write("run_header", "compiled-out-of-step", header(0x00, reveal::both, 1, party::bob));
    {
        auto fn = fuzz::streamed_program();
        detail::stream_run_header h;
        h.segment_ands = fn.segment_ands;
        h.inputs = fn.signature();
        capture_channel cap;
        h.send(cap);
        cap.flush();
        bytes b{0x01};
        b.insert(b.end(), cap.written.begin(), cap.written.end());
        out.write("run_header", "streamed", b);
    }
    {
        detail::segment_header h;
        h.index = 2;
        h.digest_hi = 0x0123456789abcdef;
        h.digest_lo = 0xfedcba9876543210;
        h.and_gates = 48;
        h.gates = 130;
        h.alice_bits = 8;
        h.bob_bits = 8;
        h.carried = 9;
        h.opened = 8;
        capture_channel cap;
        h.send(cap);
        cap.flush();
        bytes b{0x02};
        b.insert(b.end(), cap.written.begin(), cap.written.end());
        out.write("run_header", "segment", b);
    }
}

void tables_seeds(seed_writer& out) {
    const circuit<>& c = fuzz::tables_circuit();
    const auto seed = [&]<class Hash>(std::uint8_t config, std::uint16_t a, std::uint16_t b) {
        const std::uint64_t first_and = (config & 4) != 0 ? ~std::uint64_t{0} - 40 : 0;
        prg rng(block(0x7ab1e5, config));
        gc::table_buffer tables;
        const gc::garbling g = [&] {
            gc::encoding enc{rng.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
            rng.fill(enc.zero_labels.data(), enc.zero_labels.size());
            const block start = rng.next();
            gc::garbled_outputs o = gc::garble<Hash>(c, enc, start, tables, first_and);
            return gc::garbling{std::move(o), std::move(enc), start};
        }();
        bytes in{config};
        const auto put = [&](block x) {
            std::uint8_t raw[16];
            x.store(raw);
            in.insert(in.end(), raw, raw + 16);
        };
        put(g.hash_start);
        for (std::uint32_t k = 0; k < 16; ++k) put(g.input.label(k, (a >> k & 1) != 0));
        for (std::uint32_t k = 0; k < 16; ++k) put(g.input.label(16 + k, (b >> k & 1) != 0));
        for (const block& t : tables.tables()) put(t);
        return in;
    };
    out.write("tables", "rekeyed-memory", seed.operator()<rekeyed_hash>(0, 12345, 678));
    out.write("tables", "fixed-key-memory", seed.operator()<fixed_key_hash>(1, 65535, 65535));
    out.write("tables", "rekeyed-channel", seed.operator()<rekeyed_hash>(2, 1, 0));
    out.write("tables", "rekeyed-memory-wrapping-tweaks", seed.operator()<rekeyed_hash>(4, 300, 301));
    out.write("tables", "rekeyed-memory-aesni", seed.operator()<rekeyed_hash>(8, 4321, 8765));
}

/// The bytes an honest peer writes to the OT harness's party for cfg.
bytes ot_peer(const fuzz::ot_config& cfg) {
    auto ends = net::memory_pair();  // (no structured binding: Clang 14 cannot capture one)
    net::channel& x = *ends.first;
    auto written = std::make_shared<bytes>();
    recording_channel peer_ch(std::move(ends.second), written);
    std::exception_ptr errors[2];
    const auto mine = [&] {  // the harness's party, as the harness runs it
        try {
            prg rng(fuzz::ot_seed(cfg.receiver));
            if (!cfg.receiver) {
                ot::cot_sender s(x, fuzz::ot_delta(), &rng);
                for (std::size_t k = 0; k < cfg.extends; ++k) {
                    std::vector<block> q(cfg.sizes[k]);
                    s.extend(x, q);
                }
            } else {
                ot::cot_receiver r(x, &rng);
                for (std::size_t k = 0; k < cfg.extends; ++k) {
                    std::vector<block> t(cfg.sizes[k]);
                    r.extend(x, fuzz::ot_choices(cfg.sizes[k]), t);
                }
            }
        } catch (...) {
            errors[0] = std::current_exception();
        }
    };
    const auto peer = [&] {
        try {
            prg rng(fuzz::ot_seed(!cfg.receiver));
            if (cfg.receiver) {
                ot::cot_sender s(peer_ch, fuzz::ot_delta(), &rng);
                for (std::size_t k = 0; k < cfg.extends; ++k) {
                    std::vector<block> q(cfg.sizes[k]);
                    s.extend(peer_ch, q);
                }
            } else {
                ot::cot_receiver r(peer_ch, &rng);
                for (std::size_t k = 0; k < cfg.extends; ++k) {
                    std::vector<block> t(cfg.sizes[k]);
                    r.extend(peer_ch, fuzz::ot_choices(cfg.sizes[k]), t);
                }
            }
            peer_ch.flush();
        } catch (...) {
            errors[1] = std::current_exception();
        }
    };
    std::thread t(peer);
    mine();
    t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    bytes in = cfg.encode();
    in.insert(in.end(), written->begin(), written->end());
    return in;
}

void ot_seeds(seed_writer& out) {
    const auto make = [](bool receiver, bool packed, std::size_t extends, std::array<std::size_t, 3> sizes) {
        fuzz::ot_config c;
        c.receiver = receiver;
        c.packed = packed;
        c.extends = extends;
        c.sizes = sizes;
        return c;
    };
    out.write("ot", "sender-base-only", ot_peer(make(false, false, 0, {0, 0, 0})));
    out.write("ot", "sender-1-200", ot_peer(make(false, false, 2, {1, 200, 0})));
    out.write("ot", "sender-128-5-1000", ot_peer(make(false, false, 3, {128, 5, 1000})));
    out.write("ot", "receiver-100", ot_peer(make(true, false, 1, {100, 0, 0})));
    out.write("ot", "receiver-packed-9-300", ot_peer(make(true, true, 2, {9, 300, 0})));
}

void circuit_data_seeds(seed_writer& out) {
    using u4 = secure_uint<4>;
    const std::vector<std::pair<std::string, circuit<>>> circuits{
        {"region", fuzz::compiled_program(1).c},
        {"multiply-16", fuzz::tables_circuit()},
        {"awkward-outputs", compile([](u4 a, u4 b) { return std::tuple{a + b, a, u4(9), a + b, ~a, a == b}; },
                                    input<party::alice, u4>, input<party::bob, u4>)},
        {"no-inputs", compile([] { return u4(5); })},
    };
    for (const auto& [name, c] : circuits) {
        fuzz::circuit_encoder e;
        e.encode(c.data());
        bytes b = e.bytes;
        for (std::uint8_t x : {0x5a, 0xc3, 0x0f, 0xf0, 0x99, 0x66, 0x12, 0x34}) b.push_back(x);  // input bits
        out.write("circuit_data", name, b);
    }
}

void bristol_seeds(seed_writer& out) {
    const auto fashion = [](const circuit<>& c) {
        std::stringstream s;
        bristol::write(s, c);
        return s.str();
    };
    using u4 = secure_uint<4>;
    out.write("bristol", "fashion-region-flattened.txt", fashion(fuzz::compiled_program(1).c));
    out.write("bristol", "fashion-awkward-outputs.txt",
              fashion(compile([](u4 a, u4 b) { return std::tuple{a * b, a, u4(9), a * b, a < b}; },
                              input<party::alice, u4>, input<party::bob, u4>)));
    // Gates the writer does not use: MAND, EQ, EQW.
    out.write("bristol", "fashion-mand-eqw.txt", "3 8\n2 2 2\n1 2\n\n2 1 0 2 4 XOR\n4 2 0 1 2 3 5 6 MAND\n1 1 4 7 EQW\n");
    out.write("bristol", "fashion-inv-eq.txt", "3 5\n1 2\n1 2\n\n1 1 0 2 INV\n1 1 1 3 EQ\n1 1 2 4 EQW\n");
    // The old (pre-Fashion) format: "ngates nwires", "n1 n2 n3", then the gates.
    out.write("bristol", "old-adder-2.txt", "4 8\n2 2 2\n\n2 1 0 2 4 AND\n2 1 1 3 5 XOR\n2 1 0 2 6 XOR\n2 1 5 4 7 XOR\n");
    out.write("bristol", "old-and.txt", "1 3\n1 1 1\n\n2 1 0 1 2 AND\n");
    out.write("bristol", "old-xnor.txt", "2 4\n1 1 1\n\n2 1 0 1 2 XOR\n1 1 2 3 INV\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: tandem_fuzz_seeds <corpus dir>   (writes <dir>/<harness>/<seed>)\n";
        return 2;
    }
    try {
        seed_writer out{fs::path(argv[1])};
        bristol_seeds(out);
        run_header_seeds(out);
        tables_seeds(out);
        ot_seeds(out);
        circuit_data_seeds(out);
        session_seeds(out);
        std::cout << "total: " << out.total() << " bytes\n";
    } catch (const std::exception& e) {
        std::cerr << "tandem_fuzz_seeds: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

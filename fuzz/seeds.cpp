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
    (void)cfg.compiled();  // compiled before the sessions start their deadlines
    std::optional<session> sessions[2];
    session_options slow_ok[2] = {cfg.options(party::alice), cfg.options(party::bob)};
    for (session_options& o : slow_ok) o.timeout = std::chrono::seconds(30);  // a sanitized malicious run is slow
    std::exception_ptr errors[2];
    const auto side = [&](party p, std::vector<std::unique_ptr<net::channel>>& links) {
        const int i = static_cast<int>(p);
        try {
            std::size_t next = 1;
            sessions[i].emplace(p, std::move(links[0]), slow_ok[i],
                                [&links, &next](const session::link_id&) { return std::move(links.at(next++)); });
            if (!run) return;
            session& s = *sessions[i];
            if (cfg.streamed) {
                auto fn = fuzz::streamed_program();
                fn.eager = cfg.eager;
                (void)s.run(cfg.who, fn, p == party::alice ? fuzz::alice_sequence : fuzz::bob_sequence);
            } else {
                const fuzz::program& prog = cfg.compiled();
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
    std::string n = std::string(to_string(c.me)) + (c.security == security::malicious ? "-malicious" : "") +
                    (c.streamed ? "-streamed" : "-compiled");
    n += "-t" + std::to_string(c.threads);
    if (c.ipp) n += "-ipp";
    if (c.pipeline) n += "-pipelined";
    if (c.eager) n += "-eager";
    if (c.who != reveal::both) n += c.who == reveal::alice ? "-to-alice" : "-to-bob";
    if (c.hash == garbling_hash::fixed_key) n += "-fixed-key";
    if (c.aesni) n += "-aesni";
    if (c.tickets) n += "-tickets";
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
        {  // resumption's messages in the set-up (fuzz.hpp: Alice's store, Bob's slot)
            fuzz::session_config k;
            k.me = me;
            k.tickets = true;
            configs.push_back(k);
        }
        for (reveal who : {reveal::both, reveal::bob}) {  // garbled as made: windows, their counts, headers after tables
            fuzz::session_config k;
            k.me = me;
            k.streamed = true;
            k.eager = true;
            k.who = who;
            configs.push_back(k);
        }
    }
    // Malicious: authenticated garbling over plain links, compiled runs and a
    // streamed one (its triple reservoir grows from what the first segment
    // needs, so the seed stays small).
    for (party me : {party::alice, party::bob}) {
        for (const auto& [threads, who, streamed] :
             {std::tuple{1u, reveal::both, false}, std::tuple{2u, reveal::both, false},
              std::tuple{1u, reveal::alice, false}, std::tuple{1u, reveal::bob, false}, std::tuple{1u, reveal::both, true}}) {
            fuzz::session_config c;
            c.me = me;
            c.security = security::malicious;
            c.threads = threads;
            c.who = who;
            c.streamed = streamed;
            configs.push_back(c);
        }
    }
    for (const fuzz::session_config& c : configs) {
        const std::vector<std::uint8_t> config = c.encode();
        fuzz::byte_reader back(config.data(), config.size());
        if (fuzz::session_config::decode(back).encode() != config)
            throw std::logic_error("session_config does not round-trip");
        out.write("session", session_name(c), fuzz::join_links(c.encode(), record_peer(c, true)));
        if (!c.streamed && c.who == reveal::both && c.hash == garbling_hash::rekeyed && !c.aesni)
            out.write("handshake",
                      std::string(to_string(c.me)) + (c.security == security::malicious ? "-malicious" : "") + "-t" +
                          std::to_string(c.threads) + (c.ipp ? "-ipp" : "") + (c.tickets ? "-tickets" : ""),
                      fuzz::join_links(c.encode(), record_peer(c, false)));
    }
    // Over silent OT, the set-up alone: its secure-parameter bootstrap and
    // set-up rounds take 1.6 s under the fuzz build's sanitizers, a run's
    // first main batches as long again, too close to scripts/fuzz.sh's 5 s
    // per input for the session harness. fuzz_ot fuzzes the same messages at
    // small rounds; what a session does with the bits is the same either way.
    for (party me : {party::alice, party::bob}) {
        fuzz::session_config c;
        c.me = me;
        c.security = security::malicious;
        c.silent_ot = true;
        out.write("handshake", std::string(to_string(me)) + "-malicious-silent-ot-t1",
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
    out.write("run_header", "fails-compiled-out-of-step", header(0x00, reveal::both, 1, party::bob));
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
        gc::byte_buffer three_halves_tables;
        const gc::garbling g = [&] {
            gc::encoding enc{rng.next() | block(0, 1), std::vector<block>(c.data().input_bits)};
            rng.fill(enc.zero_labels.data(), enc.zero_labels.size());
            const block start = rng.next();
            gc::garbled_outputs o =
                (config & 16) != 0 ? gc::three_halves::garble<Hash>(c, enc, start, three_halves_tables, first_and)
                                   : gc::garble<Hash>(c, enc, start, tables, first_and);
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
        in.insert(in.end(), three_halves_tables.bytes().begin(), three_halves_tables.bytes().end());
        return in;
    };
    out.write("tables", "rekeyed-memory", seed.operator()<rekeyed_hash>(0, 12345, 678));
    out.write("tables", "fixed-key-memory", seed.operator()<fixed_key_hash>(1, 65535, 65535));
    out.write("tables", "rekeyed-channel", seed.operator()<rekeyed_hash>(2, 1, 0));
    out.write("tables", "rekeyed-memory-wrapping-tweaks", seed.operator()<rekeyed_hash>(4, 300, 301));
    out.write("tables", "rekeyed-memory-aesni", seed.operator()<rekeyed_hash>(8, 4321, 8765));
    out.write("tables", "three-halves-rekeyed-memory", seed.operator()<rekeyed_hash>(16, 2024, 7));
    out.write("tables", "three-halves-fixed-key-channel", seed.operator()<fixed_key_hash>(16 | 2 | 1, 65535, 3));
    out.write("tables", "three-halves-rekeyed-channel-wrapping-aesni",
              seed.operator()<rekeyed_hash>(16 | 8 | 4 | 2, 99, 65000));
}

/// The bytes an honest peer writes to the OT harness's party for cfg.
bytes ot_peer(const fuzz::ot_config& cfg) {
    auto ends = net::memory_pair();  // (no structured binding: Clang 14 cannot capture one)
    auto written = std::make_shared<bytes>();
    recording_channel peer_ch(std::move(ends.second), written);
    std::exception_ptr errors[2];
    std::thread t([&] {
        try {
            fuzz::run_ot_party(cfg, !cfg.receiver, peer_ch);
            peer_ch.flush();
        } catch (...) {
            errors[1] = std::current_exception();
        }
    });
    try {
        fuzz::run_ot_party(cfg, cfg.receiver, *ends.first);  // the harness's party, as the harness runs it
    } catch (...) {
        errors[0] = std::current_exception();
    }
    t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    bytes in = cfg.encode();
    in.insert(in.end(), written->begin(), written->end());
    return in;
}

void ot_seeds(seed_writer& out) {
    using kind = fuzz::ot_config::kind;
    const auto make = [](kind which, bool receiver, bool packed, std::size_t extends, std::array<std::size_t, 3> sizes) {
        fuzz::ot_config c;
        c.which = which;
        c.receiver = receiver;
        c.packed = packed;
        c.extends = extends;
        c.sizes = sizes;
        return c;
    };
    out.write("ot", "sender-base-only", ot_peer(make(kind::iknp, false, false, 0, {0, 0, 0})));
    out.write("ot", "sender-1-200", ot_peer(make(kind::iknp, false, false, 2, {1, 200, 0})));
    out.write("ot", "sender-128-5-1000", ot_peer(make(kind::iknp, false, false, 3, {128, 5, 1000})));
    out.write("ot", "receiver-100", ot_peer(make(kind::iknp, true, false, 1, {100, 0, 0})));
    out.write("ot", "receiver-packed-9-300", ot_peer(make(kind::iknp, true, true, 2, {9, 300, 0})));
    out.write("ot", "softspoken-sender-1-300", ot_peer(make(kind::softspoken, false, false, 2, {1, 300, 0})));
    out.write("ot", "softspoken-receiver-packed-200", ot_peer(make(kind::softspoken, true, true, 1, {200, 0, 0})));
    // The check: chunks of 8192 OTs take their challenges one chunk behind (ot/softspoken.hpp).
    out.write("ot", "softspoken-malicious-sender-9000-3", ot_peer(make(kind::softspoken_malicious, false, false, 2, {9000, 3, 0})));
    out.write("ot", "softspoken-malicious-receiver-700", ot_peer(make(kind::softspoken_malicious, true, false, 1, {700, 0, 0})));
    out.write("ot", "softspoken-malicious-receiver-packed-130-8200",
              ot_peer(make(kind::softspoken_malicious, true, true, 2, {130, 8200, 0})));
    out.write("ot", "endemic-base-sender-128", ot_peer(make(kind::endemic_base, false, false, 0, {128, 0, 0})));
    out.write("ot", "endemic-base-receiver-9", ot_peer(make(kind::endemic_base, true, false, 0, {9, 0, 0})));
    // Silent OT (fuzz.hpp, ferret_small): main rounds hand out 12,848
    // COTs, so three extends of 16,383 cross two rounds and many batches.
    out.write("ot", "ferret-sender-set-up-only", ot_peer(make(kind::ferret, false, false, 0, {0, 0, 0})));
    out.write("ot", "ferret-sender-5-16383-16383", ot_peer(make(kind::ferret, false, false, 3, {5, 16383, 16383})));
    out.write("ot", "ferret-receiver-packed-300-9000", ot_peer(make(kind::ferret, true, true, 2, {300, 9000, 0})));
    out.write("ot", "ferret-malicious-sender-16383-16383-100",
              ot_peer(make(kind::ferret_malicious, false, false, 3, {16383, 16383, 100})));
    out.write("ot", "ferret-malicious-receiver-1-2049", ot_peer(make(kind::ferret_malicious, true, false, 2, {1, 2049, 0})));
    out.write("ot", "ferret-random-sender-7000-16000", ot_peer(make(kind::ferret_random, false, false, 2, {7000, 16000, 0})));
    out.write("ot", "ferret-random-receiver-16383-16383",
              ot_peer(make(kind::ferret_random, true, false, 2, {16383, 16383, 0})));
    out.write("ot", "ferret-random-bit1-receiver-3000", ot_peer(make(kind::ferret_random_bit1, true, false, 1, {3000, 0, 0})));
    // The sender's last batch with one bit of its last tree's c flipped (its
    // last 32 bytes are that batch's check answer, the 16 before them c, which
    // gives the leaf at the noise point): the receiver's check must refuse it.
    bytes tampered = ot_peer(make(kind::ferret_malicious, true, false, 1, {2000, 0, 0}));
    tampered[tampered.size() - 32 - 16 + 5] ^= 0x04;
    out.write("ot", "fails-ferret-malicious-receiver-tampered-tree", tampered);
}

/// fuzz_secure_link from a link's start: an honest peer's greeting, handshake
/// message and a few sealed messages, for this side (`initiator`) and kind of
/// credentials (config bit 3).
bytes link_peer(std::uint8_t config) {
    static constexpr std::size_t message_sizes[] = {1, 100, 65535, 0, 3};  // 65,535 and its length: over two records
    std::size_t messages_bytes = 0;
    for (const std::size_t n : message_sizes) messages_bytes += 2 + n;
    const bool initiator = (config & 4) != 0;
    auto ends = net::memory_pair();
    auto written = std::make_shared<bytes>();
    auto peer_raw = std::make_unique<recording_channel>(std::move(ends.second), written);
    std::exception_ptr errors[2];
    std::thread t([&] {
        try {
            auto peer = net::secure_link(std::move(peer_raw), fuzz::link_credentials_of(config, !initiator), !initiator, 0,
                                         fuzz::link_ephemeral(!initiator));
            for (const std::size_t n : message_sizes) {
                std::vector<std::uint8_t> m{static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8)};
                for (std::size_t i = 0; i < n; ++i) m.push_back(fuzz::message_byte(n, i));
                peer->send(m.data(), m.size());
            }
            peer->flush();
        } catch (...) {
            errors[1] = std::current_exception();
        }
    });
    try {  // the harness's side, as the harness runs it; it reads the messages before it closes
        auto mine = net::secure_link(std::move(ends.first), fuzz::link_credentials_of(config, initiator), initiator, 0,
                                     fuzz::link_ephemeral(initiator));
        std::vector<std::uint8_t> all(messages_bytes);
        mine->recv(all.data(), all.size());
    } catch (...) {
        errors[0] = std::current_exception();
    }
    t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    bytes in{config};
    in.insert(in.end(), written->begin(), written->end());
    return in;
}

void secure_link_seeds(seed_writer& out) {
    out.write("secure_link", "link-kk-initiator", link_peer(0x02 | 0x04));
    out.write("secure_link", "link-kk-responder", link_peer(0x02));
    out.write("secure_link", "link-psk-initiator", link_peer(0x02 | 0x04 | 0x08));
    out.write("secure_link", "link-psk-responder", link_peer(0x02 | 0x08));
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
        secure_link_seeds(out);
        circuit_data_seeds(out);
        session_seeds(out);
        std::cout << "total: " << out.total() << " bytes\n";
    } catch (const std::exception& e) {
        std::cerr << "tandem_fuzz_seeds: " << e.what() << '\n';
        return 1;
    }
    return 0;
}

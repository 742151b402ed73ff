// A first two-party program (bench/compile_time.sh): compile a comparison and
// run it between two threads over loopback TCP.
#include <tandem/core.hpp>
#include <tandem/session.hpp>

#include <thread>

int main() {
    using namespace tandem;
    const auto c = compile([](secure_int<32> a, secure_int<32> b) { return a > b; },
                           input<party::alice, secure_int<32>>, input<party::bob, secure_int<32>>);
    listener l(0);  // port 0: the system picks one
    bool bob_learns = false;
    std::thread bob([&] {
        session s = session::connect(party::bob, "127.0.0.1", l.port());
        bob_learns = s.run(c, 7);
    });
    session s = l.accept(party::alice);
    const bool alice_learns = s.run(c, 10);
    bob.join();
    return alice_learns && bob_learns ? 0 : 1;
}

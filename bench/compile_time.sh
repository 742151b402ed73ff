#!/usr/bin/env bash
# How long a new user waits for a first program to compile (issue 29), best
# of N (default 3) per program, `g++ -std=c++20 -O2 -c` as a user's Release
# build would run it, on an otherwise idle machine:
#   plaintext      bench/first_program/plaintext.cpp with <tandem/core.hpp>
#   two-party      bench/first_program/two_party.cpp (<tandem/session.hpp>)
#                  each in compiled mode (-DTANDEM_SEPARATE_COMPILATION, what
#                  tandem::tandem gives) and header-only (tandem::headers)
#   library        src/session.cpp, src/core.cpp and src/net.cpp, compiled once per build
# With a build folder as $1 (default build/release) holding libtandem.a, the
# two-party program is also linked and run, so the figure is of a program
# that works.
#
#   bash bench/compile_time.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
reps=${2:-3}
cxx=${CXX:-g++}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

best() {  # best() <label> <compiler args...>: best wall time of $reps compiles
    local label=$1 best_s="" s
    shift
    for _ in $(seq "$reps"); do
        local t0=$EPOCHREALTIME
        "$cxx" -std=c++20 -O2 -Iinclude "$@"
        s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
        if [[ -z $best_s ]] || awk -v s="$s" -v b="$best_s" 'BEGIN { exit !(s < b) }'; then best_s=$s; fi
    done
    printf '%-42s %6.2f s (best of %d)\n' "$label" "$best_s" "$reps"
}

echo "compiler: $($cxx --version | head -1); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
best "plaintext, compiled mode" -DTANDEM_SEPARATE_COMPILATION -c bench/first_program/plaintext.cpp -o "$out/plain.o"
best "plaintext, header-only" -c bench/first_program/plaintext.cpp -o "$out/plain_h.o"
best "two-party, compiled mode" -DTANDEM_SEPARATE_COMPILATION -c bench/first_program/two_party.cpp -o "$out/tp.o"
best "two-party, header-only" -c bench/first_program/two_party.cpp -o "$out/tp_h.o"
best "library: src/session.cpp (once per build)" -DTANDEM_SEPARATE_COMPILATION -c src/session.cpp -o "$out/lib.o"
best "library: src/core.cpp (once per build)" -DTANDEM_SEPARATE_COMPILATION -c src/core.cpp -o "$out/core.o"
best "library: src/net.cpp (once per build)" -DTANDEM_SEPARATE_COMPILATION -c src/net.cpp -o "$out/net.o"
if [[ -f $build/libtandem.a ]]; then
    "$cxx" -o "$out/plain" "$out/plain.o" "$build/libtandem.a" -lsodium -lssl -lcrypto -ltbb -lpthread
    "$out/plain" && echo "plaintext program (compiled mode) linked against $build/libtandem.a: runs, right"
    "$cxx" -o "$out/tp" "$out/tp.o" "$build/libtandem.a" -lsodium -lssl -lcrypto -ltbb -lpthread
    "$out/tp" && echo "two-party program (compiled mode) linked against $build/libtandem.a: runs, both parties right"
    "$cxx" -o "$out/tp_h" "$out/tp_h.o" -lsodium -lssl -lcrypto -ltbb -lpthread
    "$out/tp_h" && echo "two-party program (header-only): runs, both parties right"
fi

#!/usr/bin/env bash
# tandem's two entry points, from a clean clone on Debian 12:
#   scripts/run.sh example [name [args…]]  build the examples (release preset) and run the
#                                    two-party headline: AES-128, millionaires and MVMul (two
#                                    workers per party), each as two processes over loopback TCP
#                                    (--local); or one example with args
#   scripts/run.sh test [preset]     build everything and run CTest; preset: release (default),
#                                    debug, asan, tsan, aarch64 (cross-built, run under qemu-user;
#                                    see CMakePresets.json)
# Both first install any missing Debian packages (scripts/setup-deps.sh). TANDEM_DEPS_EXTRA
# (space-separated: plots docs mpi) passes through to it and adds python3-matplotlib (bench/plot.py,
# the "plots" tests), doxygen, and Open MPI (the release build then has tandem::mpi and its
# tests), e.g.  TANDEM_DEPS_EXTRA=plots scripts/run.sh test
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

jobs=${TANDEM_JOBS:-2}  # the machines have 2 cores

cmd=${1:-}
(($# > 0)) && shift
case "$cmd" in
  example)
    bash scripts/setup-deps.sh
    cmake --preset release
    cmake --build --preset release -j "$jobs" --target aes millionaires biomatch mexp mvmul minimum edit_distance tandem-run
    if (($# > 0)); then
      name=$1
      shift
      exec "./build/release/examples/$name" "$@"
    fi
    echo "== AES-128: Alice holds the key, Bob the plaintext (FIPS-197 C.1); two processes over TCP"
    ./build/release/examples/aes --local --expect 69c4e0d86a7b0430d8cdb78070b4c55a
    echo "== Millionaires: who is richer, nothing else"
    ./build/release/examples/millionaires --local
    echo "== MVMul 16x16 by 16, 64-bit: one parallel region, two workers (threads and TCP links) per party"
    ./build/release/examples/mvmul --local --threads 2
    echo "== BioMatch, 512 entries: inter-party parallelization, each party garbles half of the distances and evaluates the other half"
    ./build/release/examples/biomatch --local --ipp
    echo "== Streamed: the minimum of 10^6 20-bit numbers and its index, half from each party (41 M ANDs, never stored)"
    ./build/release/examples/minimum --local --count 1000000
    echo "== Streamed: the edit distance of two 4095-symbol binary strings (67 M ANDs, never stored)"
    ./build/release/examples/edit_distance --local --length 4095
    echo "== tandem-run: a library function by name (or any Bristol file), no C++; FIPS-197 B"
    ./build/release/tools/tandem-run run aes128 --local --input 0x2b7e151628aed2a6abf7158809cf4f3c \
      0x3243f6a8885a308d313198a2e0370734
    ;;
  test)
    preset=${1:-release}
    if [[ "$preset" == aarch64 ]]; then
      bash scripts/setup-deps.sh --arm64
    else
      bash scripts/setup-deps.sh
    fi
    start=$SECONDS
    configure=(cmake --preset "$preset")
    if [[ " ${TANDEM_DEPS_EXTRA:-} " == *" mpi "* && "$preset" == release ]]; then
      configure+=(-DTANDEM_MPI=ON)  # the optional tandem::mpi component and its tests
    fi
    "${configure[@]}"
    cmake --build --preset "$preset" -j "$jobs"
    echo "== $preset: configure and build took $((SECONDS - start)) s"
    start=$SECONDS
    ctest --preset "$preset" -j "$jobs"
    echo "== $preset: ctest took $((SECONDS - start)) s"
    ;;
  *)
    usage
    ;;
esac

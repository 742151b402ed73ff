#!/usr/bin/env bash
# tandem's two entry points, from a clean clone on Debian 12:
#   scripts/run.sh example [args…]   build and run examples/millionaires (release preset)
#   scripts/run.sh test [preset]     build everything and run CTest; preset: release (default),
#                                    debug, asan, tsan (see CMakePresets.json)
# Both first install any missing Debian packages (scripts/setup-deps.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

jobs=${TANDEM_JOBS:-2}  # the machines have 2 cores

cmd=${1:-}
(($# > 0)) && shift
case "$cmd" in
  example)
    bash scripts/setup-deps.sh
    cmake --preset release
    cmake --build --preset release -j "$jobs" --target millionaires
    exec ./build/release/examples/millionaires "$@"
    ;;
  test)
    preset=${1:-release}
    bash scripts/setup-deps.sh
    cmake --preset "$preset"
    cmake --build --preset "$preset" -j "$jobs"
    ctest --preset "$preset" -j "$jobs"
    ;;
  *)
    usage
    ;;
esac

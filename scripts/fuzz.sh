#!/usr/bin/env bash
# Fuzzes tandem with its libFuzzer harnesses (fuzz/README.md):
#   scripts/fuzz.sh NAME SECONDS   build fuzz_NAME if needed (preset fuzz, build/fuzz) and
#                                  fuzz it for SECONDS, starting from its seeds and kept findings
#   scripts/fuzz.sh all SECONDS    every harness marked "on" in fuzz/harnesses.txt, SECONDS each, in turn
#   scripts/fuzz.sh budget SECONDS the same harnesses sharing SECONDS in all, evenly (CI: 120),
#                                  after running each over its seeds (ctest -L fuzz: every
#                                  honest seed must complete; a stale corpus fails)
#   scripts/fuzz.sh list           the harnesses and whether "all" and "budget" run them
# Exits non-zero if any harness found something: a crash, a sanitizer report, a leak, an input
# slower than TANDEM_FUZZ_TIMEOUT, memory beyond TANDEM_FUZZ_RSS_MB, or a wrong answer. The
# input that did it is kept under build/fuzz/runs/NAME/artifacts/; see fuzz/README.md for
# turning it into a regression test. Environment: TANDEM_JOBS (build jobs, default 2),
# TANDEM_FUZZ_TIMEOUT (seconds per input, default 5), TANDEM_FUZZ_RSS_MB (default 2048).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

jobs=${TANDEM_JOBS:-2}
timeout=${TANDEM_FUZZ_TIMEOUT:-5}
rss_mb=${TANDEM_FUZZ_RSS_MB:-2048}
build=build/fuzz

# harnesses [on|all]: names from fuzz/harnesses.txt (those marked "on", or all of them).
harnesses() {
  awk -v which="$1" '/^[a-z_]+[ \t]+(on|off)/ { if (which == "all" || $2 == "on") print $1 }' fuzz/harnesses.txt
}

build_harnesses() {
  if [[ ! -f $build/build.ninja ]]; then
    cmake --preset fuzz
  fi
  local targets=()
  for name in "$@"; do targets+=("fuzz_$name"); done
  cmake --build "$build" -j "$jobs" --target "${targets[@]}"
}

# fuzz_one NAME SECONDS: returns libFuzzer's exit status (0: nothing found).
fuzz_one() {
  local name=$1 seconds=$2
  local work=$build/runs/$name
  mkdir -p "$work/corpus" "$work/artifacts"
  # The repository's seeds and kept findings start the run; libFuzzer adds what it finds
  # to this scratch copy (kept between runs), never to fuzz/.
  local f
  for f in fuzz/corpus/"$name"/* fuzz/regressions/"$name"/*; do
    [[ -f $f ]] || continue
    case $f in
      fuzz/regressions/*) cp -f "$f" "$work/corpus/regression-$(basename "$f")" ;;
      *) cp -f "$f" "$work/corpus/" ;;
    esac
  done
  echo "== fuzz_$name for ${seconds} s (log: $work/log)"
  local status=0
  ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}" \
    "$build/fuzz/fuzz_$name" "$work/corpus" \
      -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" -detect_leaks=1 \
      -artifact_prefix="$work/artifacts/" -print_final_stats=1 >"$work/log" 2>&1 || status=$?
  grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec)' "$work/log" || true
  if ((status != 0)); then
    echo "!! fuzz_$name found something (exit $status):"
    grep -E 'ERROR|FINDING|SUMMARY|Test unit written|uncaught exception|what\(\)' "$work/log" | head -20 || true
  fi
  return "$status"
}

cmd=${1:-}
case "$cmd" in
  list)
    awk '/^[a-z_]+[ \t]+(on|off)/ { print $1 ($2 == "on" ? "" : "  (built only: not in \"all\")") }' fuzz/harnesses.txt
    ;;
  all | budget)
    (($# == 2)) && [[ $2 =~ ^[0-9]+$ ]] || usage
    mapfile -t names < <(harnesses on)
    seconds=$2
    if [[ $cmd == budget ]]; then
      # The build is not part of the budget; each harness gets at least 10 s.
      seconds=$(($2 / ${#names[@]}))
      ((seconds >= 10)) || seconds=10
    fi
    build_harnesses "${names[@]}"
    # First every harness over its seeds and kept findings (CTest label fuzz):
    # each honest seed must complete, so a corpus the protocol left behind
    # fails here instead of fuzzing nothing but the handshake's version check.
    echo "== every harness over its seeds (each honest seed must complete)"
    (cd "$build" && ctest -L '^fuzz$' --output-on-failure -j "$jobs")
    failed=()
    for name in "${names[@]}"; do
      fuzz_one "$name" "$seconds" || failed+=("$name")
    done
    if ((${#failed[@]} > 0)); then
      echo "!! findings in: ${failed[*]}"
      exit 1
    fi
    echo "== no findings in ${names[*]}"
    ;;
  "" | -h | --help)
    usage
    ;;
  *)
    (($# == 2)) || usage
    if ! harnesses all | grep -qx "$cmd"; then
      echo "scripts/fuzz.sh: no harness '$cmd' (scripts/fuzz.sh list)" >&2
      exit 2
    fi
    [[ $2 =~ ^[0-9]+$ ]] || usage
    build_harnesses "$cmd"
    fuzz_one "$cmd" "$2"
    ;;
esac

#!/usr/bin/env bash
# tests/mpi/pair.sh BIN NP_ALICE NP_BOB [ALICE_ARGS] [BOB_ARGS] [EXPECT] [PATTERN]
# — one tandem::mpi test: Alice and Bob as two MPI jobs (mpirun,
# oversubscribed: this machine may have fewer cores than ranks), each rank of
# one linked to the other's rank of its number over loopback TCP. Passes if
# both jobs exit 0 — or, with EXPECT alice-dies (bob-dies), if that party's
# job fails (one of its ranks is killed or stopped; mpirun or MPI_Abort ends
# the job), its output matches PATTERN (grep -E) if given, and the other
# party's job exits 0. EXPECT alice-recovers: Alice's job runs with
# `mpirun --enable-recovery` (a rank that dies does not end the job), her
# output must match PATTERN (her other ranks report the lost rank) and Bob's
# job exit 0; how her mpirun exits is Open MPI's.
set -euo pipefail
bin=$1 np_a=$2 np_b=$3 args_a=${4:-} args_b=${5:-} expect=${6:-} pattern=${7:-}
if ((EUID == 0)); then  # Open MPI refuses root unless told (the CI machines run as root)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Below 32768, where Linux hands out ephemeral ports: a random port there could be
# some other test's connection (seen once: "Address already in use").
port=$((20000 + RANDOM % 12000))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # NP PARTY ARGS [MPIRUN_OPTION]
  # Each job its own session directory: Open MPI puts it under $TMPDIR, and two
  # jobs of one user starting together in the shared /tmp/ompi.HOST.UID race —
  # one removed it while the other made its pid.N inside (orte_init failed,
  # seen once in CI).
  mkdir "$out/$2.tmp"
  # shellcheck disable=SC2086
  TMPDIR="$out/$2.tmp" timeout 120 mpirun ${4:-} --oversubscribe --bind-to none -np "$1" "$bin" --party "$2" --port "$port" $3 >"$out/$2" 2>&1
}
recovery=
[[ $expect == alice-recovers ]] && recovery=--enable-recovery
run "$np_a" alice "$args_a" "$recovery" & alice=$!
run "$np_b" bob "$args_b" & bob=$!
a=0 b=0
wait "$alice" || a=$?
wait "$bob" || b=$?
cat "$out/alice" "$out/bob"
echo "pair.sh: alice's job exited $a, bob's $b (expected: ${expect:-both 0}${pattern:+, the failing output matching $pattern})"
matches() { [[ -z $pattern ]] || grep -Eq "$pattern" "$out/$1"; }
case $expect in
  alice-dies) ((a != 0 && a != 124 && b == 0)) && matches alice ;;
  bob-dies) ((b != 0 && b != 124 && a == 0)) && matches bob ;;
  alice-recovers) ((a != 124 && b == 0)) && [[ -n $pattern ]] && matches alice ;;
  *) ((a == 0 && b == 0)) ;;
esac

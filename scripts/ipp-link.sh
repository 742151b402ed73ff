#!/usr/bin/env bash
# scripts/ipp-link.sh — bench_ipp over a shaped link (paper 001 Table 5).
#
#   scripts/ipp-link.sh [--build DIR] [--link RATE:RTT_MS ...] [-- bench_ipp options]
#
# Needs root (network namespaces). For each link (default: 100mbit:100 and
# 1gbit:1) it creates two network namespaces joined by a veth pair, shapes
# both directions to RATE with RTT_MS of round trip, runs Alice of
# `bench_ipp --case link` in one namespace and Bob in the other (each pinned
# to a core of its own), prints Alice's figures, and removes everything again
# (also when interrupted).
#
# Shaping: tc netem (delay RTT/2 and RATE on each end of the veth pair). On
# kernels without netem (the development VM's has tbf but no netem) the rate
# is shaped by tc tbf on each end and the delay added by a user-space delay
# line in Bob's namespace (`bench_ipp --relay`: every connection forwarded to
# Alice, each direction held back RTT/2), which the script says when it does.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$here/build/release"
links=()
bench_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --link) links+=("$2"); shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "ipp-link.sh: unknown argument '$1' (bench_ipp options go after --)" >&2; exit 2 ;;
  esac
done
[[ ${#links[@]} -gt 0 ]] || links=("100mbit:100" "1gbit:1")
bench="$build/bench/bench_ipp"
if [[ $(id -u) -ne 0 ]]; then echo "ipp-link.sh: needs root (ip netns, tc)" >&2; exit 2; fi
if [[ ! -x "$bench" ]]; then
  echo "ipp-link.sh: $bench not found; build it first: cmake --preset release && cmake --build build/release --target bench_ipp" >&2
  exit 2
fi
for tool in ip tc; do command -v "$tool" > /dev/null || { echo "ipp-link.sh: '$tool' missing (apt-get install iproute2)" >&2; exit 2; }; done

ns_a="tandem_ipp_a_$$"
ns_b="tandem_ipp_b_$$"
addr_a=10.231.0.1
addr_b=10.231.0.2
port=7791
relay_port=7792
pids=()

# Bits per second of a tc rate such as 100mbit or 1gbit.
bits_per_second() {
  local r="${1%bit}" n unit
  n="${r%%[kmgKMG]*}"
  unit="${r#"$n"}"
  case "$unit" in
    k|K) echo $((n * 1000)) ;;
    m|M) echo $((n * 1000000)) ;;
    g|G) echo $((n * 1000000000)) ;;
    *) echo "$n" ;;
  esac
}

cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  ip netns del "$ns_a" 2> /dev/null || true
  ip netns del "$ns_b" 2> /dev/null || true
}
trap cleanup EXIT INT TERM

for link in "${links[@]}"; do
  rate="${link%%:*}"
  rtt="${link##*:}"
  half_us=$((rtt * 1000 / 2))
  cleanup
  pids=()
  ip netns add "$ns_a"
  ip netns add "$ns_b"
  ip link add veth_tnd_a netns "$ns_a" type veth peer name veth_tnd_b netns "$ns_b"
  ip -n "$ns_a" addr add "$addr_a/24" dev veth_tnd_a
  ip -n "$ns_b" addr add "$addr_b/24" dev veth_tnd_b
  for ns in "$ns_a" "$ns_b"; do ip -n "$ns" link set lo up; done
  ip -n "$ns_a" link set veth_tnd_a up
  ip -n "$ns_b" link set veth_tnd_b up

  # Queue of about one round trip at the rate (at least 1000 packets).
  bps=$(bits_per_second "$rate")
  queue=$(( bps * (rtt > 10 ? rtt : 10) / 8000 / 1500 ))
  queue=$(( queue > 1000 ? queue : 1000 ))
  how=""
  if tc -n "$ns_a" qdisc add dev veth_tnd_a root netem delay "${half_us}us" rate "$rate" limit "$queue" 2> /dev/null; then
    tc -n "$ns_b" qdisc add dev veth_tnd_b root netem delay "${half_us}us" rate "$rate" limit "$queue"
    how="tc netem: delay ${half_us} us and rate $rate on each end"
    bob_host="$addr_a"; bob_port="$port"
  else
    burst=$(( bps / 8 / 250 ))  # 4 ms of traffic
    burst=$(( burst > 65536 ? burst : 65536 ))
    for end in "$ns_a veth_tnd_a" "$ns_b veth_tnd_b"; do
      set -- $end
      tc -n "$1" qdisc add dev "$2" root tbf rate "$rate" burst "$burst" latency "$((rtt > 10 ? rtt : 10))ms"
    done
    ip netns exec "$ns_b" "$bench" --relay "$relay_port" "$addr_a" "$port" --delay-us "$half_us" &
    pids+=($!)
    how="no netem in this kernel: tc tbf rate $rate (burst $burst B) on each end, $half_us us each way by bench_ipp --relay in Bob's namespace"
    bob_host=127.0.0.1; bob_port="$relay_port"
  fi
  name="${rate}-${rtt}ms"
  echo "== link $name: veth pair between namespaces $ns_a and $ns_b; $how" >&2

  ip netns exec "$ns_b" "$bench" --case link --party bob --host "$bob_host" --port "$bob_port" --pin 1 \
    --link "$name" "${bench_args[@]}" &
  bob=$!
  pids+=($bob)
  status=0
  ip netns exec "$ns_a" "$bench" --case link --party alice --host "$addr_a" --port "$port" --pin 0 \
    --link "$name" "${bench_args[@]}" || status=$?
  wait "$bob" || status=$?
  if [[ $status -ne 0 ]]; then echo "ipp-link.sh: bench_ipp failed on link $name (status $status)" >&2; exit "$status"; fi
done

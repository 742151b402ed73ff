#!/usr/bin/env bash
# Installs the Debian packages tandem needs to build and test, only those missing.
# Idempotent: when everything is installed it changes nothing and needs no network.
#
#   scripts/setup-deps.sh [--plots] [--docs]
#     --plots  also python3-matplotlib: bench/plot.py and the CTest label "plots"
#     --docs   also doxygen: the API documentation
# The environment variable TANDEM_DEPS_EXTRA (space-separated: plots docs) adds
# the same extras, so that scripts/run.sh can pass them through.
set -euo pipefail

# clang and its runtimes: the sanitizer builds and the libFuzzer harnesses (CI);
# valgrind: the secret-independence test.
packages=(g++ cmake ninja-build pkg-config libboost-dev libtbb-dev libasio-dev doctest-dev libsodium-dev
          clang libclang-rt-14-dev valgrind)

extras=()
read -r -a extras <<< "${TANDEM_DEPS_EXTRA:-}"
for arg in "$@"; do
  case "$arg" in
    --plots) extras+=(plots) ;;
    --docs) extras+=(docs) ;;
    *) echo "setup-deps: unknown argument '$arg' (usage: scripts/setup-deps.sh [--plots] [--docs])" >&2; exit 2 ;;
  esac
done
for extra in "${extras[@]}"; do
  case "$extra" in
    plots) package=python3-matplotlib ;;
    docs) package=doxygen ;;
    *) echo "setup-deps: unknown extra '$extra' in TANDEM_DEPS_EXTRA (plots, docs)" >&2; exit 2 ;;
  esac
  [[ " ${packages[*]} " == *" $package "* ]] || packages+=("$package")
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup-deps: all ${#packages[@]} packages present"
  exit 0
fi

install_cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if ((EUID != 0)); then
  echo "setup-deps: missing packages: ${missing[*]}" >&2
  echo "setup-deps: run as root:  apt-get update && ${install_cmd[*]}" >&2
  exit 1
fi

echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
"${install_cmd[@]}"

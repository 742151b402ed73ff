#!/usr/bin/env bash
# Installs the Debian packages tandem needs to build and test, only those missing.
# Idempotent: when everything is installed it changes nothing and needs no network.
#
#   scripts/setup-deps.sh [--plots] [--docs] [--arm64] [--mpi]
#     --plots  also python3-matplotlib: bench/plot.py and the CTest label "plots"
#     --docs   also doxygen: the API documentation
#     --arm64  also the AArch64 cross build (the "aarch64" preset): Debian's
#              g++-aarch64-linux-gnu, qemu-user to run its tests, and the arm64
#              libsodium-dev (adds the dpkg architecture arm64)
#     --mpi    also Open MPI (libopenmpi-dev, openmpi-bin): the optional tandem::mpi
#              component (CMake -DTANDEM_MPI=ON) and its tests
# The environment variable TANDEM_DEPS_EXTRA (space-separated: plots docs arm64 mpi)
# adds the same extras, so that scripts/run.sh can pass them through.
set -euo pipefail

# clang and its runtimes: the sanitizer builds and the libFuzzer harnesses (CI);
# valgrind: the secret-independence test.
packages=(g++ cmake ninja-build pkg-config libboost-dev doctest-dev libsodium-dev libasio-dev libssl-dev libtbb-dev
          clang libclang-rt-14-dev valgrind)

extras=()
read -r -a extras <<< "${TANDEM_DEPS_EXTRA:-}"
for arg in "$@"; do
  case "$arg" in
    --plots) extras+=(plots) ;;
    --docs) extras+=(docs) ;;
    --arm64) extras+=(arm64) ;;
    --mpi) extras+=(mpi) ;;
    *) echo "setup-deps: unknown argument '$arg' (usage: scripts/setup-deps.sh [--plots] [--docs] [--arm64] [--mpi])" >&2; exit 2 ;;
  esac
done
arm64=0
for extra in "${extras[@]}"; do
  case "$extra" in
    plots) extra_packages=(python3-matplotlib) ;;
    docs) extra_packages=(doxygen) ;;
    arm64) extra_packages=(g++-aarch64-linux-gnu qemu-user libsodium-dev:arm64 libssl-dev:arm64 libtbb-dev:arm64); arm64=1 ;;
    mpi) extra_packages=(libopenmpi-dev openmpi-bin) ;;
    *) echo "setup-deps: unknown extra '$extra' in TANDEM_DEPS_EXTRA (plots, docs, arm64, mpi)" >&2; exit 2 ;;
  esac
  for package in "${extra_packages[@]}"; do
    [[ " ${packages[*]} " == *" $package "* ]] || packages+=("$package")
  done
done

# Installed for the host: a package named without an architecture counts
# only in the host's (or "all"), not as another architecture's copy (arm64).
native=$(dpkg --print-architecture)
missing=()
for p in "${packages[@]}"; do
  if [[ "$p" == *:* ]]; then
    query=$p want_arch=${p#*:}
  else
    query=$p want_arch=$native
  fi
  if ! dpkg-query -W -f='${Architecture} ${Status}\n' "$query" 2>/dev/null |
      grep -Eq "^($want_arch|all) install ok installed$"; then
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
if ((arm64)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64  # the arm64 build of libsodium, beside the host's
fi
apt-get update
"${install_cmd[@]}"

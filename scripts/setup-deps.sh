#!/usr/bin/env bash
# Installs the Debian packages tandem needs to build and test, only those missing.
# Idempotent: when everything is installed it changes nothing and needs no network.
set -euo pipefail

# clang and its runtimes: the sanitizer builds and the libFuzzer harnesses (CI);
# valgrind: the secret-independence test.
packages=(g++ cmake ninja-build pkg-config libboost-dev libtbb-dev libasio-dev doctest-dev libsodium-dev
          clang libclang-rt-14-dev valgrind)

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

#!/usr/bin/env bash
# Installs the Debian 12 packages agent-dispatch needs to build and test.
# Checks first; runs apt-get update and install only for what is missing.
# Idempotent: a second run prints that everything is present and changes nothing.
# Usage: tools/setup.sh [--fuzz | --test]
#   --fuzz  also clang and its libFuzzer runtime (tools/fuzz.sh)
#   --test  also what the tests look through as a person would: tmux (the
#           terminal board, tests/e2e/board_tmux_test.sh), chromium (the
#           dashboard page in headless Chromium, tests/e2e/dashboard_test.cpp)
#           and time (/usr/bin/time: the benchmarks' wall time and peak RSS,
#           tests/e2e/bench_scripts_test.sh)
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git
  libcaf-dev nlohmann-json3-dev libspdlog-dev libcli11-dev
  googletest libgtest-dev libgmock-dev libssl-dev libcpp-httplib-dev libre2-dev
  libsimdjson-dev
  # The package (packaging/, docs/packaging.md): help2man makes the man pages
  # at build time; cpack needs file and dpkg-shlibdeps (dpkg-dev); the
  # package tests run lintian, man and systemd-analyze (systemd).
  help2man file dpkg-dev lintian man-db systemd
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-14-dev)
fi
if [ "${1:-}" = "--test" ]; then
  packages+=(tmux chromium time)
fi

missing=()
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    :
  else
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: need root to install packages (run as root or with sudo)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "setup: done"

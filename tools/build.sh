#!/usr/bin/env bash
# Configures and builds agent-dispatch into a build folder (default: build).
# Usage: tools/build.sh [BUILD_DIR] [--target NAME]... [extra cmake -D options...]
#   --target NAME  build only NAME (and what it needs); repeatable. Without
#                  it everything is built, the test suite included.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true
targets=()
cmake_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --target) targets+=(--target "$2"); shift 2 ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja "${cmake_args[@]}"
fi
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"

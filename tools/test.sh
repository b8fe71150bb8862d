#!/usr/bin/env bash
# Installs what is missing (Debian packages, and the pinned real agent CLIs
# the contract tests drive: tests/contract/install-clis.sh), builds, and runs
# the whole test suite, the contract label included.
# Usage: tools/test.sh [--sanitize] [BUILD_DIR]
#   --sanitize  build with AddressSanitizer + UndefinedBehaviorSanitizer
#               (default folder build-asan instead of build) and run every
#               label but `contract`: the real CLIs are the same programs
#               under either build, and the plain run has driven them
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=OFF
if [ "${1:-}" = "--sanitize" ]; then
  sanitize=ON
  shift
fi
default_dir=build
[ "$sanitize" = ON ] && default_dir=build-asan
build_dir=${1:-$default_dir}

bash tools/setup.sh
bash tests/contract/install-clis.sh
# Line tables only (-g1): file and line in every backtrace, and a third
# less compile time than full debug information on this code base.
bash tools/build.sh "$build_dir" -DAD_SANITIZE=$sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
labels=()
[ "$sanitize" = ON ] && labels=(-LE contract)
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "${labels[@]}"

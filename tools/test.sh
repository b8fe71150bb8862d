#!/usr/bin/env bash
# Installs what is missing (Debian packages, and the pinned real agent CLIs
# the contract tests drive: tests/contract/install-clis.sh), builds with
# AddressSanitizer + UndefinedBehaviorSanitizer, and runs the whole test
# suite, the contract label included, under both sanitizers: a sanitizer
# report fails the test that caused it. One sanitized build rather than a
# plain one and a sanitized one: on 2 cores each full build takes about
# 20 minutes, and the sanitized suite checks all the plain one does.
# Usage: tools/test.sh [--plain] [BUILD_DIR]
#   --plain     build without sanitizers (default folder build-plain
#               instead of build-asan), for a quicker local round
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=ON
if [ "${1:-}" = "--plain" ]; then
  sanitize=OFF
  shift
fi
default_dir=build-asan
[ "$sanitize" = OFF ] && default_dir=build-plain
build_dir=${1:-$default_dir}

bash tools/setup.sh --test
bash tests/contract/install-clis.sh
# Line tables only (-g1): file and line in every backtrace, and a third
# less compile time than full debug information on this code base.
bash tools/build.sh "$build_dir" -DAD_SANITIZE=$sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"

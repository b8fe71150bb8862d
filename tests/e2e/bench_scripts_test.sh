#!/usr/bin/env bash
# The run-loop and restart benchmarks as a person runs them, at a size that
# takes seconds: each exits 0 when every task ends archived, prints its
# figures, and leaves nothing in its temporary folder (TMPDIR points at a
# folder of this test's own, which must be empty afterwards).
#
# Usage: tests/e2e/bench_scripts_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: bench_scripts_test.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
left_in_tmp() { find "$tmp/bench-tmp" -mindepth 1 -maxdepth 1 | head -5; }
mkdir -p "$tmp/bench-tmp"

rc=0
TMPDIR="$tmp/bench-tmp" bash "$here/bench/run/run_bench.sh" --build "$build" \
  --sizes 12 --shapes chain --parallel 2 >"$tmp/run.log" 2>&1 || rc=$?
cat "$tmp/run.log"
[ "$rc" -eq 0 ] || fail "run_bench.sh exited $rc"
grep -Eq '^ +12  chain   dispatch ' "$tmp/run.log" || fail "run_bench.sh printed no dispatcher row"
grep -Eq '^ +12  chain   ninja ' "$tmp/run.log" || fail "run_bench.sh printed no ninja row"
grep -Eq '^ +12  chain +24 ' "$tmp/run.log" || fail "run_bench.sh printed no goals row with 24 attempts"
[ -z "$(left_in_tmp)" ] || fail "run_bench.sh left $(left_in_tmp) behind"

rc=0
TMPDIR="$tmp/bench-tmp" bash "$here/bench/run/restart_bench.sh" --build "$build" \
  --tasks 12 --kill-after 6 --parallel 2 >"$tmp/restart.log" 2>&1 || rc=$?
cat "$tmp/restart.log"
[ "$rc" -eq 0 ] || fail "restart_bench.sh exited $rc"
grep -q 'first admission' "$tmp/restart.log" || fail "restart_bench.sh printed no first admission"
[ -z "$(left_in_tmp)" ] || fail "restart_bench.sh left $(left_in_tmp) behind"
echo "bench scripts: both exited 0 and left nothing behind"

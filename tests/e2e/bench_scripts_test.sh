#!/usr/bin/env bash
# The run-loop and restart benchmarks as a person runs them, at a size that
# takes seconds: each exits 0 when every task ends archived, prints its
# figures, and leaves nothing in its temporary folder (TMPDIR points at a
# folder of this test's own, which must be empty afterwards). The restart
# benchmark also restarts its killed state twice (--repeat) and leaves no
# process running. The alternating timer too: its means, its refusals,
# nothing left behind.
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
  --tasks 12 --kill-after 6 --parallel 2 --repeat 2 >"$tmp/restart.log" 2>&1 || rc=$?
cat "$tmp/restart.log"
[ "$rc" -eq 0 ] || fail "restart_bench.sh exited $rc"
for i in 1 2; do
  grep -Eq "^restart $i of 2: first admission [0-9.]+ s" "$tmp/restart.log" ||
    fail "restart_bench.sh --repeat 2 printed no time for restart $i"
done
grep -Eq '^restarts to first admission: median [0-9.]+ s over 2' "$tmp/restart.log" ||
  fail "restart_bench.sh --repeat 2 printed no median"
grep -Eq '^restart to first admission: [0-9.]+ s' "$tmp/restart.log" ||
  fail "restart_bench.sh printed no first admission for its final restart"
[ -z "$(left_in_tmp)" ] || fail "restart_bench.sh left $(left_in_tmp) behind"
[ -z "$(pgrep -f -- "$tmp/bench-tmp/" || true)" ] || fail "restart_bench.sh left processes running"
rc=0
bash "$here/bench/run/restart_bench.sh" --build "$build" --repeat two >"$tmp/restart-usage.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "wants a number of restarts, not 'two'" "$tmp/restart-usage.log" ||
  fail "restart_bench.sh --repeat two: exit $rc, $(cat "$tmp/restart-usage.log")"
alt="$here/bench/run/alternate.sh"
rc=0
TMPDIR="$tmp/bench-tmp" bash "$alt" 2 "true" "sleep 0.2" >"$tmp/alt.log" 2>&1 || rc=$?
cat "$tmp/alt.log"
[ "$rc" -eq 0 ] || fail "alternate.sh exited $rc"
awk '$1 == "A" && $2 < 0.2 { a = 1 } $1 == "B" && $2 >= 0.2 { b = 1 } END { exit !(a && b) }' \
  "$tmp/alt.log" || fail "alternate.sh's means do not tell a 0.2 s command from an instant one"
grep -q '^load before ' "$tmp/alt.log" || fail "alternate.sh printed no load average"
[ -z "$(left_in_tmp)" ] || fail "alternate.sh left $(left_in_tmp) behind"
rc=0
bash "$alt" 2 "true" >"$tmp/alt-usage.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q 'usage: alternate.sh N' "$tmp/alt-usage.log" ||
  fail "alternate.sh with one command: exit $rc, $(cat "$tmp/alt-usage.log")"
rc=0
TMPDIR="$tmp/bench-tmp" bash "$alt" 1 "true" "exit 3" >"$tmp/alt-fail.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q 'command B failed on run 1: exit 3' "$tmp/alt-fail.log" ||
  fail "alternate.sh with a failing command: exit $rc, $(cat "$tmp/alt-fail.log")"
[ -z "$(left_in_tmp)" ] || fail "alternate.sh left $(left_in_tmp) behind after a failure"
echo "bench scripts: all exited as they should and left nothing behind"

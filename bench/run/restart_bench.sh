#!/usr/bin/env bash
# How fast a restarted dispatcher gets back to work: a run over N tasks is
# killed with SIGKILL once `--kill-after` attempts have finished (the state
# then holds that many tasks' records and the agents that were running go on
# under their keepers), and a new `run` over the same workspace is started.
# Prints the time from its start to its first admission (its first
# task_started line), the tasks started before the kill and the load average.
# The restarted run is then left to finish, and every task must end archived.
# Not part of ctest.
#
# Usage: bench/run/restart_bench.sh [--build DIR] [--tasks 10000]
#          [--kill-after 5000] [--parallel 8] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
tasks=10000
kill_after=
parallel=8
keep=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --kill-after) kill_after=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "restart_bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
kill_after=${kill_after:-$tasks}
build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "restart_bench: $build/$tool is missing; build it first" >&2; exit 2; }
done
if [ -n "$keep" ]; then
  work=$keep
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/ad-restart-bench.XXXXXX")
fi
pid=
# Under `set -e` a failing last command of an && list ends the trap too:
# every step here is an if, so the work folder goes whatever is left.
cleanup() {
  if [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
  fi
  if [ -z "$keep" ]; then
    rm -rf "$work"
  fi
  return 0
}
trap cleanup EXIT

"$build/workspace-gen" --tasks "$tasks" --shape random --seed 1 --out "$work/ws" --fast-policy >/dev/null
run() {
  ( cd "$work/ws" &&
    exec env PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$work/state" NO_COLOR=1 \
      "$build/agent-dispatch" run --workspace "$work/ws" --max-parallel "$parallel" ) >"$1" 2>&1 &
  pid=$!
}

echo "first run: $tasks tasks, SIGKILL after $kill_after finished attempts"
run "$work/first.log"
while kill -0 "$pid" 2>/dev/null; do
  finished=$(grep -c ' attempt_finished ' "$work/first.log" || true)
  [ "$finished" -ge "$kill_after" ] && break
  sleep 0.5
done
kill -KILL "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=
in_state=$(grep -c ' task_started ' "$work/first.log" || true)

l0=$(cut -d' ' -f1 /proc/loadavg)
t0=$(date +%s.%N)
run "$work/second.log"
first_admission=
for _ in $(seq 6000); do
  now=$(date +%s.%N)
  if [ -z "$first_admission" ] && grep -q ' task_started ' "$work/second.log"; then
    first_admission=$(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%.2f", b - a }')
  fi
  [ -n "$first_admission" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
l1=$(cut -d' ' -f1 /proc/loadavg)
wait "$pid" || echo "restart_bench: the restarted run exited $? (log: $work/second.log)" >&2
pid=
done_tasks=$(find "$work/ws/agent-task/archive" -name complete.log | wc -l)

echo "tasks started before the kill: $in_state"
echo "restart to first admission: ${first_admission:-none} s (goal: under 1 s)"
echo "tasks archived at the end: $done_tasks of $tasks"
echo "load average: $l0 before the restart, $l1 after the first admission ($(nproc) cores)"
[ "$done_tasks" = "$tasks" ]

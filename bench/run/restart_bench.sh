#!/usr/bin/env bash
# How fast a restarted dispatcher gets back to work: a run over N tasks is
# killed with SIGKILL once `--kill-after` attempts have finished (the state
# then holds that many tasks' records and the agents that were running go on
# under their keepers), and a new `run` over the same workspace is started.
# Prints the time from its start to its first admission (its first
# task_started line), the tasks started before the kill and the load average.
# The restarted run is then left to finish, and every task must end archived.
# With --repeat R the killed state is first kept aside (once the keepers of
# the killed run have ended) and restarted R times, each time from that copy
# put back at the same path (a workspace's identity is its path): each of
# these restarts is interrupted at its first admission and its keepers are
# stopped; their times and median are printed before the final restart.
# Not part of ctest.
#
# Usage: bench/run/restart_bench.sh [--build DIR] [--tasks 10000]
#          [--kill-after 5000] [--parallel 8] [--repeat 0] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
tasks=10000
kill_after=
parallel=8
repeat=0
keep=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --kill-after) kill_after=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "restart_bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
kill_after=${kill_after:-$tasks}
case $repeat in
  ''|*[!0-9]*) echo "restart_bench: --repeat wants a number of restarts, not '$repeat'" >&2; exit 2 ;;
esac
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

# The keepers of runs over this work folder: their --attempt-dir is in its
# state. A keeper stops its agent on SIGTERM.
keepers_left() { pgrep -f -- "$work/state/" >/dev/null 2>&1; }
wait_keepers() {
  for _ in $(seq "$1"); do
    keepers_left || return 0
    sleep 0.1
  done
  return 1
}

# Starts a run over the state and sets first_admission: the seconds from its
# start to its first task_started line ("" when there is none).
restart() {
  l0=$(cut -d' ' -f1 /proc/loadavg)
  local t0 now
  t0=$(date +%s.%N)
  run "$1"
  first_admission=
  for _ in $(seq 6000); do
    now=$(date +%s.%N)
    if grep -q ' task_started ' "$1"; then
      first_admission=$(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%.3f", b - a }')
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.005
  done
  l1=$(cut -d' ' -f1 /proc/loadavg)
}

if [ "$repeat" -gt 0 ]; then
  wait_keepers 600 || echo "restart_bench: keepers of the killed run still run after 60 s" >&2
  mkdir -p "$work/killed"
  cp -a "$work/ws" "$work/state" "$work/killed/"
  times=()
  for i in $(seq "$repeat"); do
    rm -rf "$work/ws" "$work/state"
    cp -a "$work/killed/ws" "$work/killed/state" "$work/"
    sync
    restart "$work/repeat-$i.log"
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
    pkill -TERM -f -- "$work/state/" 2>/dev/null || true
    wait_keepers 100 || pkill -KILL -f -- "$work/state/" 2>/dev/null || true
    echo "restart $i of $repeat: first admission ${first_admission:-none} s (load $l0 -> $l1)"
    times+=("${first_admission:-999}")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  echo "restarts to first admission: median $median s over $repeat (goal: under 1 s)"
  rm -rf "$work/ws" "$work/state"
  cp -a "$work/killed/ws" "$work/killed/state" "$work/"
fi

restart "$work/second.log"
wait "$pid" || echo "restart_bench: the restarted run exited $? (log: $work/second.log)" >&2
pid=
done_tasks=$(find "$work/ws/agent-task/archive" -name complete.log | wc -l)

echo "tasks started before the kill: $in_state"
echo "restart to first admission: ${first_admission:-none} s (goal: under 1 s)"
echo "tasks archived at the end: $done_tasks of $tasks"
echo "load average: $l0 before the restart, $l1 after the first admission ($(nproc) cores)"
[ "$done_tasks" = "$tasks" ]

#!/usr/bin/env bash
# What an idle dispatcher costs: P agents run and say nothing for a while
# (the simulator's `silence` action), and the dispatcher's own CPU time
# (/proc/<pid>/stat: user + system of all its threads) is read at the start
# and the end of a window in which every agent is silent. Prints the share of
# one core it used, its threads, and its context switches per second (each
# wake-up of an idle worker thread is one). The load average is printed
# beside it. Not part of ctest.
#
# Usage: bench/run/idle_bench.sh [--build DIR] [--agents 8] [--window 60] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
agents=8
window=60
keep=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --agents) agents=$2; shift 2 ;;
    --window) window=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "idle_bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "idle_bench: $build/$tool is missing; build it first" >&2; exit 2; }
done
if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/ad-idle-bench.XXXXXX")
fi
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -z "$keep" ]; then
    rm -rf "$work"
  fi
  return 0
}
trap cleanup EXIT

# Independent tasks (no dependencies), one agent each, every agent silent for
# the window and a margin on both sides, then a normal worker run.
silence=$((window + 30))
"$build/workspace-gen" --tasks "$agents" --shape random --max-deps 0 --seed 1 \
  --out "$work/ws" --fast-policy >/dev/null
cat >"$work/scenario.json" <<EOF
{"defaults": {"worker": [{"kind": "silence", "seconds": $silence}, {"kind": "work"}]}}
EOF
"$build/agent-sim" validate-scenario "$work/scenario.json" >/dev/null

( cd "$work/ws" &&
  exec env PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$work/state" NO_COLOR=1 \
    AGENT_SIM_SCENARIO="$work/scenario.json" \
    "$build/agent-dispatch" run --workspace "$work/ws" --max-parallel "$agents" ) \
  >"$work/dispatch.log" 2>&1 &
pid=$!

# Wait (at most 60 s) until every agent has started.
for _ in $(seq 600); do
  started=$(grep -c ' attempt_started ' "$work/dispatch.log" || true)
  [ "$started" -ge "$agents" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "idle_bench: the dispatcher ended early (log: $work/dispatch.log)" >&2; exit 1; }
  sleep 0.1
done
[ "$started" -ge "$agents" ] || { echo "idle_bench: only $started of $agents agents started in 60 s" >&2; exit 1; }
sleep 2

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
switches() {
  cat /proc/"$pid"/task/*/status 2>/dev/null |
    awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s }'
}
hz=$(getconf CLK_TCK)
l0=$(cut -d' ' -f1 /proc/loadavg)
c0=$(ticks); s0=$(switches); t0=$(date +%s.%N)
sleep "$window"
c1=$(ticks); s1=$(switches); t1=$(date +%s.%N)
l1=$(cut -d' ' -f1 /proc/loadavg)
threads=$(ls /proc/"$pid"/task | wc -l)
lines=$(wc -l <"$work/dispatch.log")

awk -v c0="$c0" -v c1="$c1" -v s0="$s0" -v s1="$s1" -v t0="$t0" -v t1="$t1" -v hz="$hz" \
    -v a="$agents" -v th="$threads" -v l0="$l0" -v l1="$l1" -v cores="$(nproc)" 'BEGIN {
  secs = t1 - t0
  printf "agents silent: %d   window: %.1f s   dispatcher threads: %d\n", a, secs, th
  printf "dispatcher CPU: %.2f s = %.2f%% of one core (goal: under 0.5%%)\n",
         (c1 - c0) / hz, (c1 - c0) / hz / secs * 100
  printf "context switches: %.0f per second\n", (s1 - s0) / secs
  printf "load average: %s before, %s after (%d cores)%s\n", l0, l1, cores,
         (l0 > cores || l1 > cores) ? "  BUSY: the share is inflated" : ""
}'
echo "event lines during the run so far: $lines (log: $work/dispatch.log)"

#!/usr/bin/env bash
# What going remote costs: the same workspace of N trivial tasks (the
# simulator does its work at once) run by one process
# (`agent-dispatch run --max-parallel P`) and by a coordinator with four
# worker nodes on loopback (`agent-dispatch node`, P/4 slots each, and
# `run --node ... --max-parallel P`). Prints for each the wall time, the
# CPU time per task (coordinator and its children; for the remote run the
# nodes' CPU too, their agents and keepers included) and the mean attempt
# time the coordinator saw (attempt_started to attempt_finished), then the
# per-attempt overhead of going remote, with the load average before and
# after. Not part of ctest.
#
# Usage: bench/run/distributed_bench.sh [--build DIR] [--tasks 1000]
#          [--parallel 8] [--seed 1] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
tasks=1000
parallel=8
seed=1
keep=

while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "distributed_bench: unknown option $1" >&2; exit 2 ;;
  esac
done

build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "distributed_bench: $build/$tool is missing; build it first" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "distributed_bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
if [ $((parallel % 4)) -ne 0 ]; then
  echo "distributed_bench: --parallel must be a multiple of 4 (four nodes)" >&2
  exit 2
fi

if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/ad-dist-bench.XXXXXX")
fi
node_pids=()
cleanup() {
  for p in "${node_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

archived() { find "$1/agent-task/archive" -name complete.log 2>/dev/null | wc -l; }

# Mean attempt_started -> attempt_finished of one task and role, in ms.
attempt_ms() {
  awk '
    function ms(t,   parts) {
      split(substr(t, 12, 12), parts, ":")
      return (parts[1] * 3600 + parts[2] * 60 + parts[3]) * 1000
    }
    $2 == "attempt_started" { start[$3 " " $4] = ms($1) }
    $2 == "attempt_finished" && (($3 " " $4) in start) {
      d = ms($1) - start[$3 " " $4]; if (d >= 0) { sum += d; count++ }
      delete start[$3 " " $4]
    }
    END { printf "%.1f", count ? sum / count : 0 }' "$1"
}

# CPU seconds of a live process and its reaped children (its keepers and,
# through them, its agents), from /proc/PID/stat.
cpu_of() {
  awk -v hz="$(getconf CLK_TCK)" '{
    sub(/^.*\) /, "")   # fields after the command name start at state (3)
    printf "%.2f", ($12 + $13 + $14 + $15) / hz }' "/proc/$1/stat"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
export PATH="$build/sim-bin:$PATH" NO_COLOR=1

for mode in local remote; do
  dir=$work/$mode
  rm -rf "$dir"
  mkdir -p "$dir"
  "$build/workspace-gen" --tasks "$tasks" --shape random --seed "$seed" \
    --out "$dir/ws" --fast-policy >/dev/null
  export XDG_STATE_HOME=$dir/state
  args=(run --workspace "$dir/ws" --max-parallel "$parallel")
  if [ "$mode" = remote ]; then
    node_pids=()
    for i in 1 2 3 4; do
      port=$(( 20000 + (RANDOM % 20000) ))
      "$build/agent-dispatch" node --listen "127.0.0.1:$port" --name "n$i" \
        --slots $((parallel / 4)) >"$dir/node$i.log" 2>&1 &
      node_pids+=($!)
      args+=(--node "127.0.0.1:$port")
    done
    for i in 1 2 3 4; do
      for _ in $(seq 100); do
        grep -q "listening on" "$dir/node$i.log" 2>/dev/null && break
        sleep 0.1
      done
      grep -q "listening on" "$dir/node$i.log" ||
        { echo "distributed_bench: node $i did not start:" >&2; cat "$dir/node$i.log" >&2; exit 1; }
    done
  fi
  /usr/bin/time -o "$dir/run.time" -f '%e %M %U %S' \
    "$build/agent-dispatch" "${args[@]}" >"$dir/run.log" 2>&1 || {
    echo "distributed_bench: the $mode run failed (log: $dir/run.log)" >&2
    tail -5 "$dir/run.log" >&2
    exit 1
  }
  if [ "$mode" = remote ]; then
    # The nodes have reaped every keeper by now.
    node_cpu=0
    for p in "${node_pids[@]}"; do
      node_cpu=$(awk -v a="$node_cpu" -v b="$(cpu_of "$p")" 'BEGIN { printf "%.2f", a + b }')
    done
    for p in "${node_pids[@]}"; do kill "$p"; done
    wait "${node_pids[@]}" 2>/dev/null || true
    node_pids=()
  fi
  done_tasks=$(archived "$dir/ws")
  [ "$done_tasks" = "$tasks" ] ||
    { echo "distributed_bench: the $mode run archived $done_tasks of $tasks tasks" >&2; exit 1; }
done

read -r l_s _ l_user l_sys < <(tail -1 "$work/local/run.time")
read -r r_s _ r_user r_sys < <(tail -1 "$work/remote/run.time")
r_nodes=$node_cpu
l_att=$(attempt_ms "$work/local/run.log")
r_att=$(attempt_ms "$work/remote/run.log")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

printf 'N=%d tasks (random DAG), --max-parallel %d; remote: 4 loopback nodes x %d slots\n' \
  "$tasks" "$parallel" $((parallel / 4))
printf '%-7s %9s %15s %13s\n' mode wall_s cpu_ms/task attempt_ms
awk -v s="$l_s" -v u="$l_user" -v y="$l_sys" -v n="$tasks" -v a="$l_att" \
  'BEGIN { printf "%-7s %9.2f %15.2f %13.1f\n", "local", s, (u + y) * 1000 / n, a }'
awk -v s="$r_s" -v u="$r_user" -v y="$r_sys" -v c="$r_nodes" -v n="$tasks" -v a="$r_att" \
  'BEGIN { printf "%-7s %9.2f %15.2f %13.1f\n", "remote", s, (u + y + c) * 1000 / n, a }'
awk -v l="$l_att" -v r="$r_att" -v ls="$l_s" -v rs="$r_s" -v n="$tasks" 'BEGIN {
  printf "remote overhead: %+.1f ms per attempt (attempt time), %+.2f ms per task (wall)\n",
         r - l, (rs - ls) * 1000 / n }'
echo "load average before: $load_before; after: $load_after"

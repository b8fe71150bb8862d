#!/usr/bin/env bash
# The cost of `run --trace` on the run-loop workload: workspace-gen writes a
# fresh workspace for every run; `agent-dispatch run --max-parallel P` works
# it without and with --trace, alternating, for R rounds. Prints, per run,
# wall seconds, CPU seconds (user+sys), peak RSS, and for traced runs the
# trace's records and size and the time and peak RSS of replaying it; then
# the means and the overhead. Not part of ctest.
#
# Usage: bench/run/trace_bench.sh [--build DIR] [--tasks 200] [--shape random]
#          [--parallel 8] [--rounds 3] [--seed 1] [--time-scale 0.01]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
tasks=200
shape=random
parallel=8
rounds=3
seed=1
scale=0.01

while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --shape) shape=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --time-scale) scale=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "trace_bench: unknown option $1" >&2; exit 2 ;;
  esac
done

build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "trace_bench: $build/$tool is missing; build it first" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "trace_bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ad-trace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run MODE ROUND: one dispatcher run; prints "wall cpu rss_kb".
run() {
  local mode=$1 round=$2 dir=$work/$1-$2 trace=()
  "$build/workspace-gen" --tasks "$tasks" --shape "$shape" --seed "$seed" \
    --out "$dir/ws" --fast-policy >/dev/null
  [ "$mode" = traced ] && trace=(--trace "$dir/run.jsonl")
  ( cd "$dir/ws" &&
    env PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$dir/state" NO_COLOR=1 \
      AGENT_SIM_TIME_SCALE="$scale" /usr/bin/time -o "$dir/time" -f '%e %U %S %M' \
      "$build/agent-dispatch" run --workspace "$dir/ws" --max-parallel "$parallel" \
      "${trace[@]}" >"$dir/log" 2>&1 ) || {
    echo "trace_bench: the $mode run of round $round failed (log: $dir/log)" >&2
    tail -5 "$dir/log" >&2
    exit 1
  }
  awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$dir/time"
}

printf '%-9s %5s %7s %7s %8s %8s %8s %9s %10s\n' \
  mode round wall_s cpu_s rss_MB records trace_MB replay_s replay_MB
sums=$work/sums
: >"$sums"
for round in $(seq 1 "$rounds"); do
  for mode in plain traced; do
    read -r wall cpu rss < <(run "$mode" "$round")
    records=- size=- replay_s=- replay_mb=-
    if [ "$mode" = traced ]; then
      file=$work/$mode-$round/run.jsonl
      records=$(($(wc -l <"$file") - 1))
      size=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { printf "%.1f", b / 1048576 }')
      /usr/bin/time -o "$work/replay.time" -f '%e %M' \
        "$build/agent-dispatch" replay "$file" >"$work/replay.log" 2>&1 || {
        echo "trace_bench: replay of round $round diverged:" >&2
        cat "$work/replay.log" >&2
        exit 1
      }
      read -r replay_s replay_kb <"$work/replay.time"
      replay_mb=$(awk -v k="$replay_kb" 'BEGIN { printf "%.0f", k / 1024 }')
    fi
    echo "$mode $wall $cpu $rss" >>"$sums"
    printf '%-9s %5d %7.2f %7.2f %8.1f %8s %8s %9s %10s\n' "$mode" "$round" "$wall" "$cpu" \
      "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$records" "$size" "$replay_s" "$replay_mb"
  done
done
awk '{ w[$1] += $2; c[$1] += $3; r[$1] += $4; n[$1]++ }
  END {
    printf "mean plain:  wall %.2f s, cpu %.2f s, rss %.1f MB\n", w["plain"] / n["plain"], c["plain"] / n["plain"], r["plain"] / n["plain"] / 1024
    printf "mean traced: wall %.2f s, cpu %.2f s, rss %.1f MB\n", w["traced"] / n["traced"], c["traced"] / n["traced"], r["traced"] / n["traced"] / 1024
    printf "overhead: wall %+.1f%%, cpu %+.1f%%, rss %+.1f MB\n",
      (w["traced"] / w["plain"] - 1) * 100, (c["traced"] / c["plain"] - 1) * 100,
      (r["traced"] - r["plain"]) / n["plain"] / 1024
  }' "$sums"

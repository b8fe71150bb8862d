#!/usr/bin/env bash
# Two commands timed alternately: A, B, A, B, ... N times each, then the mean
# wall time, CPU time (user + system, the command and its children) and peak
# RSS of each, with the load average before and after. Alternating is what
# makes two builds comparable on a machine whose speed drifts: running all of
# A and then all of B compares the machine's two moments as much as the
# builds. Each command is one string run by bash (quote it as one argument);
# its output is discarded. Not part of ctest.
#
# Usage: bench/run/alternate.sh N "command A" "command B"
# Example, over a case kept by run_bench.sh --keep KEEP (OLD and NEW builds):
#   cd KEEP/random-10000/ws-dispatch && XDG_STATE_HOME=KEEP/random-10000/state \
#     bench/run/alternate.sh 10 "OLD/agent-dispatch status" "NEW/agent-dispatch status"
set -euo pipefail

if [[ $# -ge 1 && ( $1 == -h || $1 == --help ) ]]; then
  sed -n '2,13p' "$0"
  exit 0
fi
if [[ $# -ne 3 || ! $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "alternate: usage: alternate.sh N \"command A\" \"command B\" (N a positive count; see --help)" >&2
  exit 2
fi
runs=$1
commands=("$2" "$3")
if [[ ! -x /usr/bin/time ]]; then
  echo "alternate: /usr/bin/time is missing (apt-get install time)" >&2
  exit 2
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
load_before=$(cut -d' ' -f1 /proc/loadavg)
for ((i = 1; i <= runs; i++)); do
  for side in 0 1; do
    label=$([[ $side == 0 ]] && echo A || echo B)
    if ! /usr/bin/time -f "$label %e %U %S %M" -a -o "$out" bash -c "${commands[$side]}" > /dev/null 2>&1; then
      echo "alternate: command $label failed on run $i: ${commands[$side]}" >&2
      exit 1
    fi
  done
  printf 'run %d of %d done\r' "$i" "$runs" >&2
done
printf '\n' >&2
load_after=$(cut -d' ' -f1 /proc/loadavg)

echo "A: ${commands[0]}"
echo "B: ${commands[1]}"
awk -v n="$runs" '
  { wall[$1] += $2; cpu[$1] += $3 + $4; rss[$1] += $5 }
  END {
    printf "%-4s %10s %10s %14s\n", "side", "wall_s", "cpu_s", "peak_rss_MB"
    for (s = 0; s < 2; s++) {
      k = s == 0 ? "A" : "B"
      printf "%-4s %10.3f %10.3f %14.1f\n", k, wall[k] / n, cpu[k] / n, rss[k] / n / 1024
    }
    printf "B/A wall %.3f, cpu %.3f (means of %d runs each)\n", wall["B"] / wall["A"], cpu["B"] / cpu["A"], n
  }' "$out"
cores=$(nproc)
busy=$(awk -v a="$load_before" -v b="$load_after" -v c="$cores" 'BEGIN { print (a > c || b > c) ? "BUSY (load > cores)" : "" }')
echo "load before $load_before, after $load_after, $cores cores${busy:+: $busy}"

#!/usr/bin/env bash
# The run loop against ninja: for each size and DAG shape, workspace-gen writes
# two identical workspaces; `agent-dispatch run --max-parallel P` works one and
# `ninja -jP` runs the generated build.ninja (the same DAG, the same simulator
# commands: worker, then review) over the other. The simulator does its file
# work instantly. Prints wall time, ratio, per-task overhead, peak RSS, the
# CPU time per task of each side (user + system, children included: for the
# dispatcher its keepers and agents, for ninja its agents) and the mean
# attempt time the dispatcher saw (attempt_started to attempt_finished: the
# keeper's start, the agent, the end read back). Not part of ctest.
#
# Usage: bench/run/run_bench.sh [--build DIR] [--sizes "100 1000 5000"]
#          [--shapes "chain fanout random"] [--parallel 8] [--seed 1] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
sizes="100 1000 5000"
shapes="chain fanout random"
parallel=8
seed=1
keep=

while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "run_bench: unknown option $1" >&2; exit 2 ;;
  esac
done

build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "run_bench: $build/$tool is missing; build it first" >&2; exit 2; }
done
command -v ninja >/dev/null || { echo "run_bench: ninja is not installed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run_bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

if [ -n "$keep" ]; then
  work=$keep
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/ad-run-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

# Tasks archived with complete.log under a workspace.
archived() { find "$1/agent-task/archive" -name complete.log 2>/dev/null | wc -l; }

printf '%6s  %-7s %12s %9s %7s %15s %13s %15s %13s %13s %11s\n' \
  N shape dispatcher_s ninja_s ratio overhead_ms/task peak_rss_MB rss_KB/task \
  cpu_ms/task ninja_cpu_ms attempt_ms
status=0
for n in $sizes; do
  for shape in $shapes; do
    case_dir=$work/$shape-$n
    rm -rf "$case_dir"
    mkdir -p "$case_dir"
    "$build/workspace-gen" --tasks "$n" --shape "$shape" --seed "$seed" \
      --out "$case_dir/ws-dispatch" --fast-policy >/dev/null
    "$build/workspace-gen" --tasks "$n" --shape "$shape" --seed "$seed" \
      --out "$case_dir/ws-ninja" --ninja "$case_dir/ninja/build.ninja" \
      --agent-sim "$build/agent-sim" >/dev/null

    # The dispatcher, with the simulator first on PATH and its own state home.
    ( cd "$case_dir/ws-dispatch" &&
      env PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$case_dir/state" NO_COLOR=1 \
        /usr/bin/time -o "$case_dir/dispatch.time" -f '%e %M %U %S' \
        "$build/agent-dispatch" run --workspace "$case_dir/ws-dispatch" \
        --max-parallel "$parallel" >"$case_dir/dispatch.log" 2>&1 ) || {
      echo "run_bench: agent-dispatch failed for $shape N=$n (log: $case_dir/dispatch.log)" >&2
      tail -5 "$case_dir/dispatch.log" >&2
      status=1
    }
    ( cd "$case_dir/ninja" &&
      /usr/bin/time -o "$case_dir/ninja.time" -f '%e %M %U %S' \
        ninja -j "$parallel" >"$case_dir/ninja.log" 2>&1 ) || {
      echo "run_bench: ninja failed for $shape N=$n (log: $case_dir/ninja.log)" >&2
      status=1
    }
    done_d=$(archived "$case_dir/ws-dispatch")
    done_n=$(archived "$case_dir/ws-ninja")
    if [ "$done_d" != "$n" ] || [ "$done_n" != "$n" ]; then
      echo "run_bench: $shape N=$n archived $done_d tasks with agent-dispatch, $done_n with ninja" >&2
      status=1
    fi
    read -r d_s d_kb d_user d_sys < <(tail -1 "$case_dir/dispatch.time")
    read -r n_s _ n_user n_sys < <(tail -1 "$case_dir/ninja.time")
    # Mean attempt time: attempt_started to attempt_finished of the same
    # task and role, from the run's event lines ("<ISO time> <event> <task> role=<r> ...").
    attempt_ms=$(awk '
      function ms(t,   parts) {
        split(substr(t, 12, 12), parts, ":")
        return (parts[1] * 3600 + parts[2] * 60 + parts[3]) * 1000
      }
      $2 == "attempt_started" { start[$3 " " $4] = ms($1) }
      $2 == "attempt_finished" && (($3 " " $4) in start) {
        d = ms($1) - start[$3 " " $4]; if (d >= 0) { sum += d; count++ }
        delete start[$3 " " $4]
      }
      END { printf "%.1f", count ? sum / count : 0 }' "$case_dir/dispatch.log")
    awk -v n="$n" -v shape="$shape" -v d="$d_s" -v j="$n_s" -v kb="$d_kb" \
        -v am="$attempt_ms" \
        -v du="$d_user" -v ds="$d_sys" -v nu="$n_user" -v ns="$n_sys" 'BEGIN {
      ratio = (j > 0) ? d / j : 0
      printf "%6d  %-7s %12.2f %9.2f %7.2f %15.2f %13.1f %15.1f %13.2f %13.2f %11.1f\n",
             n, shape, d, j, ratio, (d - j) * 1000 / n, kb / 1024, kb / n,
             (du + ds) * 1000 / n, (nu + ns) * 1000 / n, am }'
  done
done
exit $status

#!/usr/bin/env bash
# The run loop against ninja: for each size and DAG shape, workspace-gen writes
# two identical workspaces; `agent-dispatch run --max-parallel P` works one and
# `ninja -jP` runs the generated build.ninja (the same DAG, the same simulator
# commands: worker, then review) over the other. The simulator does its file
# work instantly, so the difference is scheduling, state and process overhead.
#
# Prints, for both sides of each case: wall seconds, user and system CPU
# seconds of everything the side ran (the dispatcher with its keepers and
# agents; ninja with its agents), peak RSS of the main process, and then the
# ratios and the dispatcher's own CPU per attempt: (its side's CPU - ninja's
# side's CPU) / attempts, an attempt being one worker or review run. The CPU
# of a side is read from a cgroup v2 made for it when the hierarchy is
# writable (everything the side starts is counted, keepers included, whoever
# reaps them); otherwise from /usr/bin/time, which misses the keepers (they
# are not the dispatcher's children) and says so. The load average before and
# after each case is printed beside it, with a warning when it exceeds the
# number of cores: the figures of a busy machine measure the machine.
# `run --dry-run` before each dispatcher run and `status` after it are
# timed too.
# Not part of ctest.
#
# Usage: bench/run/run_bench.sh [--build DIR] [--sizes "1000 10000"]
#          [--shapes "chain fanout random"] [--parallel 8] [--seed 1] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build
sizes="1000 10000"
shapes="random chain fanout"
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
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "run_bench: unknown option $1 (see --help)" >&2; exit 2 ;;
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
fi
cores=$(nproc)

# A cgroup v2 folder this script may create children in, or nothing.
cgroot=
for candidate in /sys/fs/cgroup /sys/fs/cgroup/unified; do
  if [ -f "$candidate/cgroup.procs" ] && [ -f "$candidate/cpu.stat" ] &&
     mkdir "$candidate/ad-run-bench-$$" 2>/dev/null; then
    rmdir "$candidate/ad-run-bench-$$"
    cgroot=$candidate
    break
  fi
done
# Under `set -e` a failing last command of an && list ends the trap too:
# every step here is an if, so the work folder goes whatever is left.
cleanup() {
  if [ -n "$cgroot" ]; then
    rmdir "$cgroot"/ad-run-bench-$$-* 2>/dev/null || true
  fi
  if [ -z "$keep" ]; then
    rm -rf "$work"
  fi
  return 0
}
trap cleanup EXIT

load() { cut -d' ' -f1 /proc/loadavg; }

# Runs "$@" in its own cgroup (when there is one) under /usr/bin/time; leaves
# "<wall_s> <peak_rss_KB> <user_s> <sys_s>" in $out.time, with user and
# system from the cgroup's cpu.stat when it was used. The cgroup is emptied
# (SIGKILL to what is left: nothing is once the side finished) and removed.
measured() {
  local out=$1 log=$2 dir=$3
  shift 3
  local cg=
  if [ -n "$cgroot" ]; then
    cg=$cgroot/ad-run-bench-$$-$(basename "$out")
    mkdir "$cg"
  fi
  local rc=0
  ( [ -n "$cg" ] && echo $BASHPID >"$cg/cgroup.procs"
    cd "$dir" && exec /usr/bin/time -o "$out.time" -f '%e %M %U %S' "$@" ) >"$log" 2>&1 || rc=$?
  if [ -n "$cg" ]; then
    local user sys
    user=$(awk '$1 == "user_usec" { print $2 / 1e6 }' "$cg/cpu.stat")
    sys=$(awk '$1 == "system_usec" { print $2 / 1e6 }' "$cg/cpu.stat")
    read -r wall rss _ _ < <(tail -1 "$out.time")
    echo "$wall $rss $user $sys" >"$out.time"
    [ -f "$cg/cgroup.kill" ] && echo 1 >"$cg/cgroup.kill"
    for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
  fi
  return $rc
}

# Wall seconds of "$@" run in $2, its output in $1; "failed" when it fails.
timed() {
  local log=$1 dir=$2
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  if ( cd "$dir" && exec "$@" ) >"$log" 2>&1; then
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
  else
    echo "run_bench: $* failed (log: $log)" >&2
    echo failed
  fi
}

# Tasks archived with complete.log under a workspace.
archived() { find "$1/agent-task/archive" -name complete.log 2>/dev/null | wc -l; }

if [ -n "$cgroot" ]; then
  echo "CPU: per side from a cgroup v2 under $cgroot (keepers and agents included)"
else
  echo "CPU: from /usr/bin/time (no writable cgroup v2: the keepers' CPU is missing on the dispatcher's side)"
fi
echo "cores: $cores; --max-parallel $parallel / ninja -j$parallel; seed $seed; work folder: $work"
printf '%6s  %-7s %-8s %8s %8s %8s %10s %9s %9s %12s\n' \
  N shape side wall_s user_s sys_s peak_rss_MB rss_KB/task load_before load_after
status=0
summary=()
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

    # `run --dry-run` over the fresh workspace, timed as a person runs it.
    dry=$(timed "$case_dir/dry-run.log" "$case_dir/ws-dispatch" env XDG_STATE_HOME="$case_dir/state" \
      NO_COLOR=1 "$build/agent-dispatch" run --dry-run --workspace "$case_dir/ws-dispatch")

    # The dispatcher, with the simulator first on PATH and its own state home.
    l0=$(load)
    measured "$case_dir/dispatch" "$case_dir/dispatch.log" "$case_dir/ws-dispatch" \
      env PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$case_dir/state" NO_COLOR=1 \
      "$build/agent-dispatch" run --workspace "$case_dir/ws-dispatch" \
      --max-parallel "$parallel" || {
      echo "run_bench: agent-dispatch failed for $shape N=$n (log: $case_dir/dispatch.log)" >&2
      tail -5 "$case_dir/dispatch.log" >&2
      status=1
    }
    l1=$(load)
    measured "$case_dir/ninja" "$case_dir/ninja.log" "$case_dir/ninja" ninja -j "$parallel" || {
      echo "run_bench: ninja failed for $shape N=$n (log: $case_dir/ninja.log)" >&2
      status=1
    }
    l2=$(load)
    done_d=$(archived "$case_dir/ws-dispatch")
    done_n=$(archived "$case_dir/ws-ninja")
    if [ "$done_d" != "$n" ] || [ "$done_n" != "$n" ]; then
      echo "run_bench: $shape N=$n archived $done_d tasks with agent-dispatch, $done_n with ninja" >&2
      status=1
    fi
    attempts=$(grep -c ' attempt_finished ' "$case_dir/dispatch.log" || true)
    [ "$attempts" -gt 0 ] || attempts=$((2 * n))
    read -r d_s d_kb d_user d_sys < <(tail -1 "$case_dir/dispatch.time")
    read -r n_s n_kb n_user n_sys < <(tail -1 "$case_dir/ninja.time")
    busy=
    for l in $l0 $l1 $l2; do
      awk -v l="$l" -v c="$cores" 'BEGIN { exit !(l > c) }' && busy="  BUSY (load > $cores cores)"
    done
    awk -v n="$n" -v shape="$shape" -v l0="$l0" -v l1="$l1" -v l2="$l2" -v busy="$busy" \
        -v ds="$d_s" -v dkb="$d_kb" -v du="$d_user" -v dy="$d_sys" \
        -v js="$n_s" -v jkb="$n_kb" -v ju="$n_user" -v jy="$n_sys" 'BEGIN {
      printf "%6d  %-7s %-8s %8.2f %8.2f %8.2f %10.1f %9.1f %9s %12s%s\n",
             n, shape, "dispatch", ds, du, dy, dkb / 1024, dkb / n, l0, l1, busy
      printf "%6d  %-7s %-8s %8.2f %8.2f %8.2f %10.1f %9.1f %9s %12s\n",
             n, shape, "ninja", js, ju, jy, jkb / 1024, jkb / n, l1, l2 }'
    summary+=("$(awk -v n="$n" -v shape="$shape" -v a="$attempts" \
        -v ds="$d_s" -v du="$d_user" -v dy="$d_sys" -v dkb="$d_kb" \
        -v js="$n_s" -v ju="$n_user" -v jy="$n_sys" 'BEGIN {
      wr = (js > 0) ? ds / js : 0; cr = (ju + jy > 0) ? (du + dy) / (ju + jy) : 0
      own = ((du + dy) - (ju + jy)) * 1000 / a
      printf "%6d  %-7s %7d %11.2f %10.2f %22.2f %12.1f", n, shape, a, wr, cr, own, dkb / n }')")

    # `status` over the workspace the dispatcher just worked (every task in
    # the state).
    st=$(timed "$case_dir/status.log" "$case_dir/ws-dispatch" env XDG_STATE_HOME="$case_dir/state" \
      NO_COLOR=1 "$build/agent-dispatch" status --workspace "$case_dir/ws-dispatch")
    summary[-1]+=$(printf ' %10s %10s' "$dry" "$st")
  done
done
echo
echo "Goals (docs/bench.md): wall <= 1.2x and CPU <= 1.5x ninja's, own CPU <= 5 ms/attempt,"
echo "peak RSS <= 20 KB/task, run --dry-run and status < 0.5 s at N = 10,000."
printf '%6s  %-7s %7s %11s %10s %22s %12s %10s %10s\n' \
  N shape attempts wall_ratio cpu_ratio own_cpu_ms/attempt rss_KB/task dry_run_s status_s
for line in "${summary[@]}"; do echo "$line"; done
exit $status

#!/usr/bin/env bash
# Re-records the message-trace corpus in tests/traces/corpus/ (docs/traces.md).
# Each case generates a workspace (tools/workspace-gen), runs the real
# dispatcher against the agent simulator with `run --trace`, and writes the
# trace as tests/traces/corpus/<case>.jsonl. Run it after an intended change
# of behaviour; the diff of the traces is what reviewers read. Traces hold no
# host paths (workspace, state root and home become tokens).
#
# Usage: tools/record-traces.sh [--build DIR] [--out DIR] [CASE...]
#   cases: clean failure-classes tactical budget-block retry-blocked (default: all)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
out=$here/tests/traces/corpus
cases=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "record-traces: unknown option $1" >&2; exit 2 ;;
    *) cases+=("$1"); shift ;;
  esac
done
[ ${#cases[@]} -gt 0 ] || cases=(clean failure-classes tactical budget-block retry-blocked)
build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "record-traces: $build/$tool is missing; build it first" >&2; exit 2; }
done
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/ad-record-traces.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run CASE WORKSPACE SCENARIO [run options...]: one traced run; prints its exit code.
run() {
  local name=$1 ws=$2 scenario=$3
  shift 3
  local code=0
  ( cd "$ws" &&
    env PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$work/state-$name" HOME="$work/home" NO_COLOR=1 \
      AGENT_SIM_SCENARIO="$scenario" AGENT_SIM_REGISTRY="$work/registry-$name.jsonl" \
      AGENT_SIM_TIME_SCALE=0.01 AGENT_SIM_SEED=1 \
      "$build/agent-dispatch" run --workspace "$ws" --trace "$out/$name.jsonl" "$@" \
      >"$work/$name.log" 2>&1 ) || code=$?
  echo "$name: exit $code, $(($(wc -l <"$out/$name.jsonl") - 1)) records"
}

gen() { # gen DIR TASKS SHAPE SEED [extra...]
  local dir=$1 n=$2 shape=$3 seed=$4
  shift 4
  rm -rf "$dir"
  "$build/workspace-gen" --tasks "$n" --shape "$shape" --seed "$seed" --out "$dir" --fast-policy "$@" >/dev/null
}

mkdir -p "$work/home"
for c in "${cases[@]}"; do
  case $c in
    clean)
      # Every stage succeeds; --max-parallel 2 adds capacity waits.
      gen "$work/clean" 6 random 2
      run clean "$work/clean" "" --max-parallel 2 ;;
    failure-classes)
      # One scripted failure of every class: failover, promotion, native
      # resume, tactical escalation, retries, a review failure.
      gen "$work/fc" 20 random 3 --scenario "$work/fc.json"
      run failure-classes "$work/fc" "$work/fc.json" --max-parallel 4 ;;
    tactical)
      # Tactical escalation (file already exists, file not found) and a
      # generic crash retried with a continuation prompt, on one chain.
      gen "$work/tac" 3 chain 1
      printf '%s\n' '{"version":1,"tasks":{
        "grp01/01_t0001":{"worker":{"1":{"actions":[{"kind":"work","checklist":"none"},{"kind":"fail","failure":"file_exists","path":"src/grp01/t0001.cpp"}]}}},
        "grp01/02+01_t0002":{"worker":{"1":{"actions":[{"kind":"fail","failure":"file_not_found","path":"src/grp01/missing.cpp"}]}}},
        "grp01/03+02_t0003":{"worker":{"1":{"actions":[{"kind":"fail","failure":"error","message":"segfault in tool"}]}}}}}' >"$work/tac.json"
      run tactical "$work/tac" "$work/tac.json" ;;
    budget-block|retry-blocked)
      # A worker that always crashes: retries until the budget blocks it
      # (exit 2); then `run --retry-blocked` clears the block and it blocks again.
      if [ ! -d "$work/bb" ]; then
        gen "$work/bb" 3 chain 1
        printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{"default":{"actions":[{"kind":"fail","failure":"error","message":"tool crashed"}]}}}}}' >"$work/bb.json"
        [ "$c" = retry-blocked ] && run budget-block-first "$work/bb" "$work/bb.json" >/dev/null && rm -f "$out/budget-block-first.jsonl"
      fi
      if [ "$c" = budget-block ]; then
        run budget-block "$work/bb" "$work/bb.json"
      else
        run retry-blocked "$work/bb" "$work/bb.json" --retry-blocked
      fi ;;
    *) echo "record-traces: unknown case $c" >&2; exit 2 ;;
  esac
done

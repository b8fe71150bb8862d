#!/usr/bin/env bash
# Re-records the message-trace corpus in tests/traces/corpus/ (docs/traces.md).
# Each case generates a workspace (tools/workspace-gen), runs the real
# dispatcher against the agent simulator with `run --trace`, and writes the
# trace as tests/traces/corpus/<case>.jsonl. Run it after an intended change
# of behaviour; the diff of the traces is what reviewers read. Traces hold no
# host paths (workspace, state root and home become tokens).
#
# Usage: tools/record-traces.sh [--build DIR] [--out DIR] [CASE...]
#   cases: clean failure-classes tactical budget-block retry-blocked
#          pi-native-resume reset-wait reset-wait-restart interrupted
#          restart-adopt restart-reconcile restart-finished claim-conflict follow-up
#          user-review user-review-recovery stall pi-tool-stall (default: all)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
out=$here/tests/traces/corpus
cases=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "record-traces: unknown option $1" >&2; exit 2 ;;
    *) cases+=("$1"); shift ;;
  esac
done
[ ${#cases[@]} -gt 0 ] || cases=(clean failure-classes tactical budget-block retry-blocked
  pi-native-resume reset-wait reset-wait-restart interrupted restart-adopt restart-reconcile
  restart-finished claim-conflict follow-up user-review user-review-recovery stall pi-tool-stall)
build=$(cd "$build" && pwd)
for tool in agent-dispatch agent-sim workspace-gen; do
  [ -x "$build/$tool" ] || { echo "record-traces: $build/$tool is missing; build it first" >&2; exit 2; }
done
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/ad-record-traces.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run CASE WORKSPACE SCENARIO [run options...]: one traced run; prints its exit
# code and leaves it in $last_code. With STATE=<key> the run shares the state
# root and simulator registry of <key> (a second run of one workspace); with
# CRASH_AT=<point> the dispatcher ends itself there (docs/test-hooks.md).
last_code=0
run() {
  local name=$1 ws=$2 scenario=$3
  shift 3
  local key=${STATE:-$name} code=0
  ( cd "$ws" &&
    env -u AD_TEST_CRASH_AT PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$work/state-$key" HOME="$work/home" NO_COLOR=1 \
      AGENT_SIM_SCENARIO="$scenario" AGENT_SIM_REGISTRY="$work/registry-$key.jsonl" \
      AGENT_SIM_TIME_SCALE=0.01 AGENT_SIM_SEED=1 ${CRASH_AT:+AD_TEST_CRASH_AT=$CRASH_AT} \
      "$build/agent-dispatch" run --workspace "$ws" --trace "$out/$name.jsonl" "$@" \
      >"$work/$name.log" 2>&1 ) || code=$?
  last_code=$code
  echo "$name: exit $code, $(($(wc -l <"$out/$name.jsonl") - 1)) records"
}

# expect CASE CODE: stops the script when the last run did not exit with CODE
# (the case would not show the branch it is recorded for).
expect() {
  [ "$last_code" = "$2" ] && return 0
  echo "record-traces: $1 exited $last_code, expected $2; log:" >&2
  tail -n 20 "$work/$1.log" >&2
  exit 1
}

# quick_silence DIR [INSPECT STALL]: a heartbeat every second of silence,
# the silence inspection after INSPECT s (default 1), the stall limit after
# STALL s (default 2) (uses jq).
quick_silence() {
  command -v jq >/dev/null || { echo "record-traces: the stall cases need jq (apt-get install jq)" >&2; exit 2; }
  jq --argjson i "${2:-1}" --argjson s "${3:-2}" \
    '.timeouts.heartbeat_s = 1 | .timeouts.silence_inspection_s = $i | .timeouts.stall_limit_s = $s' \
    "$1/agent-dispatch.json" >"$1/policy.tmp" && mv "$1/policy.tmp" "$1/agent-dispatch.json"
}

# only_agy_worker DIR: the workspace policy's worker rule names one candidate,
# agy-gemini, so a rate limit has nothing to fail over to (uses jq).
only_agy_worker() {
  command -v jq >/dev/null || { echo "record-traces: the reset-wait cases need jq (apt-get install jq)" >&2; exit 2; }
  jq '.rules = [{"id":"only-agy","stage":"worker","lanes":["cloud"],"grades":[1,10],"candidates":["agy-gemini"]}]' \
    "$1/agent-dispatch.json" >"$1/policy.tmp" && mv "$1/policy.tmp" "$1/agent-dispatch.json"
}

gen() { # gen DIR TASKS SHAPE SEED [extra...]
  local dir=$1 n=$2 shape=$3 seed=$4
  shift 4
  rm -rf "$dir"
  "$build/workspace-gen" --tasks "$n" --shape "$shape" --seed "$seed" --out "$dir" --fast-policy "$@" >/dev/null
}

# to_local DIR TASK: moves TASK's PLAN/CODE_REVIEW pair to the local lane (pi workers).
to_local() {
  local d=$1/agent-task/$2
  mv "$d/PLAN-cloud-G05.md" "$d/PLAN-local-G05.md"
  mv "$d/CODE_REVIEW-cloud-G05.md" "$d/CODE_REVIEW-local-G05.md"
}

# A complete USER_REVIEW.md stop request (SPEC section 2), as one JSON string.
user_review_json='"## Status\n\n`USER_REVIEW`\n\n## Reason\n\n- Type: external-execution\n- Target: deploy/staging.md\n\n## Evidence\n\n- Evidence: the change needs a staging deploy only a maintainer can run\n\n## Required Action\n\n- [ ] Run the staging deploy and record the result\n\n## Resume Condition\n\n- The staging deploy result is recorded in deploy/staging.md\n"'

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
      # (exit 2); then `run --retry-blocked` on the same state root clears the
      # block and it blocks again.
      if [ ! -d "$work/bb" ]; then
        gen "$work/bb" 3 chain 1
        printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{"default":{"actions":[{"kind":"fail","failure":"error","message":"tool crashed"}]}}}}}' >"$work/bb.json"
        [ "$c" = retry-blocked ] && STATE=bb run budget-block-first "$work/bb" "$work/bb.json" >/dev/null && rm -f "$out/budget-block-first.jsonl"
      fi
      if [ "$c" = budget-block ]; then
        STATE=bb run budget-block "$work/bb" "$work/bb.json"
      else
        STATE=bb run retry-blocked "$work/bb" "$work/bb.json" --retry-blocked
      fi ;;
    pi-native-resume)
      # A local-lane worker on pi-laguna-s (native resume) hits its context
      # limit: the supervisor continues the same pi session (resume_native
      # with the session file), then self-check and review pass.
      gen "$work/pi" 1 chain 1
      to_local "$work/pi" grp01/01_t0001
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{"1":{"actions":[{"kind":"events","count":2},{"kind":"fail","failure":"context_length"}]}}}}}' >"$work/pi.json"
      run pi-native-resume "$work/pi" "$work/pi.json"
      expect pi-native-resume 0 ;;
    reset-wait)
      # One worker candidate (agy-gemini) hits a rate limit whose reset time
      # is known (retry after 1 s): nothing to fail over to, so the task waits
      # for the reset (wait_until) outside the failure budget, twice, then
      # succeeds. (The policy edit uses jq.)
      gen "$work/rw" 1 chain 1
      only_agy_worker "$work/rw"
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{
        "1":{"actions":[{"kind":"fail","failure":"rate_limit","retry_after_seconds":1}]},
        "2":{"actions":[{"kind":"fail","failure":"rate_limit","retry_after_seconds":1}]}}}}}' >"$work/rw.json"
      run reset-wait "$work/rw" "$work/rw.json"
      expect reset-wait 0 ;;
    reset-wait-restart)
      # The same single candidate: its rate limit (retry after 3 s) is decided
      # as a wait for the reset, made durable, and the dispatcher crashes
      # right after (hook after-decision). The crashed run's trace is kept as
      # reset-wait-crash: it ends at that decision, with no finish_run. The
      # traced restart resumes the durable wait (task.reset_wait) instead of
      # choosing a target, then runs the worker once the reset time passed.
      gen "$work/rr" 1 chain 1
      only_agy_worker "$work/rr"
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{
        "1":{"actions":[{"kind":"fail","failure":"rate_limit","retry_after_seconds":3}]}}}}}' >"$work/rr.json"
      STATE=reset-wait-restart CRASH_AT=after-decision run reset-wait-crash "$work/rr" "$work/rr.json"
      expect reset-wait-crash 86
      STATE=reset-wait-restart run reset-wait-restart "$work/rr" "$work/rr.json"
      expect reset-wait-restart 0 ;;
    interrupted)
      # Two tasks on one worker candidate. t0001's worker goes quiet for
      # 10 s; t0002's worker hits a rate limit whose reset is a minute away
      # and waits for it. SIGINT about 1.5 s in stops the run: the running
      # attempt is cancelled (attempt.cancel) and its task ends cancelled
      # once the attempt is gone; the waiting task ends cancelled at once.
      # Exit 130.
      gen "$work/in" 2 chain 1 --group-size 1
      only_agy_worker "$work/in"
      printf '%s\n' '{"version":1,"tasks":{
        "grp01/01_t0001":{"worker":{"1":{"actions":[{"kind":"events","count":1},{"kind":"silence","seconds":1000},{"kind":"exit","code":0}]}}},
        "grp02/01_t0002":{"worker":{"1":{"actions":[{"kind":"fail","failure":"rate_limit","retry_after_seconds":60}]}}}}}' >"$work/in.json"
      code=0
      ( cd "$work/in" &&
        exec env -u AD_TEST_CRASH_AT PATH="$build/sim-bin:$PATH" XDG_STATE_HOME="$work/state-interrupted" \
          HOME="$work/home" NO_COLOR=1 AGENT_SIM_SCENARIO="$work/in.json" \
          AGENT_SIM_REGISTRY="$work/registry-interrupted.jsonl" AGENT_SIM_TIME_SCALE=0.01 AGENT_SIM_SEED=1 \
          "$build/agent-dispatch" run --workspace "$work/in" --trace "$out/interrupted.jsonl" \
          >"$work/interrupted.log" 2>&1 ) &
      pid=$!
      sleep 1.5
      kill -INT "$pid"
      wait "$pid" || code=$?
      last_code=$code
      echo "interrupted: exit $code, $(($(wc -l <"$out/interrupted.jsonl") - 1)) records"
      expect interrupted 130 ;;
    restart-adopt)
      # Three independent tasks. A first run (its trace dropped) crashes (hook
      # after-decision) when t0003's worker fails, about 1.5 s in. By then
      # t0001's worker has done its work and t0002's review has archived its
      # task; both agents write through a 4 s tail under their keepers and
      # outlive the crash. The traced second run adopts both from their
      # keepers and follows them to their end: t0001's worker stage is done
      # without a second worker, t0002 completes from its review, t0003
      # resumes with the recorded retry.
      gen "$work/rs" 3 chain 1 --group-size 1
      printf '%s\n' '{"version":1,"tasks":{
        "grp01/01_t0001":{"worker":{"1":{"actions":[{"kind":"events","count":1},{"kind":"work"},{"kind":"events","count":40,"interval_seconds":10},{"kind":"exit","code":0}]}}},
        "grp02/01_t0002":{"review":{"1":{"actions":[{"kind":"events","count":1},{"kind":"review","verdict":"PASS"},{"kind":"events","count":40,"interval_seconds":10},{"kind":"exit","code":0}]}}},
        "grp03/01_t0003":{"worker":{"1":{"actions":[{"kind":"events","count":1},{"kind":"silence","seconds":150},{"kind":"fail","failure":"error","message":"tool crashed"}]}}}}}' >"$work/rs.json"
      STATE=restart-adopt CRASH_AT=after-decision run restart-adopt-first "$work/rs" "$work/rs.json" >/dev/null
      rm -f "$out/restart-adopt-first.jsonl"
      expect restart-adopt-first 86
      STATE=restart-adopt run restart-adopt "$work/rs" "$work/rs.json"
      expect restart-adopt 0 ;;
    restart-reconcile)
      # One task. The first run (its trace dropped) crashes right after the
      # review that archived the task ended (hook after-attempt-end:review).
      # The traced restart finds the task gone from agent-task/ with one new
      # archive folder: reconciliation completes it and its group closes.
      gen "$work/rr" 1 chain 1
      STATE=restart-reconcile CRASH_AT=after-attempt-end:review run restart-reconcile-first "$work/rr" "" >/dev/null
      rm -f "$out/restart-reconcile-first.jsonl"
      expect restart-reconcile-first 86
      STATE=restart-reconcile run restart-reconcile "$work/rr" ""
      expect restart-reconcile 0 ;;
    restart-finished)
      # One task. The first run (its trace dropped) crashes right after its
      # worker's attempt ended well (hook after-attempt-end), before the
      # stage step was made durable. The traced restart reads the succeeded
      # locator and finishes the worker stage from it: no second worker.
      gen "$work/rf" 1 chain 1
      STATE=restart-finished CRASH_AT=after-attempt-end run restart-finished-first "$work/rf" "" >/dev/null
      rm -f "$out/restart-finished-first.jsonl"
      expect restart-finished-first 86
      STATE=restart-finished run restart-finished "$work/rf" ""
      expect restart-finished 0 ;;
    claim-conflict)
      # Two independent tasks whose write sets share src/shared/common_0.hpp:
      # the second waits on the first one's claim until it completes.
      gen "$work/cc" 2 chain 1 --group-size 1 --overlap 1 --shared-files 1
      run claim-conflict "$work/cc" ""
      expect claim-conflict 0 ;;
    follow-up)
      # The first review fails: it keeps plan_/code_review_ logs and writes
      # the next PLAN/CODE_REVIEW generation, so the task goes around again
      # (worker, review) and passes.
      gen "$work/fu" 1 chain 1
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"review":{"1":{"actions":[{"kind":"review","verdict":"FAIL"}]}}}}}' >"$work/fu.json"
      run follow-up "$work/fu" "$work/fu.json"
      expect follow-up 0 ;;
    stall)
      # The first worker attempt falls silent and never ends: heartbeats, one
      # silence inspection, then the stall limit terminates it
      # (attempt.silence_due with stall); the supervisor retries, and the
      # second attempt finishes the task.
      gen "$work/stall" 1 chain 1
      quick_silence "$work/stall"
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{"1":{"actions":[{"kind":"events","count":1,"interval_seconds":0},{"kind":"hang","in":"idle"}]}}}}}' >"$work/stall.json"
      run stall "$work/stall" "$work/stall.json"
      expect stall 0 ;;
    pi-tool-stall)
      # A local-lane worker on pi falls silent inside a tool call: its pi
      # session reports the phase tool-running (attempt.phase), so the
      # silence inspection due after 2 s is deferred while it runs
      # (attempt.silence_due with tools running and no inspection); the
      # stall limit (4 s) still stops it (session-stall), and the retry
      # finishes the task.
      gen "$work/pts" 1 chain 1
      to_local "$work/pts" grp01/01_t0001
      quick_silence "$work/pts" 2 4
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"worker":{"1":{"actions":[{"kind":"events","count":1,"interval_seconds":0},{"kind":"hang","in":"tool_call"}]}}}}}' >"$work/pts.json"
      run pi-tool-stall "$work/pts" "$work/pts.json"
      expect pi-tool-stall 0 ;;
    user-review)
      # An ordinary task: the worker implements the PLAN, then the official
      # review writes USER_REVIEW.md and retires the PLAN/CODE_REVIEW pair
      # with its verdict and no next generation. The review step reads the
      # outcome user-review and the task stops for the user.
      gen "$work/ur" 1 chain 1
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"review":{"1":{"actions":[
        {"kind":"write","path":"agent-task/grp01/01_t0001/USER_REVIEW.md","content":'"$user_review_json"'},
        {"kind":"review","verdict":"FAIL","follow_up":false}]}}}}}' >"$work/ur.json"
      run user-review "$work/ur" "$work/ur.json"
      expect user-review 2 ;;
    user-review-recovery)
      # A recovery folder: generation 1 was reviewed (FAIL) and its PLAN
      # retired to a log; its CODE_REVIEW is still open. The official review
      # retires it with its verdict and leaves USER_REVIEW.md: the task stops
      # for the user.
      gen "$work/urr" 1 chain 1
      d=$work/urr/agent-task/grp01/01_t0001
      mv "$d/PLAN-cloud-G05.md" "$d/plan_cloud_G05_1.log"
      { sed '/^## Code Review Result/,$d' "$d/CODE_REVIEW-cloud-G05.md"
        printf '## Code Review Result\n\nOverall Verdict: FAIL\n'; } >"$d/code_review_cloud_G05_1.log"
      printf '%s\n' '{"version":1,"tasks":{"grp01/01_t0001":{"review":{"1":{"actions":[
        {"kind":"write","path":"agent-task/grp01/01_t0001/USER_REVIEW.md","content":'"$user_review_json"'},
        {"kind":"review","verdict":"FAIL"}]}}}}}' >"$work/urr.json"
      run user-review-recovery "$work/urr" "$work/urr.json"
      expect user-review-recovery 2 ;;
    *) echo "record-traces: unknown case $c" >&2; exit 2 ;;
  esac
done

#!/usr/bin/env bash
# Installs what is missing, builds, and shows the dispatcher on a demo
# workspace in ./demo-workspace, in two steps:
#
# 1. The dry run of the standard demo: for every task its stage, route,
#    dependencies, status and reason. It deliberately holds two tasks for a
#    person: a USER_REVIEW stop (auth/05_password_policy) and a PLAN whose
#    Modified Files Summary is invalid (billing/03_currency_format).
# 2. A person resolves those two (ad-demo-gen --scenario resolved: the stop
#    approved into a PLAN, the write set corrected), and the real dispatch
#    loop runs over the workspace with the agent simulator standing in for
#    codex/claude/agy/pi (sim-bin first on PATH) and the demo scenario: a
#    rate limit, a pi stream disconnect that fails over to another pi
#    session, "file already exists", a silent agent and a failed first
#    review. Every task ends archived with complete.log and exit 0; a second
#    run then reports all tasks complete without starting an agent.
#
# Usage: tools/demo.sh [--dry-run] [BUILD_DIR]
#   --dry-run  stop after step 1 (exit code of the dry run)
set -euo pipefail
cd "$(dirname "$0")/.."
dry_only=0
case "${1:-}" in
  --dry-run) dry_only=1; shift ;;
  --run) shift ;; # the real run is the default; kept for older scripts
esac
build_dir=${1:-build}

bash tools/setup.sh
# Only what the demo runs: the dispatcher, the simulator and the generator.
bash tools/build.sh "$build_dir" --target agent-dispatch --target agent-sim --target ad-demo-gen
build_abs=$(cd "$build_dir" && pwd)

"$build_abs/ad-demo-gen" demo-workspace --fresh
echo
echo "agent-dispatch run --dry-run --workspace demo-workspace"
echo
dry_code=0
"$build_abs/agent-dispatch" run --dry-run --workspace demo-workspace || dry_code=$?
if [ "$dry_only" -eq 1 ]; then
  exit "$dry_code"
fi

echo
echo "A person resolves the two held tasks (the milestone approved into a PLAN,"
echo "the Modified Files Summary corrected):"
"$build_abs/ad-demo-gen" demo-workspace --scenario resolved --fresh

state_dir=$(pwd)/demo-workspace.state
rm -rf "$state_dir"
mkdir -p "$state_dir"
"$build_abs/agent-sim" demo-scenario --out "$state_dir/scenario.json" \
  --task infra --task docs/01_api_reference --task auth/02+01_session_store \
  --task billing/01_invoice_schema

export PATH="$build_abs/sim-bin:$PATH"
export XDG_STATE_HOME="$state_dir/xdg"
export AGENT_SIM_SCENARIO="$state_dir/scenario.json"
export AGENT_SIM_REGISTRY="$state_dir/registry.jsonl"
export AGENT_SIM_TIME_SCALE=${AGENT_SIM_TIME_SCALE:-0.1}

echo
echo "agent-dispatch run --workspace demo-workspace --max-parallel 4"
echo
started=$(date +%s.%N)
set +e
if [ -t 1 ]; then
  # On a terminal: the live board, redrawn in place.
  "$build_abs/agent-dispatch" run --workspace demo-workspace --max-parallel 4
  code=$?
else
  "$build_abs/agent-dispatch" run --workspace demo-workspace --max-parallel 4 | tee "$state_dir/run.out"
  code=${PIPESTATUS[0]}
fi
set -e
elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
agents=$(wc -l < "$AGENT_SIM_REGISTRY")
archived=$(find demo-workspace/agent-task/archive -name complete.log | wc -l)
work_logs=$(find demo-workspace/agent-task/archive -name 'work_log_*.log' | wc -l)
echo
echo "exit code $code after ${elapsed}s; agents run: $agents; complete.log in the archive:" \
  "$archived; work logs archived: $work_logs"
"$build_abs/agent-sim" check-registry "$AGENT_SIM_REGISTRY" --max-parallel 4
if [ "$code" -ne 0 ]; then
  exit "$code"
fi

echo
echo "agent-dispatch run --workspace demo-workspace   (again: nothing left to do)"
echo
"$build_abs/agent-dispatch" run --workspace demo-workspace
if [ "$(wc -l < "$AGENT_SIM_REGISTRY")" -ne "$agents" ]; then
  echo "demo: the second run started an agent" >&2
  exit 1
fi

echo
echo "What the run left in the durable state (every task, its attempts and what they spent):"
status_cmd=$(printf 'XDG_STATE_HOME=%q %q status --workspace %q' "$XDG_STATE_HOME" \
  "$build_abs/agent-dispatch" "$(pwd)/demo-workspace")
echo "  $status_cmd"

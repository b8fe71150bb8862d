#!/usr/bin/env bash
# The scheduler actor is the interpreter of the scheduler machine
# (runtime/run/scheduler_machine): every decision of the scheduler is the
# machine's. This fails when actors/scheduler/ holds more than the
# interpreter, its io and the quota prober, or includes a runtime header
# that decides (admission, planning, reconciliation, group closing, active
# stages, exit codes, policy).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for f in actors/scheduler/*; do
  case "$(basename "$f")" in
    scheduler_actor.hpp|scheduler_actor.cpp|scheduler_io.hpp|scheduler_io.cpp|quota_prober.hpp|quota_prober.cpp) ;;
    *) echo "$f: actors/scheduler/ holds the interpreter, its io and the quota prober only"; status=1 ;;
  esac
done
# (The quota prober runs the batch's probe commands: it includes
# runtime/run/admission_quota for its process runner, nothing that decides.)
forbidden='runtime/(schedule/(admission|dependency_gate|reason_tracker|task_view|view_from_scan|review_outcome|review_progress)|run/(pass_planner|run_pass|run_views|stage_steps|exit_code|admission_quota)|state/reconcile|policy/)'
if grep -nE "#[[:space:]]*include[[:space:]]*\"$forbidden" actors/scheduler/scheduler_*; then
  echo "actors/scheduler/ includes a deciding runtime header: the decision belongs to the scheduler machine"
  status=1
fi
if grep -nE '\b(decide_[a-z_]+|plan_admission|reconcile_orchestration|compute_run_exit|observe_run_end|admission_probe_plan)\(' actors/scheduler/*; then
  echo "actors/scheduler/ calls a decision function: the scheduler machine calls it"
  status=1
fi
exit $status

#pragma once
// Where the scheduler actor meets the message trace (`run --trace`,
// docs/traces.md). Each hook is one call at an edge or decision point and
// does nothing when ctx.trace is null, so recording cannot change a
// decision. (The task actors record their task machine's events and
// commands themselves: actors/scheduler/task_actor.hpp.) Synchronous, never
// throws; trace write errors surface at the writer's stop().

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actors/scheduler/task_actor.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/run/pass_planner.hpp"
#include "runtime/schedule/admission.hpp"
#include "runtime/schedule/exit_code.hpp"
#include "runtime/trace/trace_replay.hpp"
#include "runtime/workspace/workspace_scanner.hpp"

namespace ad::actors {

// scheduler.startup / scheduler.pass: the changes made durable and the
// tasks started, caused by the scheduler.inbound edge of the message whose
// handling decided them.
void trace_scheduler(const run_context& ctx, std::string_view kind, int64_t cause,
                     const std::vector<runtime::state_change>& changes,
                     const std::vector<task_spec>& start,
                     const std::vector<task_spec>& adopt = {});
// scheduler.inbound: a message the scheduler actor handles, in the order it
// handles them ("pass", "poll" (with the survivors and paused tasks it
// finds), "task_ended", "published", "shutdown", and
// the replies "snapshot", "applied", "quota"), with the clock reading its
// steps use and what `detail` makes of it (called only when tracing).
// Returns its seq (0 when not tracing).
int64_t trace_scheduler_inbound(const run_context& ctx, std::string_view message,
                                runtime::millis now,
                                const std::function<runtime::json()>& detail = {});
// scheduler.scan: a pass's workspace refresh (full or not, the names it
// reports changed, or its error) with every scanned task after a full
// refresh, else the changed ones still scanned.
void trace_scan(const run_context& ctx, const runtime::result<runtime::scan_refresh>& refreshed,
                const runtime::task_scan_view& scan);
// scheduler.sightings (the examined tasks' work units as scanned and as
// durable, and first sightings with their archive baselines) ->
// scheduler.sighted (the planner's begin_work_unit and
// observe_orchestration changes), then
// scheduler.admission (the pass's last admission input: the task views built
// from the scan, claims, live tasks, --max-parallel) -> scheduler.admitted
// (the admission plan: every examined entry, the admitted order, the claims
// taken).
void trace_admission(const run_context& ctx, const runtime::planner_result& planned);
// decide_active_stages (the policy's) on the readings of the active stages
// (scheduler_io::read_active_stages), recording scheduler.liveness (the
// probe answers and what was read back) -> scheduler.active_stages when
// tracing.
runtime::active_review review_active_stages_traced(
  const run_context& ctx, const std::vector<runtime::active_stage_reading>& readings);
// scheduler.group (a group's record, whether it is busy, the work log's
// move when tried) -> scheduler.group_close.
void trace_group_close(const run_context& ctx, const runtime::group_reading& group,
                       const runtime::group_close& closed);
// scheduler.reconcile (what reconcile_orchestration decided on) ->
// scheduler.reconciled (completions, errors, changes).
void trace_reconcile(const run_context& ctx, const runtime::reconcile_input& in,
                     const runtime::reconcile_outcome& out);
// scheduler.retry_blocked (every task's durable state, the clock reading)
// -> scheduler.retry_cleared (the changes of `run --retry-blocked`).
// The start-up probe of work logs that blocked tasks (scheduler.work_logs).
void trace_work_logs(const run_context& ctx, const std::map<std::string, bool>& writable);
void trace_retry_blocked(const run_context& ctx,
                         const std::map<std::string, runtime::task_state>& tasks,
                         runtime::millis now, const std::vector<runtime::state_change>& changes);
void trace_run_exit(const run_context& ctx, const runtime::run_observation& obs,
                    const runtime::run_exit& exit);

} // namespace ad::actors

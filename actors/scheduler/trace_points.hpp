#pragma once
// Where the scheduler and task actors meet the message trace (`run
// --trace`, docs/traces.md). Each hook is one call at an edge or decision
// point and does nothing when ctx.trace is null, so recording cannot change
// a decision: the target choice runs the same choose_target, with the clock
// reading it records frozen for the call (replay feeds that reading back).
// Also the bodies of the task actor's decisions, which its replay by the
// decision functions (actors/scheduler/decision_replay.hpp) builds the same
// way. Synchronous, never throws; trace write errors surface at the
// writer's stop().

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actors/scheduler/task_steps.hpp"
#include "runtime/replay/decision_records.hpp"
#include "runtime/run/pass_planner.hpp"
#include "runtime/schedule/admission.hpp"
#include "runtime/schedule/exit_code.hpp"
#include "runtime/trace/trace_replay.hpp"
#include "runtime/workspace/workspace_scanner.hpp"

namespace ad::actors {

runtime::json task_spec_to_json(const task_spec& spec);
// The decision bodies recording and replay build alike: attempt.launch
// (argv with the attempt's own folder and session id as placeholders),
// task.end, task.stage_step / task.review_step, and what a stop that
// reaches a task decides (`during`: "attempt", "waiting" or "busy", which
// the task actor alone decides after its open request's answer).
runtime::json launch_body(const std::string& target, const messages::start_attempt& req);
runtime::json task_end_body(const std::string& task, const std::string& stage,
                            const std::string& outcome, const std::string& reason,
                            int64_t pause_ms);
runtime::json stage_step_body(const std::string& task, const std::string& stage,
                              const runtime::stage_step& step);
std::vector<runtime::replayed_decision> stop_decisions(const std::string& task,
                                                       const std::string& stage,
                                                       std::string_view during,
                                                       const std::string& identity);
runtime::result<task_spec> task_spec_from_json(const runtime::json& j);
runtime::json target_choice_body(const target_choice& c);
// The reading recorded as an attempt.result's "observed" (of a successful
// attempt of `stage`).
runtime::result<success_reading> success_reading_from_json(const std::string& stage,
                                                           const runtime::json& observed);

// decide_begin(s, now) on a clock frozen at `now`, recording task.begin
// (spec, task state, cool-downs, clock reading) and its decision when
// tracing: task.reset_wait (a durable quota-reset wait resumed) or
// task.target.
begin_step decide_begin_traced(task_actor_state& s, runtime::millis now);
runtime::json reset_wait_body(const task_spec& spec, runtime::millis until,
                              const parsed_step& wait);
// task.launch: what the launch of an attempt starts from (the task spec
// before the attempt number is taken, the task state, the chosen target,
// prompt, native session and handoff). Returns its seq (0 when not tracing).
int64_t trace_launch_inputs(const task_actor_state& s, const std::string& target,
                            const std::string& prompt, const std::string& native_session,
                            const std::string& handoff);
// attempt.launch, caused by the task.launch edge.
void trace_attempt_launch(const task_actor_state& s, const messages::start_attempt& req,
                          int64_t cause);
// Returns the attempt.result edge's seq (0 when not tracing). reading: what
// the step after a success is decided on (null after a failure).
int64_t trace_attempt_result(const task_actor_state& s, const messages::attempt_result& r,
                             const success_reading* reading);
void trace_stage_step(const task_actor_state& s, int64_t cause, const runtime::stage_step& step);
// task.end; cause: the edge the ending was decided on (attempt.result after
// a success, supervisor.failure after a block step, task.stop after a stop,
// task.error after an error reply), else 0.
void trace_task_end(const task_actor_state& s, const std::string& outcome, const std::string& reason,
                    int64_t pause_ms, int64_t cause);
// task.error: a request of the task actor was answered with an error
// (peer: "state store", "supervisor" or "attempt"; error: CAF's rendering
// of it). Returns its seq (0 when not tracing). The task then ends "error"
// with error_end_reason(peer, error).
int64_t trace_task_error(const task_actor_state& s, std::string_view peer,
                         const std::string& error);
std::string error_end_reason(std::string_view peer, const std::string& error);
// task.stop: the run's stop reached the task, with what it was doing
// ("attempt": an attempt runs, "waiting": a timer, "busy": a request to the
// state store or supervisor is open). Returns its seq (0 when not tracing).
// Call after setting s.cancelled and before acting on it.
int64_t trace_task_stop(const task_actor_state& s);
// task.wake: a task's timer fired (a retry delay, a cool-down or reset
// wait, a pause), with the clock reading. Recorded, not fed: what the task
// then does is decided at its next task.begin or task.launch.
void trace_task_wake(const task_actor_state& s);
// attempt.cancel: the running attempt is told to stop (caused by task.stop).
void trace_attempt_cancel(const task_actor_state& s, int64_t cause);
// scheduler.startup / scheduler.pass: the changes made durable and the
// tasks started, caused by the scheduler.inbound edge of the message whose
// handling decided them.
void trace_scheduler(const run_context& ctx, std::string_view kind, int64_t cause,
                     const std::vector<runtime::state_change>& changes,
                     const std::vector<task_spec>& start);
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

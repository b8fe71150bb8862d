#pragma once
// The bodies of the trace records the run writes at its edges and decision
// points (docs/traces.md lists every kind), built by the same functions on
// the recording side and in replay, so a replayed decision compares equal
// to the recorded one exactly when the decision is the same. Kind names are
// the constants below. Pure JSON mapping: no I/O, no clock; never throws
// (a JSON text that does not parse is kept as a string).

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/run/run_pass.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/run/stage_steps.hpp"
#include "runtime/schedule/exit_code.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/reconcile.hpp"

namespace ad::runtime::trace_kinds {

// Edges (messages entering the decision side).
inline constexpr std::string_view supervisor_failure = "supervisor.failure"; // supervise_failure
inline constexpr std::string_view quota_batch = "supervisor.quota_batch";    // quota_batch_taken
inline constexpr std::string_view task_begin = "task.begin";       // task state read + clock
inline constexpr std::string_view task_launch = "task.launch";     // what a launch starts from
inline constexpr std::string_view attempt_exit = "attempt.exit";     // classification inputs
inline constexpr std::string_view attempt_result = "attempt.result"; // the attempt host's reply
inline constexpr std::string_view task_stop = "task.stop";         // the run's stop reached a task
inline constexpr std::string_view task_wake = "task.wake";         // a task's timer fired
inline constexpr std::string_view task_error = "task.error";       // an error reply to a task
// The survivor poll fired: in traces recorded before scheduler.inbound,
// which now carries it (message "poll").
inline constexpr std::string_view scheduler_poll = "scheduler.poll";
inline constexpr std::string_view run_end = "run.end";             // final run observation
inline constexpr std::string_view scheduler_admission = "scheduler.admission"; // a pass's views
inline constexpr std::string_view scheduler_reconcile = "scheduler.reconcile"; // vanished tasks
inline constexpr std::string_view scheduler_liveness = "scheduler.liveness"; // active-stage probes
inline constexpr std::string_view scheduler_work_logs = "scheduler.work_logs"; // start-up: {"writable": {task: bool}}
inline constexpr std::string_view scheduler_sightings = "scheduler.sightings"; // examined tasks
inline constexpr std::string_view scheduler_group = "scheduler.group"; // a group's closing inputs
inline constexpr std::string_view scheduler_retry_blocked = "scheduler.retry_blocked"; // start-up
inline constexpr std::string_view scheduler_inbound = "scheduler.inbound"; // a message it handles
inline constexpr std::string_view scheduler_scan = "scheduler.scan"; // a pass's workspace refresh
// Decisions.
inline constexpr std::string_view supervisor_step = "supervisor.step";
inline constexpr std::string_view task_target = "task.target";
inline constexpr std::string_view task_reset_wait = "task.reset_wait"; // resumed after a restart
inline constexpr std::string_view attempt_launch = "attempt.launch";
inline constexpr std::string_view attempt_classified = "attempt.classified";
inline constexpr std::string_view attempt_cancel = "attempt.cancel"; // a termination
inline constexpr std::string_view worklog_row = "worklog.row";
inline constexpr std::string_view stage_step = "task.stage_step";   // worker, selfcheck
inline constexpr std::string_view review_step = "task.review_step"; // review
inline constexpr std::string_view task_end = "task.end";
inline constexpr std::string_view scheduler_startup = "scheduler.startup";
inline constexpr std::string_view scheduler_pass = "scheduler.pass";
inline constexpr std::string_view scheduler_admitted = "scheduler.admitted";
inline constexpr std::string_view scheduler_reconciled = "scheduler.reconciled";
inline constexpr std::string_view scheduler_active_stages = "scheduler.active_stages";
inline constexpr std::string_view scheduler_sighted = "scheduler.sighted";
inline constexpr std::string_view scheduler_group_close = "scheduler.group_close";
inline constexpr std::string_view scheduler_retry_cleared = "scheduler.retry_cleared";
inline constexpr std::string_view run_exit = "run.exit";

} // namespace ad::runtime::trace_kinds

namespace ad::runtime {

// A JSON text as a JSON value (a string when it does not parse).
json json_or_text(std::string_view text);

json changes_body(const std::vector<state_change>& changes);

json supervisor_failure_body(const supervisor_request& request, const task_state& task,
                             millis now);
json supervisor_step_body(const supervisor_outcome& out);

json run_end_body(const run_observation& obs);
result<run_observation> run_observation_from_json(const json& j);
json run_exit_body(const run_exit& e);

// The reconciliation of one orchestration scope (reconcile_orchestration):
// what it is decided on (the scope, the record of its active tasks that
// vanished from agent-task/, the tasks still present or running, the
// archive folders with complete.log per task) and what it decides.
struct reconcile_input {
  std::string scope;
  orchestration_record record;
  std::set<std::string> live;
  std::map<std::string, std::vector<std::string>> archives;
};
json reconcile_input_body(const reconcile_input& in);
// `run --retry-blocked`: every task's durable state and the clock reading
// (scheduler.retry_blocked) -> retry_blocked_changes (scheduler.retry_cleared).
struct retry_blocked_input {
  std::map<std::string, task_state> tasks;
  millis now = 0;
};
json retry_blocked_body(const retry_blocked_input& in);
result<retry_blocked_input> retry_blocked_input_from_json(const json& j);
result<reconcile_input> reconcile_input_from_json(const json& j);
json reconcile_outcome_body(const reconcile_outcome& out);

// (runtime/run/active_probe.hpp)
struct active_stage_reading;
struct active_review;

// The readings of the active stages a (re)start probes (the probe's answer
// per task, the succeeded locator and checklist read back) and the
// decision on them (decide_active_stages).
json active_stage_readings_body(const std::vector<active_stage_reading>& readings);
result<std::vector<active_stage_reading>> active_stage_readings_from_json(const json& j);
json active_review_body(const active_review& review);

// The sightings of a pass's examined tasks (sighting_changes decides the
// new work units and first sightings on them).
json sightings_body(const std::vector<task_sighting>& sightings);
result<std::vector<task_sighting>> sightings_from_json(const json& j);

// A group's closing: what it is decided on (the record's status, its tasks
// counted by status, whether anything of it is scanned or running, the
// outcome of the work log's move when it was tried) and the decision.
json group_reading_body(const group_reading& g);
result<group_reading> group_reading_from_json(const json& j);
json group_close_body(const group_close& out);

// The review reading of an attempt.result edge (sources with path, sha256,
// mtime, kind and verdict label; the seen set as [path, sha256] pairs).
json review_reading_body(const review_reading& r);
result<review_reading> review_reading_from_json(const json& j);

} // namespace ad::runtime

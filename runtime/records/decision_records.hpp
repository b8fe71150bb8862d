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
#include "runtime/trace/trace_kinds.hpp"



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

} // namespace ad::runtime

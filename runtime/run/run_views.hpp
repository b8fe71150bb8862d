#pragma once
// Glue between the workspace scan, durable state and the scheduler's task
// views for `agent-dispatch run`: maps a task's persisted state onto the
// stage-derivation facts (task_progress), builds the task_view admission
// works on, and lists the state changes a pass makes before admitting
// (begin_work_unit for tasks whose PLAN identity changed). Pure functions
// over values; the only file access is what make_task_view does (listing a
// group's completed folders). Never throws.

#include <map>
#include <string>
#include <vector>

#include "runtime/policy/policy.hpp"
#include "runtime/schedule/task_view.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/stage.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

// The persisted state of `task` that applies to its current work unit, or
// nullptr when state knows nothing about that work unit (a fresh task or a
// new PLAN generation).
const task_state* current_task_state(const state_model& state, const scanned_task& task);

// Stage facts from state. `activity` and `detail` come from the caller's
// liveness knowledge.
task_progress progress_from_state(const task_state* st, const policy& pol,
                                  task_activity activity = task_activity::idle,
                                  std::string detail = {});

// begin_work_unit for every scanned task whose work unit is unknown to state
// or differs from the recorded one (a group-level or recovery task without a
// header uses its name as work unit).
std::vector<state_change> work_unit_changes(const state_model& state,
                                            const std::vector<scanned_task>& tasks);

// What a pass knows of one examined task when it decides the state changes
// of its sighting: the work unit its folder names, the one durable state
// holds (if any), and whether the task's orchestration record already
// knows it (else the archive folders it has now: its baseline).
struct task_sighting {
  std::string task;
  std::string work_unit;
  bool state_known = false;
  std::string state_work_unit;
  bool orchestration_known = false;
  std::vector<std::string> archive_baseline;
};

// begin_work_unit for each sighting whose work unit state does not hold, in
// order, then one observe_orchestration per scope (group) for the tasks its
// record does not know yet, by scope.
std::vector<state_change> sighting_changes(const std::vector<task_sighting>& sightings);

// The work unit id of a scanned task: its header's id, else "<name>::recovery".
std::string work_unit_of(const scanned_task& task);

// The plan number of a scanned task (0 without a header).
int64_t plan_number_of(const scanned_task& task);

// "local" or "cloud" (cloud when the PLAN names no lane).
std::string lane_of(const scanned_task& task);

} // namespace ad::runtime

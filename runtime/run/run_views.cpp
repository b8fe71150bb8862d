#include "runtime/run/run_views.hpp"

#include <charconv>
#include <map>

#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

std::string work_unit_of(const scanned_task& task) {
  auto id = task.work_unit_id();
  return id.empty() ? task.name + "::recovery" : id;
}

int64_t plan_number_of(const scanned_task& task) {
  if (!task.header)
    return 0;
  int64_t n = 0;
  const auto& s = task.header->plan;
  std::from_chars(s.data(), s.data() + s.size(), n);
  return n;
}

std::string lane_of(const scanned_task& task) {
  return task.lane && *task.lane == task_lane::local ? "local" : "cloud";
}

const task_state* current_task_state(const state_model& state, const scanned_task& task) {
  auto it = state.tasks.find(task.name);
  if (it == state.tasks.end() || it->second.work_unit_id != work_unit_of(task))
    return nullptr;
  return &it->second;
}

task_progress progress_from_state(const task_state* st, const policy& pol, task_activity activity,
                                  std::string detail) {
  task_progress p;
  p.activity = activity;
  p.active_detail = std::move(detail);
  if (!st)
    return p;
  p.worker_done = st->worker_done;
  p.selfcheck_done = st->selfcheck_done;
  if (st->blocked)
    p.blocked_reason = st->blocked->reason.empty() ? "blocked" : st->blocked->reason;
  p.active_stage = st->active_stage;
  if (st->completing_decision) {
    const route_decision& completing = *st->completing_decision;
    const auto* target = pol.find_target(completing.selected_target);
    if (!target || completing.stage != "worker")
      p.completing = completing_decision::invalid;
    else
      p.completing = target->selfcheck_required ? completing_decision::local_model
                                                : completing_decision::cloud_model;
  }
  return p;
}

std::vector<state_change> sighting_changes(const std::vector<task_sighting>& sightings) {
  std::vector<state_change> out;
  std::map<std::string, std::vector<observed_task>> unknown; // scope -> first sightings
  for (const auto& s : sightings) {
    if (!s.state_known || s.state_work_unit != s.work_unit)
      out.push_back(begin_work_unit{s.task, s.work_unit});
    if (!s.orchestration_known)
      unknown[task_group(s.task)].push_back({s.task, s.archive_baseline});
  }
  for (auto& [scope, tasks] : unknown)
    out.push_back(observe_orchestration{scope, std::move(tasks)});
  return out;
}

std::vector<state_change> work_unit_changes(const state_model& state,
                                            const std::vector<scanned_task>& tasks) {
  std::vector<state_change> out;
  for (const auto& t : tasks) {
    auto id = work_unit_of(t);
    auto it = state.tasks.find(t.name);
    if (it == state.tasks.end() || it->second.work_unit_id != id)
      out.push_back(begin_work_unit{t.name, id});
  }
  return out;
}

} // namespace ad::runtime

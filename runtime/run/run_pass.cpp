#include "runtime/run/run_pass.hpp"

#include "runtime/policy/supervisor.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/schedule/review_observe.hpp"
#include "runtime/schedule/view_from_scan.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

pass_plan plan_pass(const pass_input& in) {
  pass_plan out;
  const auto& scan = *in.scan;
  const auto& state = *in.state;
  out.changes = work_unit_changes(state, scan.tasks);

  // Orchestration: every task seen for the first time in its scope.
  std::map<std::string, std::vector<observed_task>> sightings;
  for (const auto& t : scan.tasks) {
    auto scope = task_group(t.name);
    auto rec = state.orchestrations.find(scope);
    bool known = rec != state.orchestrations.end() &&
                 rec->second.status != orchestration_status::complete &&
                 rec->second.tasks.count(t.name) != 0;
    if (known)
      continue;
    observed_task seen{t.name, {}};
    for (const auto& p : find_archived_task_folders(scan.task_root, t.name))
      seen.archive_baseline.push_back(p.string());
    sightings[scope].push_back(std::move(seen));
  }
  for (auto& [scope, tasks] : sightings)
    out.changes.push_back(observe_orchestration{scope, std::move(tasks)});

  admission_input adm;
  adm.max_parallel = in.max_parallel;
  adm.claims = state.claims;
  for (const auto& [name, info] : in.live)
    adm.live.push_back(live_task{name, info.where});
  for (const auto& t : scan.tasks) {
    const task_state* st = current_task_state(state, t);
    auto live = in.live.find(t.name);
    live_where where = live == in.live.end() ? live_where::none : live->second.where;
    task_activity activity = where == live_where::none ? task_activity::idle : task_activity::live;
    auto progress = progress_from_state(st, *in.pol, activity,
                                        live == in.live.end() ? "" : live->second.detail);
    if (where == live_where::none)
      progress.active_stage.clear(); // a stale stage was cleared by the caller
    auto view = make_task_view(t, progress, scan.task_root, where);
    if (where == live_where::elsewhere && !live->second.detail.empty())
      view.live_detail = live->second.detail;
    out.views.push_back(view);
  }
  adm.tasks = out.views;
  out.admission = plan_admission(adm);
  for (const auto& [owner, claim] : out.admission.claims_taken)
    out.changes.push_back(replace_claim{owner, claim});
  return out;
}

group_reading read_group(const std::string& scope, const orchestration_record& record,
                         bool busy) {
  group_reading g;
  g.scope = scope;
  g.status = record.status;
  for (const auto& [task, rec] : record.tasks)
    ++(rec.status == orchestration_task_status::complete ? g.complete : g.active);
  g.busy = busy;
  return g;
}

bool group_closes(const group_reading& g) {
  return !g.busy && g.status != orchestration_status::complete && g.complete > 0 &&
         g.active == 0;
}

group_close decide_group_close(const group_reading& g) {
  group_close out;
  out.close = group_closes(g);
  if (!out.close)
    return out;
  if (!g.archived.attempted)
    out.error = "work-log[" + g.scope + "]=not archived";
  else if (!g.archived.ok && !g.archived.not_found)
    out.error = "work-log[" + g.scope + "]=" + g.archived.error;
  else
    out.changes.push_back(set_orchestration_status{g.scope, orchestration_status::complete});
  return out;
}

run_observation observe_run_end(const pass_plan& last, bool task_group_requested, int completed,
                                const std::vector<std::string>& errors) {
  run_observation obs;
  obs.task_group_requested = task_group_requested;
  obs.observed = static_cast<int>(last.views.size()) + completed;
  obs.complete = completed;
  for (const auto& e : last.admission.entries) {
    switch (e.kind) {
      case admission_kind::complete:
        ++obs.complete;
        break;
      case admission_kind::running_elsewhere:
        obs.external_live.push_back(e.task + ": " + e.reason);
        break;
      default:
        obs.not_complete.push_back(e.task + ": " +
                                   (e.reason.empty() ? std::string(to_string(e.kind)) : e.reason));
    }
  }
  for (const auto& e : errors)
    obs.reconciliation_pending.push_back(e);
  return obs;
}

std::vector<state_change> retry_blocked_changes(const std::map<std::string, task_state>& tasks,
                                                millis now) {
  std::vector<state_change> changes;
  for (const auto& [name, st] : tasks) {
    auto cleared = clear_for_retry(name, st, now);
    changes.insert(changes.end(), cleared.changes.begin(), cleared.changes.end());
  }
  return changes;
}

std::vector<state_change> work_log_unblock_changes(
  const std::map<std::string, task_state>& tasks,
  const std::function<bool(const std::string& task)>& writable, millis now) {
  std::vector<state_change> changes;
  for (const auto& [name, st] : tasks) {
    if (!blocked_by_work_log(st) || !writable(name))
      continue;
    auto cleared = clear_for_retry(name, st, now);
    changes.insert(changes.end(), cleared.changes.begin(), cleared.changes.end());
  }
  return changes;
}

} // namespace ad::runtime

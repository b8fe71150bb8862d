#include "runtime/run/task_spec_of.hpp"

#include <filesystem>

#include "runtime/run/run_views.hpp"

namespace ad::runtime {

namespace {

// The spec's stage, folders, route, work unit and write set as scanned.
void fill_from_scan(task_spec& spec, const scanned_task& t) {
  spec.task_dir = t.directory.string();
  if (t.plan)
    spec.plan = t.plan->string();
  else if (t.recovery_plan_log)
    spec.plan = t.recovery_plan_log->string();
  // Without an active CODE_REVIEW (a recovery folder) the review prompt
  // names the task folder.
  spec.review = t.review ? t.review->string() : t.directory.string();
  spec.lane = lane_of(t);
  spec.grade = t.grade > 0 ? t.grade : 1;
  spec.work_unit_id = work_unit_of(t);
  spec.write_paths = t.write_set.paths;
}

// Only worker, self-check and review stages are admitted or adopted.
task_stage stage_or_worker(std::string_view name) {
  auto stage = parse_run_stage(name);
  return stage.is_ok() ? *stage : task_stage::worker;
}

} // namespace

task_spec spec_of_admission(const scanned_task& t, const admission_entry& e,
                            const state_model& model) {
  task_spec spec;
  spec.name = t.name;
  spec.stage = stage_or_worker(to_string(e.stage));
  fill_from_scan(spec, t);
  spec.plan_number = plan_number_of(t);
  auto c = model.attempt_counters.find(attempt_key{t.name, spec.plan_number, spec.stage_name()});
  spec.last_attempt = c == model.attempt_counters.end() ? 0 : c->second;
  return spec;
}

task_spec spec_of_adoption(const attempt_adoption& a, const scanned_task* t,
                           const state_model& model, const std::string& task_root) {
  task_spec spec;
  spec.name = a.task;
  spec.stage = stage_or_worker(a.stage);
  const auto& k = a.attempt;
  if (t) {
    fill_from_scan(spec, *t);
  } else {
    spec.plan = k.plan_path;
    spec.review = k.review_path;
    spec.task_dir = !k.plan_path.empty()
                      ? std::filesystem::path(k.plan_path).parent_path().string()
                      : (std::filesystem::path(task_root) / a.task).string();
    if (auto it = model.tasks.find(a.task); it != model.tasks.end()) {
      spec.work_unit_id = it->second.work_unit_id;
      if (auto d = it->second.decisions.find(a.stage); d != it->second.decisions.end()) {
        spec.lane = d->second->lane;
        spec.grade = d->second->grade > 0 ? d->second->grade : 1;
      }
    }
    if (auto c = model.claims.find(a.task); c != model.claims.end())
      spec.write_paths.assign(c->second.paths.begin(), c->second.paths.end());
  }
  spec.plan_number = k.plan_number;
  spec.last_attempt = k.attempt;
  spec.adopting = true;
  spec.adopted = {a.locator, k.keeper_pid, k.keeper_start_token, k.cli, k.model, k.node};
  return spec;
}

} // namespace ad::runtime

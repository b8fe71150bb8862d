#include "actors/scheduler/quota_batch.hpp"

#include "runtime/run/admission_quota.hpp"

namespace ad::actors {

std::vector<runtime::planned_probe> admission_probe_plan(const run_context& ctx,
                                                         const std::vector<task_spec>& specs,
                                                         const runtime::state_model& model,
                                                         runtime::millis now) {
  std::vector<runtime::admitted_worker> workers;
  for (const auto& spec : specs) {
    if (spec.stage != runtime::task_stage::worker)
      continue;
    runtime::admitted_worker w{spec.name, spec.lane, spec.grade, nullptr};
    // State of an older work unit starts over: it has no decision to reuse.
    if (auto it = model.tasks.find(spec.name);
        it != model.tasks.end() && it->second.work_unit_id == spec.work_unit_id)
      w.state = &it->second;
    workers.push_back(w);
  }
  if (workers.empty())
    return {};
  auto requests = runtime::admission_probe_requests(ctx.pol, ctx.zone, workers, now);
  return runtime::plan_quota_probes(ctx.pol, requests);
}

void attach_admission_quota(std::vector<task_spec>& specs, const runtime::probe_snapshot& snap) {
  auto quota = runtime::to_quota_snapshot(snap);
  for (auto& spec : specs) {
    if (spec.stage != runtime::task_stage::worker)
      continue;
    spec.has_admission_quota = true;
    spec.admission_quota = quota;
  }
}

} // namespace ad::actors

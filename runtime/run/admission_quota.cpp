#include "runtime/run/admission_quota.hpp"

#include <algorithm>

#include "runtime/policy/selection.hpp"
#include "runtime/process/run_captured.hpp"

namespace ad::runtime {

std::vector<probe_request> admission_probe_requests(const policy& pol, const time_zone& zone,
                                                    const std::vector<admitted_worker>& workers,
                                                    millis now) {
  std::vector<probe_request> out;
  for (const auto& w : workers) {
    const task_state* st = w.state;
    auto decision = st ? st->decisions.find("worker") : decltype(st->decisions)::const_iterator{};
    bool decided = st && decision != st->decisions.end();
    probe_request req;
    req.task = w.task;
    if (st && st->handoff && decided) {
      req.mode = probe_request::kind::retry_handoff;
      for (const auto& c : decision->second->candidates)
        req.candidate_ids.push_back(c.target);
      req.used_ids = {st->handoff->failed_target};
      out.push_back(std::move(req));
      continue;
    }
    if (decided)
      continue; // a persisted decision is reused, not selected again
    auto rule = match_rule(pol, zone, "worker", w.lane, std::clamp(w.grade, 1, 10), now);
    if (!rule.is_ok())
      continue; // selection reports it
    req.candidate_ids = (*rule)->candidates;
    out.push_back(std::move(req));
  }
  return out;
}

quota_snapshot merge_quota(const quota_snapshot& admission, const quota_snapshot* task_quota) {
  quota_snapshot out = admission;
  if (task_quota == nullptr)
    return out;
  for (const auto& [target, status] : task_quota->status_by_target)
    if (status == quota_exhausted_for_work_unit || !out.status_by_target.count(target))
      out.status_by_target[target] = status;
  if (out.taken_at == 0)
    out.taken_at = task_quota->taken_at;
  return out;
}

json probe_plan_to_json(const std::vector<planned_probe>& plan) {
  json out = json::array();
  for (const auto& p : plan)
    out.push_back({{"argv", p.argv}, {"targets", p.target_ids}});
  return out;
}

result<std::vector<planned_probe>> probe_plan_from_json(const json& j) {
  if (!j.is_array())
    return status::invalid_argument("quota probe plan: not an array");
  std::vector<planned_probe> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    auto strings = [&](const char* key, std::vector<std::string>& into) {
      if (!e.is_object() || !e.contains(key) || !e[key].is_array())
        return false;
      for (const auto& s : e[key]) {
        if (!s.is_string())
          return false;
        into.push_back(s.get<std::string>());
      }
      return true;
    };
    planned_probe p;
    if (!strings("argv", p.argv) || !strings("targets", p.target_ids) || p.argv.empty())
      return status::invalid_argument("quota probe plan: entry " + std::to_string(i) +
                                      " needs a non-empty argv and targets");
    out.push_back(std::move(p));
  }
  return out;
}

quota_probe_runner::output process_probe_runner::run(const std::vector<std::string>& argv) {
  capture_options options;
  options.cwd = cwd_;
  options.timeout = timeout_;
  auto run = run_captured(argv, options);
  return {run.exit_code, std::move(run.stdout_text)};
}

std::vector<planned_probe> admission_probe_plan(const policy& pol, const time_zone& zone,
                                                const std::vector<task_spec>& specs,
                                                const state_model& model, millis now) {
  std::vector<admitted_worker> workers;
  for (const auto& spec : specs) {
    if (spec.stage != task_stage::worker)
      continue;
    admitted_worker w{spec.name, spec.lane, spec.grade, nullptr};
    if (auto it = model.tasks.find(spec.name);
        it != model.tasks.end() && it->second.work_unit_id == spec.work_unit_id)
      w.state = &it->second;
    workers.push_back(w);
  }
  if (workers.empty())
    return {};
  return plan_quota_probes(pol, admission_probe_requests(pol, zone, workers, now));
}

void attach_admission_quota(std::vector<task_spec>& specs, const probe_snapshot& snap) {
  auto quota = to_quota_snapshot(snap);
  for (auto& spec : specs) {
    if (spec.stage != task_stage::worker)
      continue;
    spec.has_admission_quota = true;
    spec.admission_quota = quota;
  }
}

} // namespace ad::runtime

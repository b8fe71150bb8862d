#include "actors/scheduler/trace_points.hpp"

#include <filesystem>
#include <memory>

#include "runtime/agents/adapter.hpp"
#include "runtime/attempt/attempt_run.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/workspace/checklist.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/records/scan_records.hpp"
#include "runtime/schedule/admission_json.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/trace/trace_writer.hpp"

namespace ad::actors {

namespace kinds = runtime::trace_kinds;
using runtime::json;

void trace_scheduler(const run_context& ctx, std::string_view kind, int64_t cause,
                     const std::vector<runtime::state_change>& changes,
                     const std::vector<task_spec>& start, const std::vector<task_spec>& adopt) {
  if (!ctx.trace)
    return;
  json started = json::array();
  for (const auto& spec : start)
    started.push_back(json{{"task", spec.name}, {"stage", spec.stage_name()}});
  json body{{"changes", runtime::changes_body(changes)}, {"start", started}};
  if (!adopt.empty()) {
    json adopted = json::array();
    for (const auto& spec : adopt)
      adopted.push_back(json{{"task", spec.name}, {"stage", spec.stage_name()},
                             {"attempt", spec.last_attempt}});
    body["adopt"] = std::move(adopted);
  }
  ctx.trace->decision(kind, cause, body);
}

int64_t trace_scheduler_inbound(const run_context& ctx, std::string_view message,
                                runtime::millis now, const std::function<json()>& detail) {
  if (!ctx.trace)
    return 0;
  json body = detail ? detail() : json::object();
  body["message"] = message;
  body["now"] = now;
  return ctx.trace->edge(kinds::scheduler_inbound, body);
}

void trace_scan(const run_context& ctx, const runtime::result<runtime::scan_refresh>& refreshed,
                const runtime::task_scan_view& scan) {
  if (!ctx.trace)
    return;
  if (!refreshed.is_ok()) {
    ctx.trace->edge(kinds::scheduler_scan, json{{"error", refreshed.error().message()}});
    return;
  }
  json tasks = json::array();
  if (refreshed->full) {
    for (const auto& [name, t] : scan.tasks())
      tasks.push_back(runtime::scanned_task_to_json(t));
  } else {
    for (const auto& name : refreshed->changed)
      if (const auto* t = scan.find(name))
        tasks.push_back(runtime::scanned_task_to_json(*t));
  }
  ctx.trace->edge(kinds::scheduler_scan, json{{"full", refreshed->full},
                                              {"changed", refreshed->changed},
                                              {"tasks", std::move(tasks)}});
}

void trace_admission(const run_context& ctx, const runtime::planner_result& planned) {
  if (!ctx.trace)
    return;
  if (!planned.sightings.empty()) {
    auto seen =
      ctx.trace->edge(kinds::scheduler_sightings, runtime::sightings_body(planned.sightings));
    // The planner's changes before the claims it adds last.
    std::vector<runtime::state_change> sighted(
      planned.changes.begin(),
      planned.changes.end() - static_cast<std::ptrdiff_t>(planned.claims_taken.size()));
    ctx.trace->decision(kinds::scheduler_sighted, seen,
                        json{{"changes", runtime::changes_body(sighted)}});
  }
  auto edge =
    ctx.trace->edge(kinds::scheduler_admission, runtime::admission_input_to_json(planned.input));
  runtime::admission_plan plan;
  plan.entries = planned.examined;
  plan.admitted = planned.admitted;
  plan.claims_taken = planned.claims_taken;
  plan.capacity_waiters = planned.capacity_waiters;
  plan.occupied = planned.occupied;
  ctx.trace->decision(kinds::scheduler_admitted, edge, runtime::admission_plan_to_json(plan));
}

runtime::active_review review_active_stages_traced(
  const run_context& ctx, const std::vector<runtime::active_stage_reading>& readings) {
  auto review = runtime::decide_active_stages(readings, &ctx.pol);
  if (ctx.trace) {
    auto edge =
      ctx.trace->edge(kinds::scheduler_liveness, runtime::active_stage_readings_body(readings));
    ctx.trace->decision(kinds::scheduler_active_stages, edge, runtime::active_review_body(review));
  }
  return review;
}

void trace_work_logs(const run_context& ctx, const std::map<std::string, bool>& writable) {
  if (ctx.trace)
    ctx.trace->edge(kinds::scheduler_work_logs, runtime::json{{"writable", writable}});
}

void trace_group_close(const run_context& ctx, const runtime::group_reading& group,
                       const runtime::group_close& closed) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::scheduler_group, runtime::group_reading_body(group));
  ctx.trace->decision(kinds::scheduler_group_close, edge, runtime::group_close_body(closed));
}

void trace_reconcile(const run_context& ctx, const runtime::reconcile_input& in,
                     const runtime::reconcile_outcome& out) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::scheduler_reconcile, runtime::reconcile_input_body(in));
  ctx.trace->decision(kinds::scheduler_reconciled, edge, runtime::reconcile_outcome_body(out));
}

void trace_retry_blocked(const run_context& ctx,
                         const std::map<std::string, runtime::task_state>& tasks,
                         runtime::millis now, const std::vector<runtime::state_change>& changes) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::scheduler_retry_blocked,
                              runtime::retry_blocked_body({tasks, now}));
  ctx.trace->decision(kinds::scheduler_retry_cleared, edge,
                      json{{"changes", runtime::changes_body(changes)}});
}

void trace_run_exit(const run_context& ctx, const runtime::run_observation& obs,
                    const runtime::run_exit& exit) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::run_end, runtime::run_end_body(obs));
  ctx.trace->decision(kinds::run_exit, edge, runtime::run_exit_body(exit));
}

} // namespace ad::actors

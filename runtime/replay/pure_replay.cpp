#include "runtime/replay/pure_replay.hpp"

#include <memory>

#include "runtime/replay/decision_records.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/schedule/admission_json.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

supervisor_outcome supervise_with_cooldowns(const policy& pol, const time_zone& zone,
                                            target_cooldowns& cooldowns, const task_state& task,
                                            const supervisor_request& req, millis now) {
  auto out = decide_after_failure(pol, zone, task, cooldowns, req, now);
  out.cooldowns.expire(now);
  cooldowns = out.cooldowns;
  return out;
}

namespace {

using decisions = result<std::vector<replayed_decision>>;

struct supervisor_replay {
  policy pol;
  time_zone zone;
  target_cooldowns cooldowns;
};

decisions replay_failure(supervisor_replay& s, const json& body) {
  if (!body.is_object() || !body.contains("request") || !body.contains("task_state") ||
      !body.contains("now") || !body["now"].is_number_integer())
    return status::invalid_argument("supervisor.failure: needs request, task_state and now");
  auto req = supervisor_request_from_json(body["request"]);
  if (!req.is_ok())
    return req.error();
  auto task = task_from_json_text(dump_json(body["task_state"]), "supervisor.failure.task_state");
  if (!task.is_ok())
    return task.error();
  auto out = supervise_with_cooldowns(s.pol, s.zone, s.cooldowns, *task, *req,
                                      body["now"].get<millis>());
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::supervisor_step), supervisor_step_body(out)}};
}

decisions replay_quota_batch(supervisor_replay& s, const json& body) {
  if (!body.is_object() || !body.contains("snapshot"))
    return status::invalid_argument("supervisor.quota_batch: needs snapshot");
  auto snap = probe_snapshot_from_json(body["snapshot"]);
  if (!snap.is_ok())
    return snap.error();
  s.cooldowns.apply_snapshot(*snap, s.pol.timeouts.quota_cooldown_s);
  return std::vector<replayed_decision>{};
}

decisions replay_run_end(const json& body) {
  auto obs = run_observation_from_json(body);
  if (!obs.is_ok())
    return obs.error();
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::run_exit), run_exit_body(compute_run_exit(*obs))}};
}

decisions replay_admission(const json& body) {
  auto in = admission_input_from_json(body);
  if (!in.is_ok())
    return in.error();
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::scheduler_admitted), admission_plan_to_json(plan_admission(*in))}};
}

decisions replay_reconcile(const json& body) {
  auto in = reconcile_input_from_json(body);
  if (!in.is_ok())
    return in.error();
  auto out = reconcile_orchestration(in->scope, in->record, in->live, in->archives);
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::scheduler_reconciled), reconcile_outcome_body(out)}};
}

decisions replay_liveness(const policy& pol, const json& body) {
  auto readings = active_stage_readings_from_json(body);
  if (!readings.is_ok())
    return readings.error();
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::scheduler_active_stages),
     active_review_body(decide_active_stages(*readings, &pol))}};
}

decisions replay_sightings(const json& body) {
  auto sightings = sightings_from_json(body);
  if (!sightings.is_ok())
    return sightings.error();
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::scheduler_sighted),
     json{{"changes", changes_body(sighting_changes(*sightings))}}}};
}

decisions replay_group(const json& body) {
  auto g = group_reading_from_json(body);
  if (!g.is_ok())
    return g.error();
  return std::vector<replayed_decision>{
    {std::string(trace_kinds::scheduler_group_close), group_close_body(decide_group_close(*g))}};
}

} // namespace

void add_pure_replay_handlers(replay_handlers& handlers, const policy& pol, const time_zone& zone) {
  auto s = std::make_shared<supervisor_replay>(supervisor_replay{pol, zone, {}});
  handlers[std::string(trace_kinds::supervisor_failure)] = {
    {std::string(trace_kinds::supervisor_step)},
    [s](const json& body) { return replay_failure(*s, body); }};
  handlers[std::string(trace_kinds::quota_batch)] = {
    {}, [s](const json& body) { return replay_quota_batch(*s, body); }};
  handlers[std::string(trace_kinds::scheduler_admission)] = {
    {std::string(trace_kinds::scheduler_admitted)},
    [](const json& body) { return replay_admission(body); }};
  handlers[std::string(trace_kinds::scheduler_reconcile)] = {
    {std::string(trace_kinds::scheduler_reconciled)},
    [](const json& body) { return replay_reconcile(body); }};
  handlers[std::string(trace_kinds::scheduler_liveness)] = {
    {std::string(trace_kinds::scheduler_active_stages)},
    [s](const json& body) { return replay_liveness(s->pol, body); }};
  handlers[std::string(trace_kinds::scheduler_sightings)] = {
    {std::string(trace_kinds::scheduler_sighted)},
    [](const json& body) { return replay_sightings(body); }};
  handlers[std::string(trace_kinds::scheduler_group)] = {
    {std::string(trace_kinds::scheduler_group_close)},
    [](const json& body) { return replay_group(body); }};
  handlers[std::string(trace_kinds::run_end)] = {{std::string(trace_kinds::run_exit)},
                                                 [](const json& body) { return replay_run_end(body); }};
}

} // namespace ad::runtime

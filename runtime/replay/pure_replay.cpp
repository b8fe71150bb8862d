#include "runtime/replay/pure_replay.hpp"

#include <memory>

#include "runtime/records/decision_records.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

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

} // namespace

void add_pure_replay_handlers(replay_handlers& handlers, const policy& pol, const time_zone& zone) {
  auto s = std::make_shared<supervisor_replay>(supervisor_replay{pol, zone, {}});
  handlers[std::string(trace_kinds::supervisor_failure)] = {
    {std::string(trace_kinds::supervisor_step)},
    [s](const json& body) { return replay_failure(*s, body); }};
  handlers[std::string(trace_kinds::quota_batch)] = {
    {}, [s](const json& body) { return replay_quota_batch(*s, body); }};
}

} // namespace ad::runtime

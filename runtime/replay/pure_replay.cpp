#include "runtime/replay/pure_replay.hpp"

#include <memory>

#include "runtime/records/decision_records.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/schedule/admission_json.hpp"
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

// A handler for an edge whose body `read` turns into the value one pure
// rule (`decide`, returning the decision's body) decides `decision` on.
template <class Read, class Decide>
replay_handler one_rule(std::string_view decision, Read read, Decide decide) {
  return {{std::string(decision)}, [=, kind = std::string(decision)](const json& body) -> decisions {
            auto in = read(body);
            if (!in.is_ok())
              return in.error();
            return std::vector<replayed_decision>{{kind, decide(*in)}};
          }};
}

} // namespace

void add_pure_replay_handlers(replay_handlers& handlers, const policy& pol, const time_zone& zone) {
  auto s = std::make_shared<supervisor_replay>(supervisor_replay{pol, zone, {}});
  handlers[std::string(trace_kinds::supervisor_failure)] = {
    {std::string(trace_kinds::supervisor_step)},
    [s](const json& body) { return replay_failure(*s, body); }};
  handlers[std::string(trace_kinds::quota_batch)] = {
    {}, [s](const json& body) { return replay_quota_batch(*s, body); }};
  namespace k = trace_kinds;
  handlers[std::string(k::scheduler_liveness)] = one_rule(
    k::scheduler_active_stages, active_stage_readings_from_json,
    [s](const std::vector<active_stage_reading>& r) {
      return active_review_body(decide_active_stages(r, &s->pol));
    });
  handlers[std::string(k::scheduler_reconcile)] =
    one_rule(k::scheduler_reconciled, reconcile_input_from_json, [](const reconcile_input& in) {
      return reconcile_outcome_body(
        reconcile_orchestration(in.scope, in.record, in.live, in.archives));
    });
  handlers[std::string(k::scheduler_group)] =
    one_rule(k::scheduler_group_close, group_reading_from_json,
             [](const group_reading& g) { return group_close_body(decide_group_close(g)); });
  handlers[std::string(k::scheduler_sightings)] = one_rule(
    k::scheduler_sighted, sightings_from_json, [](const std::vector<task_sighting>& seen) {
      return json{{"changes", changes_body(sighting_changes(seen))}};
    });
  handlers[std::string(k::scheduler_admission)] =
    one_rule(k::scheduler_admitted, admission_input_from_json,
             [](const admission_input& in) { return admission_plan_to_json(plan_admission(in)); });
  handlers[std::string(k::scheduler_retry_blocked)] =
    one_rule(k::scheduler_retry_cleared, retry_blocked_input_from_json,
             [](const retry_blocked_input& in) {
               return json{{"changes", changes_body(retry_blocked_changes(in.tasks, in.now))}};
             });
  handlers[std::string(k::run_end)] =
    one_rule(k::run_exit, run_observation_from_json,
             [](const run_observation& obs) { return run_exit_body(compute_run_exit(obs)); });
}

} // namespace ad::runtime

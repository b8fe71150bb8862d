// JSON mapping of state changes: {"op": "<name>", <fields>...}, written
// here and read by change_reader.cpp.
#include <utility>

#include "runtime/state/change.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

namespace {

template <class T>
struct op;
#define AD_STATE_OP(type) \
  template <>             \
  struct op<type> {       \
    static constexpr const char* name = #type; \
  };
AD_STATE_OP(begin_work_unit)
AD_STATE_OP(set_task_flag)
AD_STATE_OP(set_blocked)
AD_STATE_OP(clear_blocked)
AD_STATE_OP(set_active_stage)
AD_STATE_OP(clear_active_stage)
AD_STATE_OP(set_counter)
AD_STATE_OP(record_failure)
AD_STATE_OP(reset_failures)
AD_STATE_OP(record_decision)
AD_STATE_OP(set_completing_decision)
AD_STATE_OP(set_quota_snapshot)
AD_STATE_OP(set_retry_handoff)
AD_STATE_OP(clear_retry_handoff)
AD_STATE_OP(record_attempt_started)
AD_STATE_OP(set_intervention)
AD_STATE_OP(clear_intervention)
AD_STATE_OP(record_write_set)
AD_STATE_OP(remove_task)
AD_STATE_OP(set_attempt_counter)
AD_STATE_OP(replace_claim)
AD_STATE_OP(release_claim)
AD_STATE_OP(observe_orchestration)
AD_STATE_OP(set_orchestration_status)
AD_STATE_OP(complete_orchestration_task)
AD_STATE_OP(record_claim_violation)
AD_STATE_OP(record_attempt_usage)
#undef AD_STATE_OP

// Every change with only a task name.
template <class T>
concept task_only = std::is_same_v<T, clear_blocked> || std::is_same_v<T, clear_active_stage>
                    || std::is_same_v<T, clear_retry_handoff>
                    || std::is_same_v<T, clear_intervention> || std::is_same_v<T, remove_task>;

template <task_only T>
void encode(json& j, const T& x) {
  j["task"] = x.task;
}

void encode(json& j, const begin_work_unit& x) {
  j["task"] = x.task;
  j["work_unit_id"] = x.work_unit_id;
}

void encode(json& j, const set_task_flag& x) {
  j["task"] = x.task;
  j["flag"] = x.flag == task_flag::worker_done ? "worker_done" : "selfcheck_done";
  j["value"] = x.value;
}

void encode(json& j, const set_blocked& x) {
  j["task"] = x.task;
  j["info"] = x.info;
}

void encode(json& j, const set_active_stage& x) {
  j["task"] = x.task;
  j["stage"] = x.stage;
  j["locator"] = x.locator;
}

void encode(json& j, const set_counter& x) {
  j["task"] = x.task;
  j["name"] = x.name;
  j["value"] = x.value;
}

template <class T>
  requires std::is_same_v<T, record_failure> || std::is_same_v<T, reset_failures>
void encode(json& j, const T& x) {
  j["task"] = x.task;
  j["stage"] = x.stage;
}

template <class T>
  requires std::is_same_v<T, record_decision> || std::is_same_v<T, set_completing_decision>
void encode(json& j, const T& x) {
  j["task"] = x.task;
  j["decision"] = x.decision;
}

void encode(json& j, const set_quota_snapshot& x) {
  j["task"] = x.task;
  j["quota"] = x.quota;
}

void encode(json& j, const set_retry_handoff& x) {
  j["task"] = x.task;
  j["handoff"] = x.handoff;
}

void encode(json& j, const record_attempt_started& x) {
  j["task"] = x.task;
  j["stage"] = x.stage;
  j["plan"] = x.plan;
  j["role"] = x.role;
  j["attempt"] = x.attempt;
  j["locator"] = x.locator;
  if (!x.consume_handoff_id.empty())
    j["consume_handoff_id"] = x.consume_handoff_id;
}

void encode(json& j, const set_intervention& x) {
  j["task"] = x.task;
  j["context"] = x.context;
}

void encode(json& j, const record_attempt_usage& x) {
  j["attempt_id"] = x.attempt_id;
  j["task"] = x.task;
  j["target"] = x.target;
  j["usage"] = usage_to_json(x.usage);
}

void encode(json& j, const record_write_set& x) {
  j["task"] = x.task;
  j["attempt_id"] = x.attempt_id;
  j["phase"] = x.phase == snapshot_phase::before ? "before" : "after";
  j["files"] = x.files;
}

void encode(json& j, const set_attempt_counter& x) {
  j["task"] = x.key.task;
  j["plan"] = x.key.plan;
  j["role"] = x.key.role;
  j["value"] = x.value;
}

void encode(json& j, const replace_claim& x) {
  j["owner"] = x.owner;
  j["claim"] = x.claim;
}

void encode(json& j, const release_claim& x) { j["owner"] = x.owner; }

void encode(json& j, const observe_orchestration& x) {
  j["scope"] = x.scope;
  json tasks = json::array();
  for (const auto& t : x.tasks)
    tasks.push_back(json{{"task", t.task}, {"archive_baseline", t.archive_baseline}});
  j["tasks"] = std::move(tasks);
}

void encode(json& j, const set_orchestration_status& x) {
  j["scope"] = x.scope;
  j["status"] = to_string(x.status);
}

void encode(json& j, const complete_orchestration_task& x) {
  j["scope"] = x.scope;
  j["task"] = x.task;
  j["archive"] = x.archive;
}

void encode(json& j, const record_claim_violation& x) {
  j["task"] = x.task;
  j["attempt"] = x.attempt;
  j["path"] = x.path;
  j["other_task"] = x.other_task;
  j["attribution"] = x.attribution;
  j["candidates"] = x.candidates;
  j["action"] = x.action;
  j["at"] = x.at;
}

} // namespace

std::string change_name(const state_change& change) {
  return std::visit([](const auto& x) -> std::string { return op<std::decay_t<decltype(x)>>::name; },
                    change);
}

json change_to_json(const state_change& change) {
  json j = json::object();
  std::visit(
    [&](const auto& x) {
      j["op"] = op<std::decay_t<decltype(x)>>::name;
      encode(j, x);
    },
    change);
  return j;
}

std::string changes_to_json_text(const std::vector<state_change>& changes) {
  json arr = json::array();
  for (const auto& c : changes)
    arr.push_back(change_to_json(c));
  return dump_json(arr);
}

} // namespace ad::runtime

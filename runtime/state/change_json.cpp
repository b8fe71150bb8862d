// JSON mapping of state changes: {"op": "<name>", <fields>...}.
#include <stdexcept>
#include <utility>

#include "runtime/core/exception_text.hpp"
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
template <task_only T>
void decode(const json& j, T& x) {
  j.at("task").get_to(x.task);
}

void encode(json& j, const begin_work_unit& x) {
  j["task"] = x.task;
  j["work_unit_id"] = x.work_unit_id;
}
void decode(const json& j, begin_work_unit& x) {
  j.at("task").get_to(x.task);
  j.at("work_unit_id").get_to(x.work_unit_id);
}

void encode(json& j, const set_task_flag& x) {
  j["task"] = x.task;
  j["flag"] = x.flag == task_flag::worker_done ? "worker_done" : "selfcheck_done";
  j["value"] = x.value;
}
void decode(const json& j, set_task_flag& x) {
  j.at("task").get_to(x.task);
  const auto& flag = j.at("flag").get_ref<const std::string&>();
  if (flag == "worker_done")
    x.flag = task_flag::worker_done;
  else if (flag == "selfcheck_done")
    x.flag = task_flag::selfcheck_done;
  else
    throw std::invalid_argument("unknown task flag \"" + flag + "\"");
  j.at("value").get_to(x.value);
}

void encode(json& j, const set_blocked& x) {
  j["task"] = x.task;
  j["info"] = x.info;
}
void decode(const json& j, set_blocked& x) {
  j.at("task").get_to(x.task);
  j.at("info").get_to(x.info);
}

void encode(json& j, const set_active_stage& x) {
  j["task"] = x.task;
  j["stage"] = x.stage;
  j["locator"] = x.locator;
}
void decode(const json& j, set_active_stage& x) {
  j.at("task").get_to(x.task);
  j.at("stage").get_to(x.stage);
  j.at("locator").get_to(x.locator);
}

void encode(json& j, const set_counter& x) {
  j["task"] = x.task;
  j["name"] = x.name;
  j["value"] = x.value;
}
void decode(const json& j, set_counter& x) {
  j.at("task").get_to(x.task);
  j.at("name").get_to(x.name);
  j.at("value").get_to(x.value);
}

template <class T>
  requires std::is_same_v<T, record_failure> || std::is_same_v<T, reset_failures>
void encode(json& j, const T& x) {
  j["task"] = x.task;
  j["stage"] = x.stage;
}
template <class T>
  requires std::is_same_v<T, record_failure> || std::is_same_v<T, reset_failures>
void decode(const json& j, T& x) {
  j.at("task").get_to(x.task);
  j.at("stage").get_to(x.stage);
}

template <class T>
  requires std::is_same_v<T, record_decision> || std::is_same_v<T, set_completing_decision>
void encode(json& j, const T& x) {
  j["task"] = x.task;
  j["decision"] = x.decision;
}
template <class T>
  requires std::is_same_v<T, record_decision> || std::is_same_v<T, set_completing_decision>
void decode(const json& j, T& x) {
  j.at("task").get_to(x.task);
  j.at("decision").get_to(x.decision);
}

void encode(json& j, const set_quota_snapshot& x) {
  j["task"] = x.task;
  j["quota"] = x.quota;
}
void decode(const json& j, set_quota_snapshot& x) {
  j.at("task").get_to(x.task);
  j.at("quota").get_to(x.quota);
}

void encode(json& j, const set_retry_handoff& x) {
  j["task"] = x.task;
  j["handoff"] = x.handoff;
}
void decode(const json& j, set_retry_handoff& x) {
  j.at("task").get_to(x.task);
  j.at("handoff").get_to(x.handoff);
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
void decode(const json& j, record_attempt_started& x) {
  j.at("task").get_to(x.task);
  j.at("stage").get_to(x.stage);
  j.at("plan").get_to(x.plan);
  j.at("role").get_to(x.role);
  j.at("attempt").get_to(x.attempt);
  j.at("locator").get_to(x.locator);
  x.consume_handoff_id = j.value("consume_handoff_id", std::string());
}

void encode(json& j, const set_intervention& x) {
  j["task"] = x.task;
  j["context"] = x.context;
}
void decode(const json& j, set_intervention& x) {
  j.at("task").get_to(x.task);
  j.at("context").get_to(x.context);
}

token_usage unwrap_usage(const json& j) {
  auto u = usage_from_json(j);
  if (!u)
    throw std::invalid_argument(u.error().message());
  return std::move(*u);
}

void encode(json& j, const record_attempt_usage& x) {
  j["attempt_id"] = x.attempt_id;
  j["task"] = x.task;
  j["target"] = x.target;
  j["usage"] = usage_to_json(x.usage);
}
void decode(const json& j, record_attempt_usage& x) {
  j.at("attempt_id").get_to(x.attempt_id);
  j.at("task").get_to(x.task);
  if (j.contains("target"))
    j.at("target").get_to(x.target);
  x.usage = unwrap_usage(j.at("usage"));
}

void encode(json& j, const record_write_set& x) {
  j["task"] = x.task;
  j["attempt_id"] = x.attempt_id;
  j["phase"] = x.phase == snapshot_phase::before ? "before" : "after";
  j["files"] = x.files;
}
void decode(const json& j, record_write_set& x) {
  j.at("task").get_to(x.task);
  j.at("attempt_id").get_to(x.attempt_id);
  const auto& phase = j.at("phase").get_ref<const std::string&>();
  if (phase == "before")
    x.phase = snapshot_phase::before;
  else if (phase == "after")
    x.phase = snapshot_phase::after;
  else
    throw std::invalid_argument("unknown snapshot phase \"" + phase + "\"");
  j.at("files").get_to(x.files);
}

void encode(json& j, const set_attempt_counter& x) {
  j["task"] = x.key.task;
  j["plan"] = x.key.plan;
  j["role"] = x.key.role;
  j["value"] = x.value;
}
void decode(const json& j, set_attempt_counter& x) {
  j.at("task").get_to(x.key.task);
  j.at("plan").get_to(x.key.plan);
  j.at("role").get_to(x.key.role);
  j.at("value").get_to(x.value);
}

void encode(json& j, const replace_claim& x) {
  j["owner"] = x.owner;
  j["claim"] = x.claim;
}
void decode(const json& j, replace_claim& x) {
  j.at("owner").get_to(x.owner);
  j.at("claim").get_to(x.claim);
}

void encode(json& j, const release_claim& x) { j["owner"] = x.owner; }
void decode(const json& j, release_claim& x) { j.at("owner").get_to(x.owner); }

void encode(json& j, const observe_orchestration& x) {
  j["scope"] = x.scope;
  json tasks = json::array();
  for (const auto& t : x.tasks)
    tasks.push_back(json{{"task", t.task}, {"archive_baseline", t.archive_baseline}});
  j["tasks"] = std::move(tasks);
}
void decode(const json& j, observe_orchestration& x) {
  j.at("scope").get_to(x.scope);
  for (const auto& t : j.at("tasks")) {
    observed_task obs;
    t.at("task").get_to(obs.task);
    t.at("archive_baseline").get_to(obs.archive_baseline);
    x.tasks.push_back(std::move(obs));
  }
}

void encode(json& j, const set_orchestration_status& x) {
  j["scope"] = x.scope;
  j["status"] = to_string(x.status);
}
void decode(const json& j, set_orchestration_status& x) {
  j.at("scope").get_to(x.scope);
  auto parsed = parse_orchestration_status(j.at("status").get_ref<const std::string&>());
  if (!parsed)
    throw std::invalid_argument(parsed.error().message());
  x.status = *parsed;
}

void encode(json& j, const complete_orchestration_task& x) {
  j["scope"] = x.scope;
  j["task"] = x.task;
  j["archive"] = x.archive;
}
void decode(const json& j, complete_orchestration_task& x) {
  j.at("scope").get_to(x.scope);
  j.at("task").get_to(x.task);
  j.at("archive").get_to(x.archive);
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
void decode(const json& j, record_claim_violation& x) {
  j.at("task").get_to(x.task);
  j.at("attempt").get_to(x.attempt);
  j.at("path").get_to(x.path);
  j.at("other_task").get_to(x.other_task);
  j.at("attribution").get_to(x.attribution);
  j.at("candidates").get_to(x.candidates);
  j.at("action").get_to(x.action);
  j.at("at").get_to(x.at);
}

template <size_t... Is>
bool decode_by_name(const std::string& name, const json& j, state_change& out,
                    std::index_sequence<Is...>) {
  bool found = false;
  auto try_one = [&]<size_t I>(std::integral_constant<size_t, I>) {
    using T = std::variant_alternative_t<I, state_change>;
    if (found || name != op<T>::name)
      return;
    T value;
    decode(j, value);
    out = std::move(value);
    found = true;
  };
  (try_one(std::integral_constant<size_t, Is>{}), ...);
  return found;
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

result<state_change> change_from_json(const json& j, std::string_view source) {
  try {
    require_integer_numbers(j, "usage"); // record_attempt_usage's cost is a fraction
    const auto& name = j.at("op").get_ref<const std::string&>();
    state_change out;
    if (!decode_by_name(name, j, out, std::make_index_sequence<std::variant_size_v<state_change>>{}))
      return status::corruption(std::string(source) + ": unknown state change \"" + name + "\"");
    return out;
  } catch (const std::exception& e) {
    return status::corruption(std::string(source) + ": malformed state change: " + exception_text(e));
  }
}

std::string changes_to_json_text(const std::vector<state_change>& changes) {
  json arr = json::array();
  for (const auto& c : changes)
    arr.push_back(change_to_json(c));
  return dump_json(arr);
}

result<std::vector<state_change>> changes_from_json_text(std::string_view text,
                                                         std::string_view source) {
  auto parsed = parse_json(text, source);
  if (!parsed)
    return status::corruption(parsed.error().message());
  if (!parsed->is_array())
    return status::corruption(std::string(source) + ": expected a JSON array of changes");
  std::vector<state_change> out;
  out.reserve(parsed->size());
  for (const auto& item : *parsed) {
    auto c = change_from_json(item, source);
    if (!c)
      return c.error();
    out.push_back(std::move(*c));
  }
  return out;
}

} // namespace ad::runtime

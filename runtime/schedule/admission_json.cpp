#include "runtime/schedule/admission_json.hpp"

#include <initializer_list>
#include <stdexcept>

#include "runtime/core/exception_text.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

namespace {

std::string_view to_string(write_set_kind k) {
  return k == write_set_kind::valid ? "valid" : "unknown";
}

template <class E>
E enum_member(const json& j, std::string_view key, std::initializer_list<E> all) {
  auto text = json_member<std::string>(j, key);
  for (E e : all)
    if (to_string(e) == text)
      return e;
  throw_json_member_error(key, "has an unknown value \"" + text + "\"");
}

// An optional member: absent is `fallback`; present must have type T.
template <class T>
T optional_member(const json& j, std::string_view key, T fallback = {}) {
  if (!j.is_object() || !j.contains(key))
    return fallback;
  return json_member<T>(j, key);
}

constexpr std::initializer_list<view_stage> all_stages = {
  view_stage::blocked, view_stage::user_review, view_stage::review,
  view_stage::selfcheck, view_stage::worker, view_stage::complete};
constexpr std::initializer_list<live_where> all_live = {live_where::none, live_where::here,
                                                        live_where::elsewhere};

write_claim claim_from(const json& j, std::string_view key) {
  if (!j.is_object() || !j.contains(key))
    throw_json_member_error(key, "is missing");
  try {
    require_integer_numbers(j.at(key));
    return j.at(key).get<write_claim>();
  } catch (const std::exception& e) {
    throw_json_member_error(key, std::string("is not a write claim: ") + exception_text(e));
  }
}

json claims_to_json(const std::map<std::string, write_claim>& claims) {
  json out = json::object();
  for (const auto& [owner, c] : claims)
    out[owner] = c;
  return out;
}

task_view view_from(const json& j) {
  if (!j.is_object())
    throw std::invalid_argument("a task view must be an object");
  task_view v;
  v.name = json_member<std::string>(j, "name");
  v.group = json_member<std::string>(j, "group");
  v.index = json_member<int>(j, "index");
  v.stage = enum_member(j, "stage", all_stages);
  v.blocked_reason = optional_member<std::string>(j, "blocked_reason");
  if (j.contains("predecessors"))
    for (const auto& p : json_array_member(j, "predecessors"))
      v.predecessors.push_back(
        {json_member<int>(p, "index"),
         optional_member<std::vector<std::string>>(p, "complete_matches")});
  v.write_set = enum_member(j, "write_set", {write_set_kind::valid, write_set_kind::unknown});
  v.write_paths = optional_member<std::vector<std::string>>(j, "write_paths");
  v.write_set_error = optional_member<std::string>(j, "write_set_error");
  v.live = enum_member(j, "live", all_live);
  v.live_detail = optional_member<std::string>(j, "live_detail");
  return v;
}

} // namespace

std::string_view to_string(wait_cause cause) {
  switch (cause) {
    case wait_cause::none: return "none";
    case wait_cause::task_blocked: return "task-blocked";
    case wait_cause::dependency_ambiguity: return "dependency-ambiguity";
    case wait_cause::no_write_set: return "no-write-set";
    case wait_cause::predecessor_live: return "predecessor-live";
    case wait_cause::predecessor_missing: return "predecessor-missing";
    case wait_cause::claim_conflict: return "claim-conflict";
    case wait_cause::exclusive_claim: return "exclusive-claim";
    case wait_cause::capacity: return "capacity";
    case wait_cause::violation_pending: return "violation-pending";
  }
  return "unknown";
}

json task_view_to_json(const task_view& v) {
  json j{{"name", v.name},
         {"group", v.group},
         {"index", v.index},
         {"stage", to_string(v.stage)},
         {"write_set", to_string(v.write_set)},
         {"live", to_string(v.live)}};
  if (!v.blocked_reason.empty())
    j["blocked_reason"] = v.blocked_reason;
  if (!v.predecessors.empty()) {
    json preds = json::array();
    for (const auto& p : v.predecessors)
      preds.push_back(json{{"index", p.index}, {"complete_matches", p.complete_matches}});
    j["predecessors"] = std::move(preds);
  }
  if (!v.write_paths.empty())
    j["write_paths"] = v.write_paths;
  if (!v.write_set_error.empty())
    j["write_set_error"] = v.write_set_error;
  if (!v.live_detail.empty())
    j["live_detail"] = v.live_detail;
  return j;
}

result<task_view> task_view_from_json(const json& j) {
  try {
    return view_from(j);
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("task view: ") + exception_text(e));
  }
}

json admission_input_to_json(const admission_input& in) {
  json tasks = json::array();
  for (const auto& v : in.tasks)
    tasks.push_back(task_view_to_json(v));
  json live = json::array();
  for (const auto& t : in.live)
    live.push_back(json{{"name", t.name}, {"live", to_string(t.where)}});
  json out{{"tasks", std::move(tasks)},
           {"claims", claims_to_json(in.claims)},
           {"live", std::move(live)},
           {"max_parallel", in.max_parallel}};
  // Absent when none: inputs recorded before violations existed read the same.
  if (!in.violations.empty()) {
    json violations = json::array();
    for (const auto& v : in.violations)
      violations.push_back(json{{"path", v.path}, {"attempt", v.attempt}, {"task", v.task}});
    out["violations"] = std::move(violations);
  }
  return out;
}

result<admission_input> admission_input_from_json(const json& j) {
  try {
    admission_input in;
    for (const auto& v : json_array_member(j, "tasks"))
      in.tasks.push_back(view_from(v));
    const auto& claims = j.contains("claims") ? j.at("claims") : json();
    if (!claims.is_object())
      throw_json_member_error("claims", "must be an object of write claims by owner");
    for (const auto& [owner, c] : claims.items())
      in.claims.emplace(owner, claim_from(claims, owner));
    for (const auto& t : json_array_member(j, "live"))
      in.live.push_back({json_member<std::string>(t, "name"), enum_member(t, "live", all_live)});
    in.max_parallel = json_member<int>(j, "max_parallel");
    if (j.contains("violations"))
      for (const auto& v : json_array_member(j, "violations"))
        in.violations.push_back({json_member<std::string>(v, "path"),
                                 json_member<std::string>(v, "attempt"),
                                 json_member<std::string>(v, "task")});
    return in;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("admission input: ") + exception_text(e));
  }
}

json admission_plan_to_json(const admission_plan& plan) {
  json entries = json::array();
  for (const auto& e : plan.entries) {
    json x{{"task", e.task},
           {"stage", to_string(e.stage)},
           {"kind", to_string(e.kind)},
           {"cause", to_string(e.cause)},
           {"reason", e.reason}};
    if (e.kind == admission_kind::admit || e.kind == admission_kind::running_here ||
        e.kind == admission_kind::running_elsewhere)
      x["claim"] = e.claim;
    entries.push_back(std::move(x));
  }
  return json{{"entries", std::move(entries)},
              {"admitted", plan.admitted},
              {"claims_taken", claims_to_json(plan.claims_taken)},
              {"capacity_waiters", plan.capacity_waiters},
              {"occupied", plan.occupied}};
}

} // namespace ad::runtime

#include "runtime/state/model_json.hpp"

#include <stdexcept>

#include "runtime/core/exception_text.hpp"
#include "runtime/state/task_reader.hpp"

namespace ad::runtime {

namespace {

template <class E, size_t N>
E enum_from(const json& j, const char* const (&names)[N], const char* what) {
  const auto& text = j.get_ref<const std::string&>();
  for (size_t i = 0; i < N; ++i)
    if (text == names[i])
      return static_cast<E>(i);
  throw std::invalid_argument(std::string("unknown ") + what + " \"" + text + "\"");
}

template <class E, size_t N>
result<E> parse_enum(std::string_view text, const char* const (&names)[N], const char* what) {
  for (size_t i = 0; i < N; ++i)
    if (text == names[i])
      return static_cast<E>(i);
  return status::invalid_argument(std::string("unknown ") + what + " \"" + std::string(text)
                                  + "\"");
}

constexpr const char* transition_names[] = {"initial", "resume", "failover", "promotion"};
constexpr const char* claim_kind_names[] = {"paths", "exclusive"};
constexpr const char* orch_status_names[] = {"running", "blocked", "complete"};
constexpr const char* orch_task_names[] = {"active", "complete"};

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& x) {
  if (x)
    j[key] = *x;
}

// Optional fields with a default: tolerate absence so older files load.
template <class T>
void get_or(const json& j, const char* key, T& x) {
  auto it = j.find(key);
  if (it != j.end())
    it->get_to(x);
}

} // namespace

std::string to_string(route_transition x) { return transition_names[static_cast<size_t>(x)]; }
std::string to_string(claim_kind x) { return claim_kind_names[static_cast<size_t>(x)]; }
std::string to_string(orchestration_status x) { return orch_status_names[static_cast<size_t>(x)]; }
std::string to_string(orchestration_task_status x) {
  return orch_task_names[static_cast<size_t>(x)];
}

result<route_transition> parse_route_transition(std::string_view text) {
  return parse_enum<route_transition>(text, transition_names, "route transition");
}
result<claim_kind> parse_claim_kind(std::string_view text) {
  return parse_enum<claim_kind>(text, claim_kind_names, "claim kind");
}
result<orchestration_status> parse_orchestration_status(std::string_view text) {
  return parse_enum<orchestration_status>(text, orch_status_names, "orchestration status");
}
result<orchestration_task_status> parse_orchestration_task_status(std::string_view text) {
  return parse_enum<orchestration_task_status>(text, orch_task_names,
                                               "orchestration task status");
}

void to_json(json& j, const route_candidate& x) {
  j = json{{"target", x.target}, {"eligible", x.eligible}, {"reasons", x.reasons}};
}
void from_json(const json& j, route_candidate& x) { read_tree(j, x); }

void to_json(json& j, const quota_snapshot& x) {
  j = json{{"taken_at", x.taken_at}, {"status", x.status_by_target}};
}
void from_json(const json& j, quota_snapshot& x) { read_tree(j, x); }

void to_json(json& j, const route_decision& x) {
  j = json{{"work_unit_id", x.work_unit_id},
           {"stage", x.stage},
           {"lane", x.lane},
           {"grade", x.grade},
           {"candidates", x.candidates},
           {"selected_target", x.selected_target},
           {"rule_id", x.rule_id},
           {"priority", x.priority},
           {"reason_codes", x.reason_codes},
           {"evaluated_at", x.evaluated_at},
           {"quota", x.quota},
           {"transition", to_string(x.transition)},
           {"previous_target", x.previous_target},
           {"next_target", x.next_target}};
}
void from_json(const json& j, route_decision& x) { read_tree(j, x); }

void to_json(json& j, const retry_handoff& x) {
  j = json{{"id", x.id}, {"failed_target", x.failed_target}, {"locator", x.locator}};
}
void from_json(const json& j, retry_handoff& x) { read_tree(j, x); }

void to_json(json& j, const blocked_info& x) {
  j = json{{"reason", x.reason}, {"evidence", x.evidence}};
}
void from_json(const json& j, blocked_info& x) { read_tree(j, x); }

void to_json(json& j, const named_file& x) {
  j = json{{"path", x.path},
           {"as_written", x.as_written},
           {"exists", x.exists},
           {"mtime", x.mtime},
           {"in_write_set", x.in_write_set},
           {"changed_by", x.changed_by},
           {"predecessors", x.predecessors}};
}
void from_json(const json& j, named_file& x) { read_tree(j, x); }

void to_json(json& j, const intervention_context& x) {
  j = json{{"pattern_ids", x.pattern_ids},
           {"instruction", x.instruction},
           {"existing_files", x.existing_files},
           {"touched_files", x.touched_files},
           {"created_at", x.created_at}};
  if (!x.named_files.empty())
    j["named_files"] = x.named_files;
}
void from_json(const json& j, intervention_context& x) { read_tree(j, x); }

void to_json(json& j, const file_snapshot& x) {
  j = json{{"path", x.path}, {"exists", x.exists}, {"size", x.size}, {"mtime", x.mtime},
           {"hash", x.hash}};
}
void from_json(const json& j, file_snapshot& x) { read_tree(j, x); }

void to_json(json& j, const write_set_snapshot& x) {
  j = json{{"before", x.before.get()}, {"after", x.after.get()}};
}
void from_json(const json& j, write_set_snapshot& x) { read_tree(j, x); }

void to_json(json& j, const task_state& x) {
  j = json{{"work_unit_id", x.work_unit_id},
           {"worker_done", x.worker_done},
           {"selfcheck_done", x.selfcheck_done},
           {"active_stage", x.active_stage},
           {"active_locator", x.active_locator},
           {"counters", x.counters},
           {"failure_budgets", x.failure_budgets},
           {"decisions", x.decisions},
           {"route_history", x.route_history},
           {"write_sets", x.write_sets}};
  put_optional(j, "blocked", x.blocked);
  put_optional(j, "completing_decision", x.completing_decision);
  put_optional(j, "quota", x.quota);
  put_optional(j, "retry_handoff", x.handoff);
  put_optional(j, "intervention_context", x.intervention);
}
void from_json(const json& j, task_state& x) { read_tree(j, x); }

void to_json(json& j, const write_claim& x) {
  j = json{{"kind", to_string(x.kind)}, {"paths", x.paths}};
}
void from_json(const json& j, write_claim& x) {
  x.kind = enum_from<claim_kind>(j.at("kind"), claim_kind_names, "claim kind");
  get_or(j, "paths", x.paths);
}

void to_json(json& j, const orchestration_task& x) {
  j = json{{"status", to_string(x.status)}, {"archive", x.archive},
           {"archive_baseline", x.archive_baseline}};
}
void from_json(const json& j, orchestration_task& x) {
  x.status = enum_from<orchestration_task_status>(j.at("status"), orch_task_names,
                                                  "orchestration task status");
  get_or(j, "archive", x.archive);
  get_or(j, "archive_baseline", x.archive_baseline);
}

void to_json(json& j, const orchestration_record& x) {
  j = json{{"status", to_string(x.status)}, {"tasks", x.tasks}};
}
void from_json(const json& j, orchestration_record& x) {
  x.status = enum_from<orchestration_status>(j.at("status"), orch_status_names,
                                             "orchestration status");
  get_or(j, "tasks", x.tasks);
}

void to_json(json& j, const claim_violation_record& x) {
  j = json{{"task", x.task},         {"attempt", x.attempt},
           {"path", x.path},         {"other_task", x.other_task},
           {"attribution", x.attribution}, {"candidates", x.candidates},
           {"action", x.action},     {"at", x.at}};
}
void from_json(const json& j, claim_violation_record& x) {
  j.at("task").get_to(x.task);
  j.at("attempt").get_to(x.attempt);
  j.at("path").get_to(x.path);
  get_or(j, "other_task", x.other_task);
  j.at("attribution").get_to(x.attribution);
  get_or(j, "candidates", x.candidates);
  get_or(j, "action", x.action);
  get_or(j, "at", x.at);
}

json spend_to_json(const attempt_spend& s) {
  return json{{"task", s.task}, {"target", s.target}, {"usage", usage_to_json(s.usage)}};
}

// Absent when empty: states without usage keep their earlier bytes.
json spent_to_json(const std::map<std::string, attempt_spend>& spent) {
  json out = json::object();
  for (const auto& [id, s] : spent)
    out[id] = spend_to_json(s);
  return out;
}

void to_json(json& j, const state_model& x) {
  json counters = json::array();
  for (const auto& [key, count] : x.attempt_counters)
    counters.push_back(
      json{{"task", key.task}, {"plan", key.plan}, {"role", key.role}, {"count", count}});
  j = json{{"tasks", x.tasks},
           {"attempt_counters", std::move(counters)},
           {"claims", x.claims},
           {"orchestrations", x.orchestrations}};
  // Absent when empty: states without violations keep their earlier bytes.
  if (!x.claim_violations.empty())
    j["claim_violations"] = x.claim_violations;
  if (!x.spent.empty())
    j["spent"] = spent_to_json(x.spent);
}
void from_json(const json& j, state_model& x) {
  get_or(j, "tasks", x.tasks);
  x.attempt_counters.clear();
  if (auto it = j.find("attempt_counters"); it != j.end())
    for (const auto& entry : *it) {
      attempt_key key;
      entry.at("task").get_to(key.task);
      entry.at("plan").get_to(key.plan);
      entry.at("role").get_to(key.role);
      x.attempt_counters[key] = entry.at("count").get<int64_t>();
    }
  get_or(j, "claims", x.claims);
  get_or(j, "orchestrations", x.orchestrations);
  get_or(j, "claim_violations", x.claim_violations);
  x.spent.clear();
  if (auto it = j.find("spent"); it != j.end())
    for (auto e = it->begin(); e != it->end(); ++e) {
      attempt_spend s;
      e.value().at("task").get_to(s.task);
      get_or(e.value(), "target", s.target);
      auto usage = usage_from_json(e.value().at("usage"));
      if (!usage)
        throw std::invalid_argument("spent." + e.key() + ": " + usage.error().message());
      s.usage = std::move(*usage);
      x.spent[e.key()] = std::move(s);
    }
}

json state_to_json(const state_model& x) {
  json j;
  to_json(j, x);
  return j;
}

result<state_model> state_from_json(const json& j, std::string_view source) {
  try {
    require_integer_numbers(j, "usage"); // the attempts' costs are fractions
    return j.get<state_model>();
  } catch (const std::exception& e) {
    return status::corruption(std::string(source) + ": malformed state: " + exception_text(e));
  }
}

std::string task_to_json_text(const task_state& x) { return dump_json(json(x)); }

result<task_state> task_from_json_text(std::string_view text, std::string_view source) {
  auto parsed = parse_json(text, source);
  if (!parsed)
    return status::corruption(parsed.error().message());
  try {
    require_integer_numbers(*parsed);
    return parsed->get<task_state>();
  } catch (const std::exception& e) {
    return status::corruption(std::string(source) + ": malformed task state: " + exception_text(e));
  }
}

namespace {

// Where a state's text goes: `out`, handed to `write` between two values
// whenever it holds `part_bytes` or more (never, without a writer).
struct state_text_sink {
  std::string& out;
  const part_writer* write = nullptr;
  std::size_t part_bytes = 0;
  status failed = status::ok();

  // False once a write failed: the caller stops.
  bool between_values() {
    if (write && failed && out.size() >= part_bytes) {
      failed = (*write)(out);
      out.clear();
    }
    return static_cast<bool>(failed);
  }
  void append_key(std::string_view key) { out.append(dump_json(json(key))).push_back(':'); }
};

// The bytes of dump_json(state_to_json(x)), one small value at a time: the
// state's keys in their sorted order, each map and array element by element,
// so the whole state is never one JSON tree and (with a writer) never whole
// in memory.
void append_state_text(state_text_sink& sink, const state_model& x) {
  auto& out = sink.out;
  out.append("{\"attempt_counters\":[");
  bool first = true;
  for (const auto& [key, count] : x.attempt_counters) {
    if (!std::exchange(first, false))
      out.push_back(',');
    out.append(dump_json(
      json{{"task", key.task}, {"plan", key.plan}, {"role", key.role}, {"count", count}}));
    if (!sink.between_values())
      return;
  }
  out.push_back(']');
  if (!x.claim_violations.empty())
    out.append(",\"claim_violations\":").append(dump_json(json(x.claim_violations)));
  out.append(",\"claims\":").append(dump_json(json(x.claims)));
  // An object's members one at a time; an empty one is "{}" as nlohmann
  // writes it.
  auto members = [&](std::string_view name, const auto& map, auto&& value_of) {
    out.push_back(',');
    sink.append_key(name);
    out.push_back('{');
    bool first_member = true;
    for (const auto& [key, value] : map) {
      if (!std::exchange(first_member, false))
        out.push_back(',');
      sink.append_key(key);
      out.append(dump_json(value_of(value)));
      if (!sink.between_values())
        return false;
    }
    out.push_back('}');
    return true;
  };
  if (!members("orchestrations", x.orchestrations, [](const auto& r) { return json(r); }))
    return;
  // Absent when empty: states without usage keep their earlier bytes.
  if (!x.spent.empty() && !members("spent", x.spent, spend_to_json))
    return;
  if (!members("tasks", x.tasks, [](const task_state& t) { return json(t); }))
    return;
  out.push_back('}');
}

} // namespace

void append_state_json_text(std::string& out, const state_model& x) {
  state_text_sink sink{out};
  append_state_text(sink, x);
}

status write_state_json_text(const state_model& x, std::size_t part_bytes,
                             const part_writer& write) {
  std::string part;
  part.reserve(part_bytes + part_bytes / 4);
  state_text_sink sink{part, &write, part_bytes};
  append_state_text(sink, x);
  if (sink.failed && !part.empty())
    sink.failed = write(part);
  return sink.failed;
}

std::string state_to_json_text(const state_model& x) {
  std::string out;
  append_state_json_text(out, x);
  return out;
}

result<state_model> state_from_json_text(std::string_view text, std::string_view source) {
  auto parsed = parse_json(text, source);
  if (!parsed)
    return status::corruption(parsed.error().message());
  return state_from_json(*parsed, source);
}

} // namespace ad::runtime

#include "runtime/records/scan_records.hpp"

#include <optional>

#include "runtime/core/exception_text.hpp"

namespace ad::runtime {

namespace {

// The enum value named `name`, trying every value up to `last`.
template <class E>
E enum_named(const json& j, std::string_view key, E last) {
  auto name = json_member<std::string>(j, key);
  for (int v = 0; v <= static_cast<int>(last); ++v)
    if (to_string(static_cast<E>(v)) == name)
      return static_cast<E>(v);
  throw_json_member_error(key, "names no known value (\"" + name + "\")");
}

json optional_path(const std::optional<std::filesystem::path>& p) {
  return p ? json(p->string()) : json(nullptr);
}

std::optional<std::filesystem::path> path_or_null(const json& j, std::string_view key) {
  if (!j.contains(key))
    throw_json_member_error(key, "is missing");
  if (j.at(key).is_null())
    return std::nullopt;
  return std::filesystem::path(json_member<std::string>(j, key));
}

json verdict_or_null(const std::optional<review_verdict>& v) {
  return v ? json(std::string(to_string(*v))) : json(nullptr);
}

std::optional<review_verdict> verdict_of(const json& j, std::string_view key) {
  if (!j.contains(key))
    throw_json_member_error(key, "is missing");
  if (j.at(key).is_null())
    return std::nullopt;
  return enum_named(j, key, review_verdict::fail);
}

json log_files_body(const std::vector<task_log_file>& logs) {
  auto out = json::array();
  for (const auto& l : logs)
    out.push_back(json{{"path", l.path.string()},
                       {"lane", to_string(l.name.lane)},
                       {"grade", l.name.grade},
                       {"generation", l.name.generation},
                       {"verdict", verdict_or_null(l.verdict)}});
  return out;
}

std::vector<task_log_file> log_files_of(const json& j, std::string_view key) {
  std::vector<task_log_file> out;
  for (const auto& x : json_array_member(j, key)) {
    task_log_file l;
    l.path = json_member<std::string>(x, "path");
    l.name.lane = enum_named(x, "lane", task_lane::cloud);
    l.name.grade = json_member<int>(x, "grade");
    l.name.generation = json_member<long long>(x, "generation");
    l.verdict = verdict_of(x, "verdict");
    out.push_back(std::move(l));
  }
  return out;
}

json user_review_body(const user_review_reading& r) {
  auto missing = json::array();
  for (auto part : r.missing)
    missing.push_back(std::string(to_string(part)));
  return json{{"type", to_string(r.type)},
              {"target", r.target},
              {"actions", r.actions},
              {"missing", missing},
              {"read_error", r.read_error}};
}

user_review_reading user_review_of(const json& x) {
  user_review_reading r;
  r.type = enum_named(x, "type", user_review_type::external_execution);
  r.target = json_member<std::string>(x, "target");
  r.actions = json_member<std::vector<std::string>>(x, "actions");
  for (const auto& m : json_array_member(x, "missing"))
    r.missing.push_back(enum_named(json{{"part", m}}, "part", user_review_part::resume));
  r.read_error = json_member<std::string>(x, "read_error");
  return r;
}

json write_set_body(const write_set_report& w) {
  auto diagnostics = json::array();
  for (const auto& d : w.diagnostics)
    diagnostics.push_back(json{{"problem", to_string(d.problem)},
                               {"line", d.line},
                               {"claim", d.claim},
                               {"message", d.message}});
  return json{{"paths", w.paths}, {"diagnostics", diagnostics}};
}

write_set_report write_set_of(const json& x) {
  write_set_report w;
  w.paths = json_member<std::vector<std::string>>(x, "paths");
  for (const auto& d : json_array_member(x, "diagnostics"))
    w.diagnostics.push_back({enum_named(d, "problem", write_set_problem::no_valid_path),
                             json_member<std::size_t>(d, "line"),
                             json_member<std::string>(d, "claim"),
                             json_member<std::string>(d, "message")});
  return w;
}

} // namespace

json scanned_task_to_json(const scanned_task& t) {
  json header = nullptr;
  if (t.header)
    header = json{{"task", t.header->task}, {"plan", t.header->plan}, {"tag", t.header->tag}};
  auto errors = json::array();
  for (const auto& e : t.errors)
    errors.push_back(json{{"kind", to_string(e.kind)}, {"message", e.message}});
  return json{{"name", t.name},
              {"group", t.group},
              {"directory", t.directory.string()},
              {"index", t.index},
              {"deps", t.deps},
              {"plan", optional_path(t.plan)},
              {"review", optional_path(t.review)},
              {"user_review", optional_path(t.user_review)},
              {"plan_count", t.plan_count},
              {"review_count", t.review_count},
              {"user_review_count", t.user_review_count},
              {"lane", t.lane ? json(std::string(to_string(*t.lane))) : json(nullptr)},
              {"grade", t.grade},
              {"header", header},
              {"review_verdict_now", verdict_or_null(t.review_verdict_now)},
              {"has_complete_log", t.has_complete_log},
              {"recovery", t.recovery},
              {"plan_logs", log_files_body(t.plan_logs)},
              {"review_logs", log_files_body(t.review_logs)},
              {"recovery_log", optional_path(t.recovery_log)},
              {"recovery_plan_log", optional_path(t.recovery_plan_log)},
              {"user_review_state", user_review_body(t.user_review_state)},
              {"write_set", write_set_body(t.write_set)},
              {"write_set_known", t.write_set_known},
              {"identity_key", t.identity_key},
              {"errors", errors}};
}

result<scanned_task> scanned_task_from_json(const json& j) {
  try {
    scanned_task t;
    t.name = json_member<std::string>(j, "name");
    t.group = json_member<std::string>(j, "group");
    t.directory = json_member<std::string>(j, "directory");
    t.index = json_member<int>(j, "index");
    t.deps = json_member<std::vector<std::string>>(j, "deps");
    t.plan = path_or_null(j, "plan");
    t.review = path_or_null(j, "review");
    t.user_review = path_or_null(j, "user_review");
    t.plan_count = json_member<std::size_t>(j, "plan_count");
    t.review_count = json_member<std::size_t>(j, "review_count");
    t.user_review_count = json_member<std::size_t>(j, "user_review_count");
    if (!j.contains("lane"))
      throw_json_member_error("lane", "is missing");
    if (!j.at("lane").is_null())
      t.lane = enum_named(j, "lane", task_lane::cloud);
    t.grade = json_member<int>(j, "grade");
    if (!j.contains("header"))
      throw_json_member_error("header", "is missing");
    if (const auto& h = j.at("header"); !h.is_null())
      t.header = plan_header{json_member<std::string>(h, "task"),
                             json_member<std::string>(h, "plan"),
                             json_member<std::string>(h, "tag")};
    t.review_verdict_now = verdict_of(j, "review_verdict_now");
    t.has_complete_log = json_member<bool>(j, "has_complete_log");
    t.recovery = json_member<bool>(j, "recovery");
    t.plan_logs = log_files_of(j, "plan_logs");
    t.review_logs = log_files_of(j, "review_logs");
    t.recovery_log = path_or_null(j, "recovery_log");
    t.recovery_plan_log = path_or_null(j, "recovery_plan_log");
    t.user_review_state = user_review_of(j.at("user_review_state"));
    if (!j.contains("write_set"))
      throw_json_member_error("write_set", "is missing");
    t.write_set = write_set_of(j.at("write_set"));
    t.write_set_known = json_member<bool>(j, "write_set_known");
    t.identity_key = json_member<std::string>(j, "identity_key");
    for (const auto& e : json_array_member(j, "errors"))
      t.errors.push_back(
        {enum_named(e, "kind", task_error_kind::incomplete_user_review),
         json_member<std::string>(e, "message")});
    return t;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("scanned task: ") + exception_text(e));
  }
}

} // namespace ad::runtime

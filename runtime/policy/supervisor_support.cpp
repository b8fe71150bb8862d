// Backoff, reset-time extraction, prompt rendering, context packages and the
// JSON mapping of the supervisor's values.
#include <cmath>
#include <filesystem>

#include "runtime/core/exception_text.hpp"
#include "runtime/core/numbers.hpp"
#include "runtime/agents/reset_time.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

bool is_work_log_failure(std::string_view c) { return c.rfind("work-log", 0) == 0; }

std::string work_log_block_reason(std::string_view failure_class, std::string_view evidence) {
  std::string why = evidence.empty() ? std::string(failure_class) : std::string(evidence);
  return "work log failure blocks the task at once (" + std::string(failure_class) + "): " + why +
         ". Free space on that disk or make the workspace writable; the next run lifts this "
         "block by itself once the work log can be written.";
}

bool blocked_by_work_log(const task_state& task) {
  if (!task.blocked)
    return false;
  auto ev = parse_json(task.blocked->evidence, "blocker evidence");
  return ev && ev->is_object() && ev->contains("failure_class") &&
         (*ev)["failure_class"].is_string() &&
         is_work_log_failure((*ev)["failure_class"].get<std::string>());
}

bool is_failover_qualified(std::string_view c) {
  return c == "provider-quota" || c == "context-limit" || c == "model-unavailable" ||
         c == "provider-stream-disconnect";
}

bool is_promotable(std::string_view c) {
  return c == "provider-quota" || c == "context-limit" || c == "model-unavailable" ||
         c == "provider-connection" || c == "provider-stream-disconnect";
}

millis backoff_delay(const policy_backoff& b, int64_t n) {
  if (n < 0)
    n = 0;
  double s = b.initial_s * std::pow(b.coefficient, static_cast<double>(std::min<int64_t>(n, 5)));
  s = std::min(b.max_s, s);
  return seconds_to_ms(s);
}

std::string prompt_path(std::string_view path) {
  if (path.empty() || path.find_first_of(" \t\n\r\v\f\"'`\\") == std::string_view::npos)
    return std::string(path);
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::string render_prompt(std::string_view tmpl, const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] == '{') {
      size_t close = tmpl.find('}', i + 1);
      if (close != std::string_view::npos) {
        auto it = vars.find(std::string(tmpl.substr(i + 1, close - i - 1)));
        if (it != vars.end()) {
          out += prompt_path(it->second);
          i = close + 1;
          continue;
        }
      }
    }
    out += tmpl[i++];
  }
  return out;
}

std::string stage_prompt(const policy& pol, std::string_view stage, const task_paths& paths,
                         const task_state& task) {
  std::map<std::string, std::string> vars{{"plan", paths.plan},
                                          {"review", paths.review},
                                          {"workspace", paths.workspace},
                                          {"task_dir", paths.task_dir}};
  const std::string& tmpl = stage == "review"      ? pol.prompts.review
                            : stage == "selfcheck" ? pol.prompts.selfcheck
                                                   : pol.prompts.worker;
  std::string prompt = render_prompt(tmpl, vars);
  if (task.intervention && stage != "review")
    prompt += "\n\n" + render_intervention(view_intervention(*task.intervention, task.write_sets),
                                           pol.prompts.intervention);
  return prompt;
}

json to_json(const failure_report& f) {
  return {{"task", f.task},
          {"stage", f.stage},
          {"failure_class", f.failure_class},
          {"evidence", f.evidence},
          {"evidence_origin", f.evidence_origin},
          {"diagnostics", f.diagnostics},
          {"stream_tail", f.stream_tail},
          {"attempt_id", f.attempt_id},
          {"locator", f.locator},
          {"raw_log", f.raw_log},
          {"normalized_output", f.normalized_output},
          {"native_session_path", f.native_session_path},
          {"reset_at", f.reset_at ? json(*f.reset_at) : json()}};
}

namespace {

bool read_str(const json& j, const char* key, std::string& out, std::string& err) {
  if (!j.contains(key))
    return true;
  if (!j[key].is_string()) {
    err = std::string(key) + " is not a string";
    return false;
  }
  out = j[key].get<std::string>();
  return true;
}

bool read_strs(const json& j, const char* key, std::vector<std::string>& out, std::string& err) {
  if (!j.contains(key))
    return true;
  if (!j[key].is_array()) {
    err = std::string(key) + " is not an array";
    return false;
  }
  for (const auto& v : j[key]) {
    if (!v.is_string()) {
      err = std::string(key) + " holds a non-string";
      return false;
    }
    out.push_back(v.get<std::string>());
  }
  return true;
}

} // namespace

result<failure_report> failure_report_from_json(const json& j) {
  if (!j.is_object())
    return status::invalid_argument("failure report: not an object");
  failure_report f;
  std::string err;
  bool ok = read_str(j, "task", f.task, err) && read_str(j, "stage", f.stage, err) &&
            read_str(j, "failure_class", f.failure_class, err) &&
            read_str(j, "evidence", f.evidence, err) &&
            read_str(j, "evidence_origin", f.evidence_origin, err) &&
            read_strs(j, "diagnostics", f.diagnostics, err) &&
            read_strs(j, "stream_tail", f.stream_tail, err) &&
            read_str(j, "attempt_id", f.attempt_id, err) && read_str(j, "locator", f.locator, err) &&
            read_str(j, "raw_log", f.raw_log, err) &&
            read_str(j, "normalized_output", f.normalized_output, err) &&
            read_str(j, "native_session_path", f.native_session_path, err);
  if (!ok)
    return status::invalid_argument("failure report: " + err);
  if (j.contains("reset_at") && !j["reset_at"].is_null()) {
    if (!j["reset_at"].is_number_integer())
      return status::invalid_argument("failure report: reset_at is not an integer");
    f.reset_at = j["reset_at"].get<millis>();
  }
  return f;
}

json to_json(const context_package& p) {
  return {{"resume_mode", p.kind == package_kind::native ? "native" : "logical"},
          {"plan", p.plan},
          {"locator", p.locator},
          {"workspace", p.workspace},
          {"raw_log", p.raw_log},
          {"normalized_output", p.normalized_output},
          {"native_session_path", p.native_session_path}};
}

status verify_context_package(const context_package& p) {
  std::vector<std::pair<const char*, const std::string*>> files{
    {"plan", &p.plan}, {"locator", &p.locator}, {"raw_log", &p.raw_log},
    {"normalized_output", &p.normalized_output}};
  if (p.kind == package_kind::native)
    files.push_back({"native_session_path", &p.native_session_path});
  for (const auto& [name, path] : files) {
    std::error_code ec;
    if (path->empty() || !std::filesystem::is_regular_file(*path, ec))
      return status::not_found(std::string("context package ") + name + " " +
                               (path->empty() ? "is missing" : *path + " does not exist"));
  }
  std::error_code ec;
  if (p.workspace.empty() || !std::filesystem::is_directory(p.workspace, ec))
    return status::not_found("context package workspace " + p.workspace + " does not exist");
  return status::ok();
}

std::string_view step_name(const next_step& s) {
  static constexpr std::string_view names[] = {"retry_same", "failover", "promote",
                                               "resume_native", "wait_until", "block"};
  return names[s.index()];
}

json to_json(const next_step& s) {
  json j = {{"step", std::string(step_name(s))}};
  std::visit(
    [&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, retry_same>) {
        j.update({{"target", x.target}, {"prompt", x.prompt}, {"delay_ms", x.delay},
                  {"kind", x.kind},
                  {"origin", x.origin == prompt_origin::from_scratch ? "from_scratch" : "continuation"}});
      } else if constexpr (std::is_same_v<T, failover_step> || std::is_same_v<T, promote_step>) {
        json d;
        to_json(d, x.decision);
        j.update({{"target", x.target}, {"package", to_json(x.package)}, {"prompt", x.prompt},
                  {"decision", d}, {"delay_ms", x.delay}});
        // A native package continues the failed attempt's own session: the
        // next attempt is launched on it, as for resume_native.
        if (x.package.kind == package_kind::native)
          j["session"] = x.package.native_session_path;
      } else if constexpr (std::is_same_v<T, resume_native>) {
        j.update({{"target", x.target}, {"session", x.session}, {"prompt", x.prompt},
                  {"delay_ms", x.delay}});
      } else if constexpr (std::is_same_v<T, wait_until>) {
        j.update({{"until", format_utc_iso(x.until)}, {"reason", x.reason}, {"target", x.target},
                  {"prompt", x.prompt}});
      } else {
        j.update({{"reason", x.reason}, {"evidence", x.evidence}});
      }
    },
    s);
  return j;
}

namespace {

context_package context_package_from_json(const json& j) {
  context_package p;
  auto mode = json_member<std::string>(j, "resume_mode");
  if (mode != "native" && mode != "logical")
    throw_json_member_error("resume_mode", "must be \"native\" or \"logical\"");
  p.kind = mode == "native" ? package_kind::native : package_kind::logical;
  p.plan = json_member<std::string>(j, "plan");
  p.locator = json_member<std::string>(j, "locator");
  p.workspace = json_member<std::string>(j, "workspace");
  p.raw_log = json_member<std::string>(j, "raw_log");
  p.normalized_output = json_member<std::string>(j, "normalized_output");
  p.native_session_path = json_member<std::string>(j, "native_session_path");
  return p;
}

template <class Step>
Step moved_step_from_json(const json& j) {
  Step x;
  x.target = json_member<std::string>(j, "target");
  if (!j.contains("package") || !j["package"].is_object())
    throw_json_member_error("package", "must be an object");
  x.package = context_package_from_json(j["package"]);
  x.prompt = json_member<std::string>(j, "prompt");
  x.decision = json_member<route_decision>(j, "decision");
  x.delay = json_member<millis>(j, "delay_ms");
  return x;
}

} // namespace

result<next_step> next_step_from_json(const json& j) {
  try {
    auto name = json_member<std::string>(j, "step");
    if (name == "retry_same") {
      retry_same x;
      x.target = json_member<std::string>(j, "target");
      x.prompt = json_member<std::string>(j, "prompt");
      x.delay = json_member<millis>(j, "delay_ms");
      x.kind = json_member<std::string>(j, "kind");
      auto origin = json_member<std::string>(j, "origin");
      if (origin != "from_scratch" && origin != "continuation")
        throw_json_member_error("origin", "must be \"from_scratch\" or \"continuation\"");
      x.origin = origin == "from_scratch" ? prompt_origin::from_scratch : prompt_origin::continuation;
      return next_step{std::move(x)};
    }
    if (name == "failover")
      return next_step{moved_step_from_json<failover_step>(j)};
    if (name == "promote")
      return next_step{moved_step_from_json<promote_step>(j)};
    if (name == "resume_native") {
      resume_native x;
      x.target = json_member<std::string>(j, "target");
      x.session = json_member<std::string>(j, "session");
      x.prompt = json_member<std::string>(j, "prompt");
      x.delay = json_member<millis>(j, "delay_ms");
      return next_step{std::move(x)};
    }
    if (name == "wait_until") {
      wait_until x;
      auto until = parse_utc_iso(json_member<std::string>(j, "until"));
      if (!until)
        throw_json_member_error("until", "is not a UTC time (" + until.error().message() + ")");
      x.until = *until;
      x.reason = json_member<std::string>(j, "reason");
      x.target = json_member<std::string>(j, "target");
      x.prompt = json_member<std::string>(j, "prompt");
      return next_step{std::move(x)};
    }
    if (name == "block")
      return next_step{block_step{json_member<std::string>(j, "reason"),
                                  json_member<std::string>(j, "evidence")}};
    throw_json_member_error("step", "names no step (\"" + name + "\")");
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("supervisor step: ") + exception_text(e));
  }
}

json to_json(const supervisor_request& r) {
  json files = json::array();
  for (const auto& f : r.write_set_now) {
    json x;
    to_json(x, f);
    files.push_back(x);
  }
  return {{"failure", to_json(r.failure)},
          {"paths",
           {{"workspace", r.paths.workspace},
            {"task_dir", r.paths.task_dir},
            {"plan", r.paths.plan},
            {"review", r.paths.review}}},
          {"lane", r.lane},
          {"grade", r.grade},
          {"write_set_now", files},
          {"named_files", r.named_files}};
}

result<supervisor_request> supervisor_request_from_json(const json& j) {
  if (!j.is_object() || !j.contains("failure"))
    return status::invalid_argument("supervisor request: no failure");
  supervisor_request r;
  auto f = failure_report_from_json(j["failure"]);
  if (!f)
    return f.error();
  r.failure = std::move(*f);
  std::string err;
  if (j.contains("paths")) {
    const json& p = j["paths"];
    if (!p.is_object() || !read_str(p, "workspace", r.paths.workspace, err) ||
        !read_str(p, "task_dir", r.paths.task_dir, err) || !read_str(p, "plan", r.paths.plan, err) ||
        !read_str(p, "review", r.paths.review, err))
      return status::invalid_argument("supervisor request: paths: " + err);
  }
  if (!read_str(j, "lane", r.lane, err))
    return status::invalid_argument("supervisor request: " + err);
  if (j.contains("grade")) {
    if (!j["grade"].is_number_integer())
      return status::invalid_argument("supervisor request: grade is not an integer");
    r.grade = j["grade"].get<int>();
  }
  if (j.contains("write_set_now")) {
    if (!j["write_set_now"].is_array())
      return status::invalid_argument("supervisor request: write_set_now is not an array");
    try {
      require_integer_numbers(j["write_set_now"]);
      for (const auto& x : j["write_set_now"])
        r.write_set_now.push_back(x.get<file_snapshot>());
    } catch (const std::exception& e) {
      return status::invalid_argument(std::string("supervisor request: write_set_now: ") + exception_text(e));
    }
  }
  if (j.contains("named_files")) {
    if (!j["named_files"].is_array())
      return status::invalid_argument("supervisor request: named_files is not an array");
    try {
      require_integer_numbers(j["named_files"]);
      for (const auto& x : j["named_files"])
        r.named_files.push_back(x.get<named_file>());
    } catch (const std::exception& e) {
      return status::invalid_argument(std::string("supervisor request: named_files: ") + exception_text(e));
    }
  }
  return r;
}

} // namespace ad::runtime

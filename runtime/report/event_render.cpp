#include "runtime/report/event_render.hpp"

#include <array>
#include <map>

#include "runtime/core/text.hpp"

namespace ad::runtime {
namespace {

// The statuses every summary names, even at zero.
constexpr std::array<std::string_view, 6> standard_statuses = {
  task_status_pending, task_status_running, task_status_waiting,
  task_status_blocked, task_status_failed,  task_status_complete};

void add_field(std::string& out, const char* key, const std::string& value) {
  if (value.empty())
    return;
  out += ' ';
  out += key;
  out += '=';
  out += value;
}

// The usage as one key=value token: "1,200in/40out/$0.0028" ("" when none).
std::string usage_field(const token_usage& u) {
  std::string out;
  auto part = [&](const std::optional<int64_t>& n, const char* what) {
    if (!n)
      return;
    if (!out.empty())
      out += '/';
    out += format_token_count(*n) + what;
  };
  part(u.input_tokens, "in");
  part(u.output_tokens, "out");
  part(u.cache_read_tokens, "cache-read");
  part(u.cache_write_tokens, "cache-write");
  if (u.cost_usd) {
    if (!out.empty())
      out += '/';
    out += format_usd(*u.cost_usd);
  }
  return out;
}

// "usage" when anything was reported: absent otherwise, so the events (and
// the traces that record them) of runs without usage stay as they were.
void add_usage(json& j, const token_usage& u) {
  if (!u.empty())
    j["usage"] = usage_to_json(u);
}

void add_reason(std::string& out, const std::string& reason) {
  auto line = one_line(reason);
  if (!line.empty())
    out += ": " + line;
}

std::string json_key(std::string status) {
  for (auto& c : status)
    if (c == '-' || c == ' ')
      c = '_';
  return status;
}

int64_t total_of(const std::vector<report_count>& counts) {
  int64_t total = 0;
  for (const auto& c : counts)
    total += c.count;
  return total;
}

} // namespace

std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space)
      out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string render_event_line(const run_event& e) {
  return format_utc_iso(e.time) + ' ' + render_event_body(e) + '\n';
}

std::string render_event_body(const run_event& e) {
  std::string out(to_string(e.kind));
  if (!e.task.empty())
    out += ' ' + e.task;
  switch (e.kind) {
    case run_event_kind::tasks_scanned: {
      std::vector<std::string> parts;
      std::map<std::string, int64_t> counts;
      for (const auto& t : e.tasks)
        ++counts[t.status];
      for (const auto& [status, n] : counts)
        parts.push_back(std::to_string(n) + " " + status);
      out += " " + std::to_string(e.tasks.size()) + " tasks";
      if (!parts.empty())
        out += ": " + join(parts, ", ");
      break;
    }
    case run_event_kind::task_started:
      add_field(out, "stage", e.stage);
      break;
    case run_event_kind::task_finished:
      add_field(out, "stage", e.stage);
      add_field(out, "outcome", e.outcome);
      add_reason(out, e.reason);
      break;
    case run_event_kind::task_failed:
    case run_event_kind::task_blocked:
    case run_event_kind::task_waiting:
      add_field(out, "stage", e.stage);
      add_reason(out, e.reason);
      break;
    case run_event_kind::attempt_started:
      add_field(out, "role", e.role);
      add_field(out, "target", e.target);
      add_field(out, "cli", e.cli);
      add_field(out, "model", e.model);
      add_field(out, "attempt", std::to_string(e.attempt));
      add_field(out, "node", e.node);
      add_field(out, "locator", e.locator);
      add_reason(out, e.reason);
      break;
    case run_event_kind::attempt_finished:
      add_field(out, "role", e.role);
      add_field(out, "target", e.target);
      add_field(out, "status", e.attempt_status);
      add_field(out, "exit", std::to_string(e.exit_code));
      add_field(out, "class", e.failure_class);
      add_field(out, "spent", usage_field(e.usage));
      add_field(out, "locator", e.locator);
      add_reason(out, e.evidence);
      break;
    case run_event_kind::failover:
    case run_event_kind::promotion:
      add_field(out, "role", e.role);
      add_field(out, "from", e.from_target);
      add_field(out, "to", e.to_target);
      add_reason(out, e.reason);
      break;
    case run_event_kind::tactical_match:
      add_field(out, "role", e.role);
      add_field(out, "target", e.target);
      add_field(out, "patterns", join(e.pattern_ids, ","));
      add_field(out, "action", e.action);
      break;
    case run_event_kind::supervisor_wait:
      add_field(out, "role", e.role);
      add_field(out, "target", e.target);
      add_field(out, "until", format_utc_iso(e.until));
      add_reason(out, e.reason);
      break;
    case run_event_kind::claim_violation:
      add_field(out, "role", e.role);
      add_field(out, "identity", e.identity);
      add_field(out, "path", e.path);
      add_field(out, "other", e.other_task);
      add_field(out, "basis", e.attribution);
      add_field(out, "candidates", join(e.candidates, ","));
      add_field(out, "action", e.action);
      add_reason(out, e.reason);
      break;
    case run_event_kind::node_status:
      add_field(out, "node", e.node);
      add_field(out, "slots", std::to_string(e.slots_in_use) + "/" + std::to_string(e.slots));
      add_field(out, "lease", e.lease);
      add_field(out, "until", format_utc_iso(e.until));
      add_reason(out, e.reason);
      break;
    case run_event_kind::summary: {
      std::vector<std::string> parts;
      for (const auto& c : e.counts)
        parts.push_back(std::to_string(c.count) + " " + c.status);
      out += " " + std::to_string(total_of(e.counts)) + " tasks";
      if (!parts.empty())
        out += ": " + join(parts, ", ");
      if (!e.usage.empty())
        out += "; spent " + usage_summary(e.usage);
      out += "; exit " + std::to_string(e.exit_code);
      auto reason = one_line(e.reason);
      if (!reason.empty())
        out += " (" + reason + ")";
      break;
    }
  }
  return out;
}

json run_event_json(const run_event& e) {
  json j = json::object();
  j["event"] = std::string(to_string(e.kind));
  j["time"] = format_utc_iso(e.time);
  auto task_keys = [&] {
    j["task"] = e.task;
    j["stage"] = e.stage;
  };
  switch (e.kind) {
    case run_event_kind::tasks_scanned: {
      json tasks = json::array();
      for (const auto& t : e.tasks)
        tasks.push_back(
          {{"task", t.task}, {"stage", t.stage}, {"status", t.status}, {"reason", one_line(t.reason)}});
      j["tasks"] = std::move(tasks);
      break;
    }
    case run_event_kind::task_started:
      task_keys();
      break;
    case run_event_kind::task_finished:
      task_keys();
      j["outcome"] = e.outcome;
      j["reason"] = one_line(e.reason);
      break;
    case run_event_kind::task_failed:
    case run_event_kind::task_blocked:
    case run_event_kind::task_waiting:
      task_keys();
      j["reason"] = one_line(e.reason);
      break;
    case run_event_kind::attempt_started:
      j["task"] = e.task;
      j["role"] = e.role;
      j["target"] = e.target;
      j["cli"] = e.cli;
      j["model"] = e.model;
      j["attempt"] = e.attempt;
      j["identity"] = e.identity;
      j["locator"] = e.locator;
      if (!e.node.empty())
        j["node"] = e.node;
      if (!e.reason.empty())
        j["adopted"] = one_line(e.reason);
      break;
    case run_event_kind::attempt_finished:
      j["task"] = e.task;
      j["role"] = e.role;
      j["target"] = e.target;
      j["identity"] = e.identity;
      j["status"] = e.attempt_status;
      j["exit_code"] = e.exit_code;
      j["failure_class"] = e.failure_class;
      j["evidence"] = one_line(e.evidence);
      j["locator"] = e.locator;
      add_usage(j, e.usage);
      break;
    case run_event_kind::failover:
    case run_event_kind::promotion:
      j["task"] = e.task;
      j["role"] = e.role;
      j["from_target"] = e.from_target;
      j["to_target"] = e.to_target;
      j["reason"] = one_line(e.reason);
      break;
    case run_event_kind::tactical_match:
      j["task"] = e.task;
      j["role"] = e.role;
      j["target"] = e.target;
      j["pattern_ids"] = e.pattern_ids;
      j["action"] = e.action;
      break;
    case run_event_kind::supervisor_wait:
      j["task"] = e.task;
      j["role"] = e.role;
      j["target"] = e.target;
      j["until"] = format_utc_iso(e.until);
      j["reason"] = one_line(e.reason);
      break;
    case run_event_kind::claim_violation:
      j["task"] = e.task;
      j["role"] = e.role;
      j["attempt"] = e.attempt;
      j["identity"] = e.identity;
      j["path"] = e.path;
      j["other_task"] = e.other_task;
      j["attribution"] = e.attribution;
      j["candidates"] = e.candidates;
      j["action"] = e.action;
      j["reason"] = one_line(e.reason);
      break;
    case run_event_kind::node_status:
      j["node"] = e.node;
      j["slots"] = e.slots;
      j["slots_in_use"] = e.slots_in_use;
      j["lease"] = e.lease;
      j["lease_until"] = format_utc_iso(e.until);
      j["reason"] = one_line(e.reason);
      break;
    case run_event_kind::summary: {
      j["tasks"] = total_of(e.counts);
      for (auto status : standard_statuses)
        j[std::string(status)] = 0;
      for (const auto& c : e.counts)
        j[json_key(c.status)] = j.value(json_key(c.status), int64_t{0}) + c.count;
      j["exit_code"] = e.exit_code;
      j["message"] = one_line(e.reason);
      add_usage(j, e.usage);
      break;
    }
  }
  return j;
}

std::string render_event_json_line(const run_event& event) {
  return dump_json(run_event_json(event)) + "\n";
}

} // namespace ad::runtime

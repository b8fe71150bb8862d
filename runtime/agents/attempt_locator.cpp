#include "runtime/agents/attempt_locator.hpp"

#include <cstdio>
#include <set>

namespace ad::runtime {

namespace {

constexpr std::string_view status_names[] = {"running", "succeeded", "failed"};

json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }
json opt_time(const std::optional<millis>& v) { return v ? json(format_utc_iso(*v)) : json(nullptr); }

// Reads fields of one JSON object, remembering which keys it consumed and the
// first error.
class field_reader {
public:
  explicit field_reader(const json& obj) : obj_(obj) {}

  const json* take(const char* key) {
    used_.insert(key);
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null())
      return nullptr;
    return &*it;
  }

  void fail(const char* key, const char* expected) {
    if (error_.is_ok())
      error_ = status::invalid_argument(std::string("locator field '") + key + "' must be "
                                        + expected);
  }

  void req_string(const char* key, std::string& out) {
    const json* v = take(key);
    if (v == nullptr || !v->is_string())
      return fail(key, "a string");
    out = v->get<std::string>();
  }
  void string_or_empty(const char* key, std::string& out) {
    const json* v = take(key);
    if (v == nullptr)
      return;
    if (!v->is_string())
      return fail(key, "a string");
    out = v->get<std::string>();
  }
  void opt_string(const char* key, std::optional<std::string>& out) {
    const json* v = take(key);
    if (v == nullptr)
      return;
    if (!v->is_string())
      return fail(key, "a string or null");
    out = v->get<std::string>();
  }
  void req_int(const char* key, int64_t& out) {
    const json* v = take(key);
    if (v == nullptr || !v->is_number_integer())
      return fail(key, "an integer");
    out = v->get<int64_t>();
  }
  void int_or_zero(const char* key, int64_t& out) {
    const json* v = take(key);
    if (v == nullptr)
      return;
    if (!v->is_number_integer())
      return fail(key, "an integer");
    out = v->get<int64_t>();
  }
  void opt_int(const char* key, std::optional<int64_t>& out) {
    const json* v = take(key);
    if (v == nullptr)
      return;
    if (!v->is_number_integer())
      return fail(key, "an integer or null");
    out = v->get<int64_t>();
  }
  void flag(const char* key, bool& out) {
    const json* v = take(key);
    if (v == nullptr)
      return;
    if (!v->is_boolean())
      return fail(key, "a boolean");
    out = v->get<bool>();
  }
  void opt_time(const char* key, std::optional<millis>& out) {
    const json* v = take(key);
    if (v == nullptr)
      return;
    auto t = v->is_string() ? parse_utc_iso(v->get<std::string>()) : result<millis>(status::invalid_argument(""));
    if (!t)
      return fail(key, "an ISO-8601 UTC time or null");
    out = *t;
  }

  json rest() const {
    json extra = json::object();
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!used_.count(it.key()))
        extra[it.key()] = it.value();
    return extra;
  }
  const status& error() const { return error_; }

private:
  const json& obj_;
  std::set<std::string, std::less<>> used_;
  status error_;
};

} // namespace

std::string_view to_string(attempt_status s) { return status_names[static_cast<int>(s)]; }

result<attempt_status> parse_attempt_status(std::string_view text) {
  for (int i = 0; i < 3; ++i)
    if (status_names[i] == text)
      return static_cast<attempt_status>(i);
  return status::invalid_argument("unknown attempt status '" + std::string(text)
                                  + "' (expected running, succeeded or failed)");
}

json locator_to_json(const attempt_locator& l) {
  json j = l.extra.is_object() ? l.extra : json::object();
  j["identity"] = l.identity;
  j["task"] = l.task;
  j["plan_number"] = l.plan_number;
  j["role"] = l.role;
  j["attempt"] = l.attempt;
  j["workspace"] = l.workspace;
  j["workspace_id"] = l.workspace_id;
  j["dispatcher_pid"] = l.dispatcher_pid;
  j["dispatcher_start_token"] = l.dispatcher_start_token;
  j["cli"] = l.cli;
  j["cli_version"] = opt(l.cli_version);
  j["model"] = l.model;
  j["effort"] = opt(l.effort);
  j["process_marker"] = l.process_marker;
  j["plan_path"] = opt(l.plan_path);
  j["review_path"] = opt(l.review_path);
  j["session_id"] = opt(l.session_id);
  j["native_session_path"] = opt(l.native_session_path);
  j["native_session_mtime_ns"] = opt(l.native_session_mtime_ns);
  j["resumed_from_locator"] = opt(l.resumed_from_locator);
  j["stream_log"] = l.stream_log;
  j["normalized_output_log"] = l.normalized_output_log;
  j["heartbeat_log"] = l.heartbeat_log;
  j["cli_log"] = opt(l.cli_log);
  if (l.node)
    j["node"] = *l.node;
  j["work_log"] = opt(l.work_log);
  j["status"] = std::string(to_string(l.status));
  j["started_at"] = format_utc_iso(l.started_at);
  j["updated_at"] = opt_time(l.updated_at);
  j["finished_at"] = opt_time(l.finished_at);
  j["agent_pid"] = opt(l.agent_pid);
  j["agent_start_token"] = opt(l.agent_start_token);
  j["keeper_pid"] = opt(l.keeper_pid);
  j["keeper_start_token"] = opt(l.keeper_start_token);
  j["exit_code"] = opt(l.exit_code);
  j["failure_class"] = opt(l.failure_class);
  j["failure_source"] = opt(l.failure_source);
  j["failure_evidence"] = opt(l.failure_evidence);
  j["failure_evidence_origin"] = opt(l.failure_evidence_origin);
  j["failure_evidence_truncated"] = l.failure_evidence_truncated;
  j["provider_transport_failure_confirmed"] = l.provider_transport_failure_confirmed;
  j["termination_signal"] = opt(l.termination_signal);
  j["termination_signal_inferred"] = l.termination_signal_inferred;
  j["termination_initiator"] = opt(l.termination_initiator);
  j["quota_reset_at"] = opt_time(l.quota_reset_at);
  if (l.silence)
    j["silence_inspection"] = {{"at", format_utc_iso(l.silence->at)},
                               {"silence_ms", l.silence->silence_ms},
                               {"stream_tail", l.silence->stream_tail}};
  else
    j["silence_inspection"] = nullptr;
  if (l.usage)
    j["usage"] = usage_to_json(*l.usage);
  j["selector_evidence"] = l.selector_evidence;
  j["stage_budget"] = l.stage_budget;
  j["retry_handoff_id"] = opt(l.retry_handoff_id);
  return j;
}

result<attempt_locator> locator_from_json(const json& value) {
  if (!value.is_object())
    return status::invalid_argument("locator must be a JSON object");
  attempt_locator l;
  field_reader r(value);
  r.req_string("identity", l.identity);
  r.req_string("task", l.task);
  r.int_or_zero("plan_number", l.plan_number);
  r.req_string("role", l.role);
  r.req_int("attempt", l.attempt);
  r.string_or_empty("workspace", l.workspace);
  r.string_or_empty("workspace_id", l.workspace_id);
  r.int_or_zero("dispatcher_pid", l.dispatcher_pid);
  r.string_or_empty("dispatcher_start_token", l.dispatcher_start_token);
  r.req_string("cli", l.cli);
  r.opt_string("cli_version", l.cli_version);
  r.string_or_empty("model", l.model);
  r.opt_string("effort", l.effort);
  r.string_or_empty("process_marker", l.process_marker);
  r.opt_string("plan_path", l.plan_path);
  r.opt_string("review_path", l.review_path);
  r.opt_string("session_id", l.session_id);
  r.opt_string("native_session_path", l.native_session_path);
  r.opt_int("native_session_mtime_ns", l.native_session_mtime_ns);
  r.opt_string("resumed_from_locator", l.resumed_from_locator);
  r.opt_string("node", l.node);
  r.string_or_empty("stream_log", l.stream_log);
  r.string_or_empty("normalized_output_log", l.normalized_output_log);
  r.string_or_empty("heartbeat_log", l.heartbeat_log);
  r.opt_string("cli_log", l.cli_log);
  r.opt_string("work_log", l.work_log);
  std::string status_text;
  r.req_string("status", status_text);
  std::optional<millis> started;
  r.opt_time("started_at", started);
  if (started)
    l.started_at = *started;
  else if (r.error().is_ok())
    r.fail("started_at", "an ISO-8601 UTC time");
  r.opt_time("updated_at", l.updated_at);
  r.opt_time("finished_at", l.finished_at);
  r.opt_int("agent_pid", l.agent_pid);
  r.opt_string("agent_start_token", l.agent_start_token);
  r.opt_int("keeper_pid", l.keeper_pid);
  r.opt_string("keeper_start_token", l.keeper_start_token);
  r.opt_int("exit_code", l.exit_code);
  r.opt_string("failure_class", l.failure_class);
  r.opt_string("failure_source", l.failure_source);
  r.opt_string("failure_evidence", l.failure_evidence);
  r.opt_string("failure_evidence_origin", l.failure_evidence_origin);
  r.flag("failure_evidence_truncated", l.failure_evidence_truncated);
  r.flag("provider_transport_failure_confirmed", l.provider_transport_failure_confirmed);
  r.opt_string("termination_signal", l.termination_signal);
  r.flag("termination_signal_inferred", l.termination_signal_inferred);
  r.opt_string("termination_initiator", l.termination_initiator);
  r.opt_time("quota_reset_at", l.quota_reset_at);
  if (const json* s = r.take("silence_inspection")) {
    field_reader sr(*s);
    silence_inspection si;
    std::optional<millis> at;
    if (!s->is_object()) {
      r.fail("silence_inspection", "an object or null");
    } else {
      sr.opt_time("at", at);
      sr.int_or_zero("silence_ms", si.silence_ms);
      sr.string_or_empty("stream_tail", si.stream_tail);
      if (!sr.error().is_ok() || !at)
        r.fail("silence_inspection", "an object with at, silence_ms and stream_tail");
      si.at = at.value_or(0);
      l.silence = std::move(si);
    }
  }
  if (const json* u = r.take("usage"); u != nullptr && !u->is_null()) {
    auto usage = usage_from_json(*u);
    if (!usage)
      r.fail("usage", "a usage object with whole token counts and a cost in US dollars");
    else
      l.usage = std::move(*usage);
  }
  if (const json* ev = r.take("selector_evidence"))
    l.selector_evidence = *ev;
  r.int_or_zero("stage_budget", l.stage_budget);
  r.opt_string("retry_handoff_id", l.retry_handoff_id);
  if (!r.error().is_ok())
    return r.error();
  auto st = parse_attempt_status(status_text);
  if (!st)
    return st.error().with_context("locator field 'status'");
  l.status = *st;
  l.extra = r.rest();
  return l;
}

std::string safe_task_name(std::string_view task) {
  std::string out;
  bool in_run = false;
  for (char c : task) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '_' || c == '.' || c == '-';
    if (keep) {
      out += c;
      in_run = false;
    } else if (!in_run) {
      out += "__";
      in_run = true;
    }
  }
  size_t b = out.find_first_not_of('_');
  if (b == std::string::npos)
    return "task";
  size_t e = out.find_last_not_of('_');
  return out.substr(b, e - b + 1);
}

std::string make_attempt_identity(std::string_view task, int64_t plan, std::string_view role,
                                  int64_t attempt) {
  char nn[32];
  std::snprintf(nn, sizeof nn, "%02lld", static_cast<long long>(attempt));
  return safe_task_name(task) + "__p" + std::to_string(plan) + "__" + std::string(role) + "__a"
         + nn;
}

std::string attempt_run_folder_name(millis started_at, std::string_view identity) {
  return format_utc_stamp(started_at) + "__" + std::string(identity);
}

std::string attempt_process_marker(std::string_view workspace_id, std::string_view identity,
                                   std::string_view nonce) {
  return "w" + std::string(workspace_id) + "__" + std::string(identity) + "__"
         + std::string(nonce);
}

} // namespace ad::runtime

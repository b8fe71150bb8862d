#include "runtime/run/attempt_order.hpp"

#include "runtime/core/exception_text.hpp"
#include "runtime/core/numbers.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(attempt_timing, heartbeat_ms, silence_inspection_ms,
                                   stall_limit_ms, terminate_grace_ms, pi_poll_ms,
                                   spawn_timeout_ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(cli_launch_caps, detected, version, pi_approve, pi_session_id)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(attempt_progress_rule, network_wait_ms, retrying_ms,
                                   failover_available)

namespace {

// Reads j as T with the nlohmann mapping; an error names `what`.
template <class T>
result<T> decode(const json& j, const char* what) {
  try {
    return j.get<T>();
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string(what) + ": " + exception_text(e));
  }
}

} // namespace

attempt_timing attempt_timing_of(const policy& pol) {
  attempt_timing t;
  // The policy's seconds are finite and >= 0, but not bounded above.
  t.heartbeat_ms = seconds_to_ms(pol.timeouts.heartbeat_s);
  t.silence_inspection_ms = seconds_to_ms(pol.timeouts.silence_inspection_s);
  t.stall_limit_ms = seconds_to_ms(pol.timeouts.stall_limit_s);
  return t;
}

json to_json(const attempt_timing& t) {
  return json(t);
}

result<attempt_timing> attempt_timing_from_json(const json& j) {
  return decode<attempt_timing>(j, "attempt timing");
}

json to_json(const attempt_order& o) {
  json j{{"task", o.task},
         {"plan_number", o.plan_number},
         {"role", o.role},
         {"attempt", o.attempt},
         {"workspace", o.workspace},
         {"workspace_id", o.workspace_id},
         {"runs_dir", o.runs_dir},
         {"work_log", o.work_log},
         {"adapter", o.adapter},
         {"executable", o.executable},
         {"model", o.model},
         {"effort", o.effort},
         {"prompt", o.prompt},
         {"session_id", o.session_id},
         {"native_session_file", o.native_session_file},
         {"resumed_from_locator", o.resumed_from_locator},
         {"provider", o.provider},
         {"caps", o.caps},
         {"plan_path", o.plan_path},
         {"review_path", o.review_path},
         {"write_paths", o.write_paths},
         {"command_template", o.command_template},
         {"env_additions", o.env_additions},
         {"selector_evidence", o.has_selector_evidence ? json(o.selector_evidence) : json()},
         {"stage_budget", o.stage_budget},
         {"retry_handoff_id", o.retry_handoff_id},
         {"progress", o.progress},
         {"timing", o.timing},
         {"line_cap", o.line_cap}};
  if (!o.node.empty())
    j["node"] = o.node;
  if (!o.keep_alive.empty())
    j["keep_alive"] = o.keep_alive;
  if (!o.usage_reader.empty())
    j["usage_reader"] = o.usage_reader;
  if (o.has_prices)
    j["prices"] = to_json(o.prices);
  return j;
}

result<attempt_order> attempt_order_from_json(const json& j) {
  try {
    attempt_order o;
    o.task = json_member<std::string>(j, "task");
    o.plan_number = json_member<int64_t>(j, "plan_number");
    o.role = json_member<std::string>(j, "role");
    o.attempt = json_member<int64_t>(j, "attempt");
    o.workspace = json_member<std::string>(j, "workspace");
    o.workspace_id = json_member<std::string>(j, "workspace_id");
    o.runs_dir = json_member<std::string>(j, "runs_dir");
    o.work_log = json_member<std::string>(j, "work_log");
    o.adapter = json_member<std::string>(j, "adapter");
    o.executable = json_member<std::string>(j, "executable");
    o.model = json_member<std::string>(j, "model");
    o.effort = json_member<std::string>(j, "effort");
    o.prompt = json_member<std::string>(j, "prompt");
    o.session_id = json_member<std::string>(j, "session_id");
    o.native_session_file = json_member<std::string>(j, "native_session_file");
    o.resumed_from_locator = json_member<std::string>(j, "resumed_from_locator");
    o.provider = json_member<std::string>(j, "provider");
    o.caps = json_member<cli_launch_caps>(j, "caps");
    o.plan_path = json_member<std::string>(j, "plan_path");
    o.review_path = json_member<std::string>(j, "review_path");
    // Absent in traces recorded before the claim watcher had it.
    if (j.contains("write_paths"))
      o.write_paths = json_member<std::vector<std::string>>(j, "write_paths");
    o.command_template = json_member<std::vector<std::string>>(j, "command_template");
    o.env_additions = json_member<std::vector<std::string>>(j, "env_additions");
    if (j.contains("selector_evidence") && !j["selector_evidence"].is_null()) {
      o.has_selector_evidence = true;
      o.selector_evidence = json_member<route_decision>(j, "selector_evidence");
    }
    o.stage_budget = json_member<int64_t>(j, "stage_budget");
    o.retry_handoff_id = json_member<std::string>(j, "retry_handoff_id");
    o.progress = json_member<attempt_progress_rule>(j, "progress");
    o.timing = json_member<attempt_timing>(j, "timing");
    o.line_cap = json_member<uint64_t>(j, "line_cap");
    if (j.contains("node"))
      o.node = json_member<std::string>(j, "node");
    if (j.contains("keep_alive"))
      o.keep_alive = json_member<std::vector<std::string>>(j, "keep_alive");
    if (j.contains("usage_reader"))
      o.usage_reader = json_member<std::string>(j, "usage_reader");
    if (j.contains("prices")) {
      auto prices = token_prices_from_json(j["prices"]);
      if (!prices)
        return prices.error().with_context("attempt order");
      o.has_prices = true;
      o.prices = *prices;
    }
    return o;
  } catch (const std::exception& e) {
    return status::invalid_argument("attempt order: " + exception_text(e));
  }
}

json to_json(const attempt_result& r) {
  json j{{"identity", r.identity},
              {"locator", r.locator_path},
              {"attempt_dir", r.attempt_dir},
              {"status", r.status},
              {"exit_code", r.exit_code},
              {"pid", r.pid},
              {"failure_class", r.failure_class},
              {"failure_source", r.failure_source},
              {"evidence", r.evidence},
              {"evidence_origin", r.evidence_origin},
              {"termination_signal", r.termination_signal},
              {"session_id", r.session_id},
              {"native_session_path", r.native_session_path},
              {"started_at", r.started_at},
              {"finished_at", r.finished_at},
              {"heartbeats", r.heartbeats},
              {"silence_inspected", r.silence_inspected},
              {"reset_at", r.has_reset_at ? json(r.reset_at) : json()}};
  // Absent when empty, so results recorded before usage read the same.
  if (!r.usage.empty())
    j["usage"] = usage_to_json(r.usage);
  return j;
}

result<attempt_result> attempt_result_from_json(const json& j) {
  try {
    attempt_result r;
    r.identity = json_member<std::string>(j, "identity");
    r.locator_path = json_member<std::string>(j, "locator");
    r.attempt_dir = json_member<std::string>(j, "attempt_dir");
    r.status = json_member<std::string>(j, "status");
    r.exit_code = json_member<int32_t>(j, "exit_code");
    r.pid = json_member<int32_t>(j, "pid");
    r.failure_class = json_member<std::string>(j, "failure_class");
    r.failure_source = json_member<std::string>(j, "failure_source");
    r.evidence = json_member<std::string>(j, "evidence");
    r.evidence_origin = json_member<std::string>(j, "evidence_origin");
    r.termination_signal = json_member<std::string>(j, "termination_signal");
    r.session_id = json_member<std::string>(j, "session_id");
    r.native_session_path = json_member<std::string>(j, "native_session_path");
    r.started_at = json_member<int64_t>(j, "started_at");
    r.finished_at = json_member<int64_t>(j, "finished_at");
    r.heartbeats = json_member<int64_t>(j, "heartbeats");
    r.silence_inspected = json_member<bool>(j, "silence_inspected");
    if (j.contains("reset_at") && !j["reset_at"].is_null()) {
      r.has_reset_at = true;
      r.reset_at = json_member<int64_t>(j, "reset_at");
    }
    if (j.contains("usage")) {
      auto usage = usage_from_json(j["usage"]);
      if (!usage)
        return usage.error().with_context("attempt result");
      r.usage = std::move(*usage);
    }
    return r;
  } catch (const std::exception& e) {
    return status::invalid_argument("attempt result: " + exception_text(e));
  }
}

} // namespace ad::runtime

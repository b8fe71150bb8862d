#include "actors/attempt/attempt_convert.hpp"

#include "runtime/core/json.hpp"
#include "runtime/process/spawn.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {

runtime::result<runtime::attempt_setup> to_attempt_setup(const messages::start_attempt& req,
                                                         const attempt_config& cfg) {
  auto kind = runtime::parse_adapter_kind(req.adapter);
  if (!kind)
    return kind.error();
  runtime::attempt_setup s;
  s.task = req.task;
  s.plan_number = req.plan_number;
  s.role = req.role;
  s.attempt = req.attempt;
  s.workspace = req.workspace;
  s.workspace_id = req.workspace_id;
  s.runs_dir = req.runs_dir;
  s.work_log = req.work_log;
  s.launch.kind = *kind;
  s.launch.executable = req.executable;
  s.launch.model = req.model;
  s.launch.effort = req.effort;
  s.launch.prompt = req.prompt;
  s.launch.session_id = req.session_id;
  s.launch.native_session_file = req.native_session_file;
  s.launch.provider = req.provider;
  s.launch.caps = {req.caps.detected, req.caps.version, req.caps.pi_approve,
                   req.caps.pi_session_id};
  s.resumed_from_locator = req.resumed_from_locator;
  s.node = req.node;
  s.progress = {req.progress.network_wait_ms, req.progress.retrying_ms,
                req.progress.failover_available};
  s.launch.plan_path = req.plan_path;
  s.launch.review_path = req.review_path;
  s.launch.command_template = req.command_template;
  s.env_additions = req.env_additions;
  if (req.has_selector_evidence)
    runtime::to_json(s.selector_evidence, req.selector_evidence);
  s.stage_budget = req.stage_budget;
  s.retry_handoff_id = req.retry_handoff_id;
  if (!req.usage_reader.empty()) {
    auto format = runtime::parse_usage_format(req.usage_reader);
    if (!format)
      return format.error();
    s.usage_reader = *format;
  }
  if (req.has_prices)
    s.prices = req.prices;
  s.failure_patterns = cfg.failure_patterns;
  s.dispatcher_pid = cfg.dispatcher_pid;
  s.dispatcher_start_token = cfg.dispatcher_start_token;
  return s;
}

messages::attempt_result to_attempt_result(const runtime::attempt_run& run,
                                           const runtime::failure_verdict& v) {
  const auto& loc = run.locator();
  messages::attempt_result r;
  r.identity = loc.identity;
  r.locator_path = run.locator_path().string();
  r.attempt_dir = run.attempt_dir().string();
  r.status = std::string{runtime::to_string(loc.status)};
  r.exit_code = static_cast<int32_t>(loc.exit_code.value_or(0));
  r.pid = static_cast<int32_t>(loc.agent_pid.value_or(0));
  r.failure_class = v.failure_class;
  r.failure_source = v.failure_source;
  r.evidence = v.evidence;
  r.evidence_origin = v.evidence_origin;
  r.termination_signal = loc.termination_signal.value_or("");
  r.session_id = loc.session_id.value_or("");
  r.native_session_path = loc.native_session_path.value_or("");
  r.started_at = loc.started_at;
  r.finished_at = loc.finished_at.value_or(0);
  r.heartbeats = run.heartbeats();
  r.silence_inspected = loc.extra.contains("silence_inspections");
  r.has_reset_at = v.reset_at.has_value();
  r.reset_at = v.reset_at.value_or(0);
  r.usage = run.usage();
  return r;
}

void record_exit(const messages::process_exit& exit, runtime::attempt_end& end) {
  end.lost_stream_lines = exit.lost_lines;
  switch (exit.end) {
    case messages::process_end::exited:
      end.how = runtime::exit_how::exited;
      end.exit_code = exit.exit_code;
      end.end_note = exit.reason;
      break;
    case messages::process_end::signaled:
      end.how = runtime::exit_how::signaled;
      end.exit_signal = exit.signal;
      end.exit_code = exit.exit_code;
      end.end_note = exit.reason;
      break;
    case messages::process_end::launch_failed:
      runtime::mark_launch_failure(end, exit.reason);
      break;
  }
}

} // namespace ad::actors

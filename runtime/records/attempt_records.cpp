#include "runtime/records/attempt_records.hpp"

#include "runtime/agents/pi_session.hpp"

namespace ad::runtime {

json attempt_line_body(std::string_view identity, adapter_kind kind, std::string_view role,
                       output_channel channel, std::string_view text, bool truncated,
                       uint64_t dropped_bytes, int64_t at) {
  json body{{"attempt", identity},
            {"cli", to_string(kind)},
            {"role", role},
            {"channel", channel == output_channel::out ? "out" : "err"},
            {"text", text},
            {"at", at}};
  if (truncated) {
    body["truncated"] = true;
    body["dropped"] = dropped_bytes;
  }
  return body;
}

json attempt_follow_body(std::string_view identity, const silence_settings& settings,
                         int64_t at, const no_progress_settings& progress) {
  return json{{"attempt", identity},
              {"at", at},
              {"heartbeat_ms", settings.heartbeat_ms},
              {"inspection_ms", settings.inspection_ms},
              {"stall_limit_ms", settings.stall_limit_ms},
              {"progress", json{{"network_wait_ms", progress.network_wait_ms},
                                {"retrying_ms", progress.retrying_ms},
                                {"failover_available", progress.failover_available}}}};
}

json attempt_silence_body(std::string_view identity, int64_t at) {
  return json{{"attempt", identity}, {"at", at}};
}

json silence_due_body(std::string_view identity, tool_activity activity,
                      const silence_actions& due) {
  return json{{"attempt", identity},
              {"tools", activity == tool_activity::tool_running ? "running" : "idle"},
              {"stall", due.stall},
              {"inspect", due.inspect},
              {"heartbeat", due.heartbeat},
              {"silent_ms", due.silent_ms}};
}

tool_activity tool_activity_of_pi_phase(std::string_view phase) {
  return phase == to_string(pi_phase::tool_running) ? tool_activity::tool_running
                                                    : tool_activity::idle;
}

json review_control_body(std::string_view identity, std::string_view tool) {
  return json{{"attempt", identity}, {"tool", tool}};
}

json no_progress_body(std::string_view identity, const no_progress_stop& stop) {
  return json{{"attempt", identity},
              {"class", stop.failure_class},
              {"evidence", stop.evidence},
              {"origin", stop.origin}};
}

json pi_phase_body(std::string_view identity, std::string_view session_file,
                   std::string_view phase, std::string_view reason,
                   const std::vector<std::string>& pending_tool_call_ids) {
  return json{{"attempt", identity}, {"session_file", session_file}, {"phase", phase},
              {"reason", reason}, {"pending_tool_call_ids", pending_tool_call_ids}};
}

} // namespace ad::runtime

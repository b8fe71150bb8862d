#include "runtime/replay/output_replay.hpp"

namespace ad::runtime {

json attempt_line_body(std::string_view identity, adapter_kind kind, std::string_view role,
                       output_channel channel, std::string_view text, bool truncated,
                       uint64_t dropped_bytes) {
  json body{{"attempt", identity},
            {"cli", to_string(kind)},
            {"role", role},
            {"channel", channel == output_channel::out ? "out" : "err"},
            {"text", text}};
  if (truncated) {
    body["truncated"] = true;
    body["dropped"] = dropped_bytes;
  }
  return body;
}

json review_control_body(std::string_view identity, std::string_view tool) {
  return json{{"attempt", identity}, {"tool", tool}};
}

json pi_phase_body(std::string_view identity, std::string_view session_file,
                   std::string_view phase, std::string_view reason,
                   const std::vector<std::string>& pending_tool_call_ids) {
  return json{{"attempt", identity}, {"session_file", session_file}, {"phase", phase},
              {"reason", reason}, {"pending_tool_call_ids", pending_tool_call_ids}};
}

result<std::vector<replayed_decision>> output_replay::line(const json& body) {
  try {
    auto identity = json_member<std::string>(body, "attempt");
    auto kind = parse_adapter_kind(json_member<std::string>(body, "cli"));
    if (!kind.is_ok())
      return kind.error().with_context("attempt.line");
    auto channel = json_member<std::string>(body, "channel");
    if (channel != "out" && channel != "err")
      return status::invalid_argument("attempt.line: channel \"" + channel + "\"");
    auto guard = json_member<std::string>(body, "role") == "review" ? review_guard::codex_review
                                                                    : review_guard::off;
    auto it = outputs_.try_emplace(identity, *kind, guard).first;
    auto step = it->second.feed(channel == "out" ? output_channel::out : output_channel::err,
                                json_member<std::string>(body, "text"));
    std::vector<replayed_decision> out;
    if (step.collaboration_tool)
      out.push_back({std::string(trace_kinds::attempt_review_control),
                     review_control_body(identity, *step.collaboration_tool)});
    return out;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("attempt.line: ") + e.what());
  }
}

failure_inputs output_replay::finish(const std::string& identity, failure_inputs recorded,
                                     const std::vector<terminal_diagnostic>& file_diagnostics) {
  // An attempt that printed nothing has no output yet: one without lines.
  auto node = outputs_.extract(identity);
  attempt_output output = node ? std::move(node.mapped())
                               : attempt_output(adapter_kind::codex, review_guard::off);
  for (const auto& d : file_diagnostics)
    output.add_diagnostic(d);
  recorded.diagnostics_newest_first = output.diagnostics().newest_first();
  recorded.review_control_tool = output.review_violation();
  return recorded;
}

} // namespace ad::runtime

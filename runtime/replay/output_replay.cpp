#include "runtime/replay/output_replay.hpp"
#include "runtime/core/exception_text.hpp"


namespace ad::runtime {

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
    const int64_t at = body.contains("at") ? json_member<int64_t>(body, "at") : 0;
    if (body.contains("at"))
      if (auto clock = clocks_.find(identity); clock != clocks_.end())
        clock->second.on_output(at);
    auto it = outputs_.find(identity);
    if (it == outputs_.end()) {
      auto rule = progress_.find(identity);
      it = outputs_
             .emplace(identity, attempt_output(*kind, guard,
                                               rule == progress_.end() ? no_progress_settings{}
                                                                       : rule->second,
                                               table_))
             .first;
    }
    auto step = it->second.feed(channel == "out" ? output_channel::out : output_channel::err,
                                json_member<std::string>(body, "text"),
                                at);
    std::vector<replayed_decision> out;
    if (step.collaboration_tool)
      out.push_back({std::string(trace_kinds::attempt_review_control),
                     review_control_body(identity, *step.collaboration_tool)});
    if (step.no_progress)
      out.push_back({std::string(trace_kinds::attempt_no_progress),
                     no_progress_body(identity, *step.no_progress)});
    return out;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("attempt.line: ") + exception_text(e));
  }
}

result<std::vector<replayed_decision>> output_replay::follow(const json& body) {
  try {
    silence_settings settings{json_member<int64_t>(body, "heartbeat_ms"),
                              json_member<int64_t>(body, "inspection_ms"),
                              json_member<int64_t>(body, "stall_limit_ms")};
    auto identity = json_member<std::string>(body, "attempt");
    if (body.contains("progress")) {
      const json& p = json_member<json>(body, "progress");
      progress_[identity] = {json_member<int64_t>(p, "network_wait_ms"),
                             json_member<int64_t>(p, "retrying_ms"),
                             json_member<bool>(p, "failover_available")};
    }
    clocks_.erase(identity);
    clocks_.emplace(identity, silence_clock(settings, json_member<int64_t>(body, "at")));
    return std::vector<replayed_decision>{};
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("attempt.follow: ") + exception_text(e));
  }
}

result<std::vector<replayed_decision>> output_replay::phase(const json& body) {
  try {
    phases_[json_member<std::string>(body, "attempt")] = json_member<std::string>(body, "phase");
    return std::vector<replayed_decision>{};
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("attempt.phase: ") + exception_text(e));
  }
}

result<std::vector<replayed_decision>> output_replay::silence(const json& body) {
  try {
    auto identity = json_member<std::string>(body, "attempt");
    auto clock = clocks_.find(identity);
    if (clock == clocks_.end())
      return status::invalid_argument("attempt.silence: no attempt.follow of " + identity);
    auto phase = phases_.find(identity);
    auto tools = tool_activity_of_pi_phase(phase == phases_.end() ? "" : phase->second);
    auto due = clock->second.check(json_member<int64_t>(body, "at"), tools);
    return std::vector<replayed_decision>{{std::string(trace_kinds::attempt_silence_due),
                                           silence_due_body(identity, tools, due)}};
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("attempt.silence: ") + exception_text(e));
  }
}

failure_inputs output_replay::finish(const std::string& identity, failure_inputs recorded,
                                     const std::vector<terminal_diagnostic>& file_diagnostics) {
  // An attempt that printed nothing has no output yet: one without lines.
  clocks_.erase(identity);
  phases_.erase(identity);
  progress_.erase(identity);
  auto node = outputs_.extract(identity);
  attempt_output output = node ? std::move(node.mapped())
                               : attempt_output(adapter_kind::codex, review_guard::off);
  for (const auto& d : file_diagnostics)
    output.add_diagnostic(d);
  recorded.diagnostics_newest_first = output.diagnostics().newest_first();
  recorded.review_control_tool = output.review_violation();
  if (node) {
    recorded.kind = output.kind();
    recorded.outcome = output.outcome();
    if (output.no_progress())
      recorded.no_progress = *output.no_progress();
  }
  return recorded;
}

} // namespace ad::runtime

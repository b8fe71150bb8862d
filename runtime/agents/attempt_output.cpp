#include "runtime/agents/attempt_output.hpp"

#include "runtime/agents/json_fields.hpp"

namespace ad::runtime {

attempt_output::attempt_output(adapter_kind kind, review_guard guard,
                               no_progress_settings progress,
                               const compiled_failure_patterns* table,
                               std::optional<usage_format> usage)
    : kind_(kind), guard_(guard), outcome_(kind), usage_(usage.value_or(usage_format_of(kind))),
      progress_(kind, progress),
      table_(table != nullptr ? table : &default_compiled_failure_patterns()) {}

namespace {

// A claude `user` event only matters when a tool result failed (it is then
// rendered); the bulk of a claude stream is successful tool output, which is
// skipped without a JSON parse. The CLI writes "type" first.
bool skippable_claude_line(std::string_view line) {
  return line.starts_with(R"({"type":"user")")
         && line.find(R"("is_error":true)") == std::string_view::npos;
}

} // namespace

output_event parse_output_event(adapter_kind kind, output_channel channel, std::string_view line) {
  output_event out;
  if (channel != output_channel::out || kind == adapter_kind::command)
    return out;
  if (kind == adapter_kind::claude && skippable_claude_line(line)) {
    out.skipped = true;
    return out;
  }
  out.event = agent_json::parse_object_line(line);
  return out;
}

output_step attempt_output::feed(output_channel channel, std::string_view line, int64_t at) {
  output_step step;
  auto event = parse_output_event(kind_, channel, line);
  if (event.skipped) {
    ++render_.lines_seen;
    return step;
  }
  const json* parsed = event.get();
  if (auto d = detect_terminal_diagnostic(kind_, channel, line, parsed))
    diagnostics_.add(std::move(*d));
  if (guard_ == review_guard::codex_review && kind_ == adapter_kind::codex && parsed != nullptr
      && !violation_) {
    if (auto tool = codex_collaboration_tool_of_event(*parsed)) {
      violation_ = *tool;
      diagnostics_.add(review_control_diagnostic(*tool));
      step.collaboration_tool = std::move(tool);
    }
  }
  if (parsed == nullptr && kind_ == adapter_kind::command && channel == output_channel::out
      && usage_.format() != usage_format::none)
    usage_.on_line(line); // a command that speaks one of the CLIs' formats
  if (parsed != nullptr) {
    outcome_.on_event(*parsed);
    usage_.on_event(*parsed);
    if (auto stop = progress_.on_event(*parsed, at, *table_)) {
      stopped_ = stop;
      step.no_progress = std::move(stop);
    }
  }
  auto rendered = render_event(kind_, channel, line, parsed, render_);
  step.rendered = std::move(rendered.lines);
  step.discovered_session_id = std::move(rendered.discovered_session_id);
  return step;
}

std::vector<terminal_diagnostic> attempt_output::add_agy_cli_log(
  std::string_view log_text, const compiled_failure_patterns& table) {
  auto found = agy_log_diagnostics(log_text, table);
  for (const auto& d : found)
    diagnostics_.add(d);
  return found;
}

} // namespace ad::runtime

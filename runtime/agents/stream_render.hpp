#pragma once
// Rendering of agent output into normalized-output.log: one function per CLI
// takes one stdout line and a small per-attempt render_state and returns the
// human lines to append (possibly none) plus a session id when the line
// reveals one (codex `thread.started` thread_id, claude `session_id` on any
// event, pi's session header id). A line that is not a JSON object passes
// through unchanged; a JSON event of an unknown shape renders nothing or a
// short generic summary. Pure functions over their inputs: no I/O, never
// throw, safe on binary garbage; one render_state belongs to one attempt and
// is not shared between threads.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/core/json.hpp"

namespace ad::runtime {

enum class output_channel : uint8_t { out, err };

struct render_state {
  std::string session_id;          // the last session id discovered
  std::string last_assistant_text; // claude/pi: not printed twice by a result event
  uint64_t lines_seen = 0;
};

struct rendered_lines {
  std::vector<std::string> lines;
  // Set when this line names a session id different from state.session_id.
  std::optional<std::string> discovered_session_id;
};

rendered_lines render_codex_line(std::string_view line, render_state& state);
rendered_lines render_claude_line(std::string_view line, render_state& state);
rendered_lines render_agy_line(std::string_view line, render_state& state);
rendered_lines render_pi_line(std::string_view line, render_state& state);
// `command` agents: every line passes through.
rendered_lines render_command_line(std::string_view line, render_state& state);

// Dispatches on kind for stdout; a stderr line renders as "[stderr] <line>".
rendered_lines render_stream_line(adapter_kind kind, output_channel channel,
                                  std::string_view line, render_state& state);

// The same for a caller that already parsed the line: event is the parsed
// JSON object, or nullptr when the line is not one (stdout only; ignored for
// stderr and the command adapter).
rendered_lines render_event(adapter_kind kind, output_channel channel, std::string_view line,
                            const json* event, render_state& state);

// Longest rendered text line; longer text is cut with a "…" marker.
inline constexpr size_t max_rendered_chars = 4000;

} // namespace ad::runtime

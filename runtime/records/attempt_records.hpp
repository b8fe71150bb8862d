#pragma once
// The records an attempt actor writes into a message trace (docs/traces.md):
// the attempt.line edge for every line its agent prints, the
// attempt.review_control decision a line can cause (a codex review started
// a collaboration tool: the agent is stopped), attempt.no_progress, the
// attempt.phase edge of a pi phase report, and the silence timer's
// attempt.follow / attempt.silence / attempt.silence_due. Recording builds
// them here and replay (runtime/replay/output_replay.hpp) reads them. Pure;
// never throws.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/progress_watch.hpp"
#include "runtime/agents/stream_render.hpp"
#include "runtime/attempt/silence_clock.hpp"
#include "runtime/core/json.hpp"

namespace ad::runtime {

// One line as the reactor delivered it, and when the attempt took it
// (`at`, ms). truncated/dropped appear only when the line was cut at the
// line cap.
json attempt_line_body(std::string_view identity, adapter_kind kind, std::string_view role,
                       output_channel channel, std::string_view text, bool truncated,
                       uint64_t dropped_bytes, int64_t at);
// The agent started and the attempt follows it from `at` with these
// silence settings and no-progress rule (attempt.follow).
json attempt_follow_body(std::string_view identity, const silence_settings& settings,
                         int64_t at, const no_progress_settings& progress = {});
// A silence timer fired at `at` (attempt.silence), and what was due then
// with the agent's tools `activity` (attempt.silence_due: a stall
// terminates the agent; a running tool call defers the inspection).
json attempt_silence_body(std::string_view identity, int64_t at);
json silence_due_body(std::string_view identity, tool_activity activity,
                      const silence_actions& due);
// A pi session phase as the silence checks read it: a tool call runs only
// in phase "tool-running" (no report yet: idle).
tool_activity tool_activity_of_pi_phase(std::string_view phase);
json review_control_body(std::string_view identity, std::string_view tool);
// A line at which the agent had made no progress too long: it is stopped
// and classified with the stop's class (attempt.no_progress).
json no_progress_body(std::string_view identity, const no_progress_stop& stop);
json pi_phase_body(std::string_view identity, std::string_view session_file,
                   std::string_view phase, std::string_view reason,
                   const std::vector<std::string>& pending_tool_call_ids);

} // namespace ad::runtime

#pragma once
// Renders run events for output that is not a live board: one plain line per
// event (stdout is not a terminal) and one JSON object per event (`--json`,
// JSON Lines; schema in docs/events.md, consistent with the dry run's
// {"event":"task",...}/{"event":"summary",...} lines). Pure functions
// returning strings; the caller decides where they go. Multi-line reasons
// and evidence are folded onto one line; invalid UTF-8 is replaced, never
// thrown on.

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/report/run_event.hpp"

namespace ad::runtime {

// "2026-11-29T13:07:36.123Z task_blocked auth/01 stage=review: no verdict\n"
std::string render_event_line(const run_event& event);
// The same line without its time stamp and '\n' ("task_blocked auth/01 ...").
std::string render_event_body(const run_event& event);

// {"event":"task_blocked","time":"2026-...Z","task":"auth/01",...}
json run_event_json(const run_event& event);

// run_event_json dumped on one line, ending with '\n'.
std::string render_event_json_line(const run_event& event);

// Folds line breaks and tabs into single spaces and trims the ends.
std::string one_line(const std::string& text);

} // namespace ad::runtime

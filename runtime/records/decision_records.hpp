#pragma once
// The bodies of the trace records the run writes at its edges and decision
// points (docs/traces.md lists every kind), built by the same functions on
// the recording side and in replay, so a replayed decision compares equal
// to the recorded one exactly when the decision is the same. Kind names are
// the constants below. Pure JSON mapping: no I/O, no clock; never throws
// (a JSON text that does not parse is kept as a string).

#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/state/change.hpp"
#include "runtime/trace/trace_kinds.hpp"

namespace ad::runtime {

// A JSON text as a JSON value (a string when it does not parse).
json json_or_text(std::string_view text);

json changes_body(const std::vector<state_change>& changes);

json supervisor_failure_body(const supervisor_request& request, const task_state& task,
                             millis now);
json supervisor_step_body(const supervisor_outcome& out);

// (runtime/run/active_probe.hpp)
struct active_stage_reading;
struct active_review;

// The readings of the active stages a (re)start probes (the probe's answer
// per task, the succeeded locator and checklist read back: the scheduler
// machine's active_stages_read event) and the decision on them
// (decide_active_stages).
json active_stage_readings_body(const std::vector<active_stage_reading>& readings);
result<std::vector<active_stage_reading>> active_stage_readings_from_json(const json& j);
json active_review_body(const active_review& review);

} // namespace ad::runtime

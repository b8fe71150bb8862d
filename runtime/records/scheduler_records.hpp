#pragma once
// The message trace's JSON forms of the scheduler machine's events and
// commands (scheduler.event -> scheduler.commands, docs/traces.md): what
// the scheduler actor records and what replay reads back and compares.
// Pure JSON mapping; the decoder returns invalid_argument naming the member
// at fault and never throws.

#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/run/scheduler_machine.hpp"

namespace ad::runtime {

json to_json(const scheduler_event& e);
result<scheduler_event> scheduler_event_from_json(const json& j);
json to_json(const scheduler_command& c);
json commands_to_json(const std::vector<scheduler_command>& cs);

} // namespace ad::runtime

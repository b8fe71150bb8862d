#pragma once
// The JSON form of what an attempt's failure classification is decided on
// (failure_inputs) and of what it decided (failure_verdict), so a message
// trace can carry both and replay can classify again under another pattern
// table (docs/traces.md, edge attempt.exit and decision attempt.classified).
// Pure mapping: no I/O, no clock. failure_inputs_from_json returns
// invalid_argument naming the bad field; nothing here throws.

#include "runtime/agents/failure_classifier.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// Terminal diagnostics as [{origin, text}], in the order given.
json diagnostics_to_json(const std::vector<terminal_diagnostic>& diagnostics);
result<std::vector<terminal_diagnostic>> diagnostics_from_json(const json& j);

// A CLI's typed end: {end, origin, code, message, reset_at, recovered_errors,
// printed_events}.
json cli_outcome_to_json(const cli_outcome& o);
result<cli_outcome> cli_outcome_from_json(const json& j);

// The inputs; cli, outcome, no_progress and utc_offset_s may be missing
// (traces recorded before them): an unknown end under the command adapter's
// rules.
json failure_inputs_to_json(const failure_inputs& in);
result<failure_inputs> failure_inputs_from_json(const json& j);

// The verdict's decided fields: class, source, evidence and its origin,
// truncation, the termination signal, the reset time and the transport flag.
json failure_verdict_to_json(const failure_verdict& v);

} // namespace ad::runtime

#pragma once
// Replay of agent output in a message trace (docs/traces.md; the records
// are runtime/records/attempt_records.hpp): one attempt_output per attempt is
// fed that attempt's recorded lines in order, exactly as the live attempt
// fed its own; at the attempt's end (attempt.exit) the diagnostics and the
// review violation it collected replace the recorded ones in the
// classification inputs, so a change in how lines are read shows up as a
// different attempt.classified. The attempt's silence clock is rebuilt the
// same way: started at attempt.follow, reset by each line's time, and
// checked at each recorded timer firing (attempt.silence), where it decides
// again what is due (attempt.silence_due: heartbeat, inspection, stall).
// Whether a pi tool call runs at that check is not read from the trace: it
// follows from the attempt's pi phase reports fed before it.
// Plain state owned by one replay: no I/O, no threads; errors are handler
// results, nothing throws.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "runtime/attempt/silence_clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/records/attempt_records.hpp"
#include "runtime/trace/trace_kinds.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::runtime {

class output_replay {
public:
  // table: the replayed policy's failure patterns (the no-progress rule
  // classes a retried error with them); null: the default table. Must
  // outlive the replay.
  explicit output_replay(const compiled_failure_patterns* table = nullptr) : table_(table) {}

  // attempt.line: feeds the line to its attempt's output (created at the
  // attempt's first line); the decision attempt.review_control when the
  // line starts a collaboration tool in a codex review, attempt.no_progress
  // when it crosses the no-progress rule.
  result<std::vector<replayed_decision>> line(const json& body);

  // attempt.follow: the attempt's silence clock starts.
  result<std::vector<replayed_decision>> follow(const json& body);
  // attempt.phase: the attempt's pi phase from now on.
  result<std::vector<replayed_decision>> phase(const json& body);
  // attempt.silence: its silence clock checked at the recorded time, with
  // the tool activity of its last phase -> attempt.silence_due.
  result<std::vector<replayed_decision>> silence(const json& body);

  // The classification inputs of `identity` rebuilt from its recorded
  // lines: `recorded` with the collected diagnostics, then file_diagnostics
  // (read from files after the last line, in that order), the review
  // violation, the CLI's typed end and the no-progress stop. Forgets the
  // attempt.
  failure_inputs finish(const std::string& identity, failure_inputs recorded,
                        const std::vector<terminal_diagnostic>& file_diagnostics);

  std::size_t open_attempts() const noexcept { return outputs_.size(); }

private:
  const compiled_failure_patterns* table_;
  std::map<std::string, no_progress_settings> progress_;
  std::map<std::string, attempt_output> outputs_;
  std::map<std::string, silence_clock> clocks_;
  std::map<std::string, std::string> phases_;
};

} // namespace ad::runtime

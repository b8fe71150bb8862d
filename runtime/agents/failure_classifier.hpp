#pragma once
// Classification of a finished attempt (SPEC section 6, docs/agents.md), in
// this order:
//   1. a codex review that started a collaboration tool → review-control-violation
//   2. the executable could not be started → launch-failure
//   3. the dispatcher stopped it: cancelled / session-stall, or the no-progress
//      rule's class (progress_watch)
//   4. killed by a signal (or exit 129..192, inferred) → process-terminated
//   5. exit 127 (the shell's "command not found") → launch-failure
//   6. a non-zero exit before the CLI printed any event, with a stderr line
//      refusing its command line → launch-refused (a configuration error)
//   7. the CLI's own typed end (cli_outcome): a failed final turn is a failure
//      even at exit 0, classed by its typed code (codex: the rollout's
//      codex_error_info, read into a `codex:rollout` diagnostic), else by the
//      pattern table on its message, else generic-error; a succeeded run is a
//      success when the exit is 0, whatever errors it retried past and
//      whatever it wrote on stderr
//   8. no typed end: the terminal diagnostics, newest first, each against the
//      pattern table in table order → the first matching class (even at exit
//      0), except that for codex, claude and pi a run that exited 0 is not
//      judged by its stderr (chatter is no verdict), only by its own events
//   9. non-zero exit → generic-error
//  10. otherwise success (an empty failure_class)
// The deciding line is the evidence (cut to 2000 bytes) with its origin. For
// provider-quota the reset time is the CLI's typed value (claude's
// `resetsAt`), else read from the evidence, then from the other diagnostics
// newest first; a clock time in the text is read in the agent's time zone
// (utc_offset_s). Pure: no I/O, no clock reads, never throws.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/cli_outcome.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/progress_watch.hpp"
#include "runtime/agents/terminal_diagnostics.hpp"
#include "runtime/core/clock.hpp"

#include "runtime/core/signals.hpp"

namespace ad::runtime {

inline constexpr size_t failure_evidence_limit = 2000;

// The class of an attempt whose CLI refused its command line or launch
// settings: the supervisor blocks the task at once (a configuration error).
inline constexpr std::string_view launch_refused_class = "launch-refused";
// The agent's program could not be started (not found, exit 127).
inline constexpr std::string_view launch_failure_class = "launch-failure";

enum class launch_outcome : uint8_t { started, failed_to_start };
enum class dispatcher_stop : uint8_t { none, cancelled, session_stall, no_progress };

struct agent_exit_status {
  enum class how : uint8_t { exited, signaled };
  how ended = how::exited;
  int code = 0;   // exit status when exited
  int signal = 0; // signal number when signaled
};

struct failure_inputs {
  launch_outcome launch = launch_outcome::started;
  std::string launch_error; // e.g. "command not found: codex" when failed_to_start
  agent_exit_status exit;
  dispatcher_stop stop = dispatcher_stop::none;
  no_progress_stop no_progress; // with stop == no_progress: its class and line
  std::optional<std::string> review_control_tool; // set when a review started one
  adapter_kind kind = adapter_kind::command;
  cli_outcome outcome; // the CLI's typed end (unknown for agy and command)
  std::vector<terminal_diagnostic> diagnostics_newest_first;
  millis observed_at = 0; // when the attempt ended; base for relative reset times
  int32_t utc_offset_s = 0; // the agent's time zone at observed_at, for clock times
};

struct failure_verdict {
  std::string failure_class;  // "" when the attempt succeeded
  std::string failure_source; // dispatcher-control, cli-launch, caller-cancel,
                              // dispatcher-stall, dispatcher-no-progress,
                              // process-termination, cli-refusal,
                              // cli-typed-end, cli-terminal-diagnostic,
                              // provider-terminal-diagnostic, cli-exit
  std::string evidence;
  std::string evidence_origin;
  bool evidence_truncated = false;
  std::optional<int> termination_signal;
  std::string termination_signal_name; // "SIGKILL"
  bool termination_signal_inferred = false;
  std::optional<millis> reset_at;
  bool provider_transport_failure_confirmed = false;

  bool failed() const { return !failure_class.empty(); }
};

failure_verdict classify_attempt(const failure_inputs& inputs,
                                 const compiled_failure_patterns& table);


} // namespace ad::runtime

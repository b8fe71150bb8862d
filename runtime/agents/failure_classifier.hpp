#pragma once
// Classification of a finished attempt (SPEC section 6), in this order:
//   1. a codex review that started a collaboration tool → review-control-violation
//   2. the executable could not be started → launch-failure
//   3. the dispatcher stopped it: cancelled / session-stall
//   4. killed by a signal (or exit 129..192, inferred) → process-terminated
//   5. exit 127 (the shell's "command not found") → launch-failure
//   6. the terminal diagnostics, newest first, each against the pattern table
//      in table order → the first matching class (even with exit 0)
//   7. non-zero exit → generic-error
//   8. otherwise success (an empty failure_class)
// The matching line is the evidence (cut to 2000 bytes) with its origin; for
// generic-error the newest diagnostic, if any, is kept as evidence. For
// provider-quota the reset time is read from the evidence, then from the other
// diagnostics newest first. Pure: no I/O, no clock reads, never throws.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/terminal_diagnostics.hpp"
#include "runtime/core/clock.hpp"

namespace ad::runtime {

inline constexpr size_t failure_evidence_limit = 2000;

enum class launch_outcome : uint8_t { started, failed_to_start };
enum class dispatcher_stop : uint8_t { none, cancelled, session_stall };

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
  std::optional<std::string> review_control_tool; // set when a review started one
  std::vector<terminal_diagnostic> diagnostics_newest_first;
  millis observed_at = 0; // when the attempt ended; base for relative reset times
};

struct failure_verdict {
  std::string failure_class;  // "" when the attempt succeeded
  std::string failure_source; // dispatcher-control, cli-launch, caller-cancel,
                              // dispatcher-stall, process-termination,
                              // cli-terminal-diagnostic,
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

// "SIGTERM" for 15; "SIG<n>" for numbers without a name.
std::string signal_name(int signal);

} // namespace ad::runtime

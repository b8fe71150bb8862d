#pragma once
// How an agent CLI's own run ended, read from its typed events rather than
// from its prose (docs/agents.md): codex's `turn.completed` / `turn.failed`
// and the rollout's `task_complete` error with its `codex_error_info`;
// claude's `result` (`is_error`, `api_error_status`, `api_error_type`,
// `api_error`, `terminal_reason`), the synthetic assistant message's `error`
// and a rejected `rate_limit_event`'s `resetsAt`; pi's last assistant
// `message_end` (`stopReason`, `errorMessage`) and `auto_retry_end`. An
// error the CLI retried past in the same run (codex "Reconnecting... 1/5",
// claude `system/api_retry`, pi `auto_retry_start` followed by success)
// leaves the run succeeded; a failed final turn is a failure even when the
// CLI exits 0 (pi does). Also here: what a typed error code means as a
// failure class, and whether stderr says the CLI refused its own command
// line (a configuration error, not a crash). agy and command agents have no
// typed end: their outcome stays unknown. Plain values and pure functions:
// no I/O, never throw, one tracker belongs to one attempt.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/agents/adapter.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"

namespace ad::runtime {

enum class cli_end : uint8_t { unknown, succeeded, failed };
std::string_view to_string(cli_end end);

// The failure a CLI reported for its final turn.
struct cli_failure {
  std::string origin;        // codex:turn.failed, claude:result, claude:assistant, pi:message_end, pi:auto_retry_end
  std::string code;          // the CLI's typed code ("" when it gave none): "rate_limit_error", "usage_limit_reached", "prompt_too_long", "http 404", ...
  std::string message;       // the CLI's own text of the failure
};

struct cli_outcome {
  cli_end end = cli_end::unknown;
  cli_failure failure;                // meaningful when end == failed
  std::optional<millis> reset_at;     // a reset time the CLI gave as a value
  int64_t recovered_errors = 0;       // errors the CLI retried past during the run
  bool printed_events = false;        // any JSON event on stdout
};

// Feeds stdout events of one attempt in order; agy and command stay unknown.
class cli_outcome_tracker {
public:
  explicit cli_outcome_tracker(adapter_kind kind) : kind_(kind) {}
  void on_event(const json& event);
  const cli_outcome& outcome() const noexcept { return outcome_; }

private:
  void codex(const json& event);
  void claude(const json& event);
  void pi(const json& event);

  adapter_kind kind_;
  cli_outcome outcome_;
  bool pi_retrying_ = false;
};

// What a typed code means. patterns_first: the failure patterns decide on
// the message when one matches, failure_class only when none does.
struct code_meaning {
  std::string failure_class; // "" = the code says nothing; patterns decide
  bool patterns_first = false;
};
code_meaning meaning_of_code(adapter_kind kind, std::string_view code);

// A codex rollout line's final error (`event_msg` / `task_complete` with an
// `error`): its codex_error_info flattened to a code ("model_not_found",
// "response_too_many_failed_attempts 429", "http_connection_failed 503") and
// its message. nullopt for any other line.
struct rollout_error {
  std::string code;
  std::string message;
};
std::optional<rollout_error> codex_rollout_error(const json& line);
// The last such error in a rollout file's text.
std::optional<rollout_error> last_codex_rollout_error(std::string_view rollout_text);

// Whether a stderr line says the CLI refused its command line or launch
// settings before doing any work ("Unknown options: --approve", claude's
// "--dangerously-skip-permissions cannot be used with root/sudo
// privileges", clap's "unexpected argument"), and what to do about it.
struct launch_refusal {
  std::string line;
  std::string fix;
};
std::optional<launch_refusal> detect_launch_refusal(adapter_kind kind, std::string_view stderr_line);
// The fix text for a refusal line already classified (evidence of a
// launch-refused failure), for the block reason.
std::string launch_refusal_fix(std::string_view cli, std::string_view line);

} // namespace ad::runtime

#pragma once
// One attempt's view of its agent's output: every line goes through feed(),
// which renders it for normalized-output.log, notes a discovered session id,
// keeps terminal diagnostics (the newest 50), follows the CLI's typed end
// (cli_outcome_tracker), reads what the agent spent (usage_reader: the
// adapter's own format, or the one the policy names for a command target),
// applies the adapter's no-progress rule
// (progress_watch) and, for a codex review, spots the start of a
// collaboration tool. The attempt writes the returned lines and acts on the
// returned flags (record the session id, terminate on a review-control
// violation or when no progress is made); at the end outcome() and
// diagnostics().newest_first() feed classify_attempt. One JSON parse per
// line serves every use; claude
// `user` events without a failed tool result are skipped unparsed (they
// render nothing and carry nothing else the attempt needs). Plain state owned by one attempt: no I/O, no threads,
// never throws.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/cli_outcome.hpp"
#include "runtime/agents/progress_watch.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/stream_render.hpp"
#include "runtime/agents/terminal_diagnostics.hpp"
#include "runtime/agents/usage_reader.hpp"

namespace ad::runtime {

// Whether to watch for collaboration tools (codex reviews only).
enum class review_guard : uint8_t { off, codex_review };

struct output_step {
  std::vector<std::string> rendered;              // lines for normalized-output.log
  std::optional<std::string> discovered_session_id;
  // Set once, on the line that started the first collaboration tool.
  std::optional<std::string> collaboration_tool;
  // Set once, on the line at which the agent had made no progress too long.
  std::optional<no_progress_stop> no_progress;
};

// One output line parsed once for every per-line use (rendering,
// diagnostics, the review guard). skipped: a claude `user` event without a
// failed tool result, left unparsed (it renders nothing and carries nothing
// else an attempt needs); event: the parsed JSON object of a stdout line of a
// JSON-speaking CLI, nullopt for anything else.
struct output_event {
  bool skipped = false;
  std::optional<json> event;
  const json* get() const { return event ? &*event : nullptr; }
};

output_event parse_output_event(adapter_kind kind, output_channel channel, std::string_view line);

class attempt_output {
public:
  // usage: the stream format to read usage from; nullopt is the adapter's
  // own (usage_format_of). A command agent's stdout lines are parsed for it
  // only when one is given.
  attempt_output(adapter_kind kind, review_guard guard, no_progress_settings progress = {},
                 const compiled_failure_patterns* table = nullptr,
                 std::optional<usage_format> usage = std::nullopt);

  // One line that arrived at `at` (ms; the no-progress rule measures time
  // with it).
  output_step feed(output_channel channel, std::string_view line, int64_t at = 0);
  // agy: adds the quota/transport lines of its CLI log (call after exit)
  // and returns them, in the order added.
  std::vector<terminal_diagnostic> add_agy_cli_log(std::string_view log_text,
                                                   const compiled_failure_patterns& table);
  // Adds one diagnostic read elsewhere (a replayed CLI log line).
  void add_diagnostic(terminal_diagnostic d) { diagnostics_.add(std::move(d)); }

  const diagnostic_log& diagnostics() const { return diagnostics_; }
  const cli_outcome& outcome() const { return outcome_.outcome(); }
  // What the agent spent so far, as its CLI reported it.
  token_usage usage() const { return usage_.so_far(); }
  const usage_reader& usage_stream() const { return usage_; }
  adapter_kind kind() const { return kind_; }
  const std::optional<no_progress_stop>& no_progress() const { return stopped_; }
  const std::optional<std::string>& review_violation() const { return violation_; }
  const std::string& session_id() const { return render_.session_id; }

private:
  adapter_kind kind_;
  review_guard guard_;
  render_state render_;
  diagnostic_log diagnostics_;
  std::optional<std::string> violation_;
  cli_outcome_tracker outcome_;
  usage_reader usage_;
  progress_watch progress_;
  const compiled_failure_patterns* table_;
  std::optional<no_progress_stop> stopped_;
};

} // namespace ad::runtime

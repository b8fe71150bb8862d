#pragma once
// One attempt's view of its agent's output: every line goes through feed(),
// which renders it for normalized-output.log, notes a discovered session id,
// keeps terminal diagnostics (the newest 50) and, for a codex review, spots
// the start of a collaboration tool. The attempt writes the returned lines
// and acts on the returned flags (record the session id, terminate on a
// review-control violation); at the end diagnostics().newest_first() feeds
// classify_attempt. One JSON parse per line serves all three uses; claude
// `user` events without a failed tool result are skipped unparsed (they
// render nothing and carry nothing else the attempt needs). Plain state owned by one attempt: no I/O, no threads,
// never throws.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/stream_render.hpp"
#include "runtime/agents/terminal_diagnostics.hpp"

namespace ad::runtime {

// Whether to watch for collaboration tools (codex reviews only).
enum class review_guard : uint8_t { off, codex_review };

struct output_step {
  std::vector<std::string> rendered;              // lines for normalized-output.log
  std::optional<std::string> discovered_session_id;
  // Set once, on the line that started the first collaboration tool.
  std::optional<std::string> collaboration_tool;
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
  attempt_output(adapter_kind kind, review_guard guard);

  output_step feed(output_channel channel, std::string_view line);
  // agy: adds the quota/transport lines of its CLI log (call after exit)
  // and returns them, in the order added.
  std::vector<terminal_diagnostic> add_agy_cli_log(std::string_view log_text,
                                                   const compiled_failure_patterns& table);
  // Adds one diagnostic read elsewhere (a replayed CLI log line).
  void add_diagnostic(terminal_diagnostic d) { diagnostics_.add(std::move(d)); }

  const diagnostic_log& diagnostics() const { return diagnostics_; }
  const std::optional<std::string>& review_violation() const { return violation_; }
  const std::string& session_id() const { return render_.session_id; }

private:
  adapter_kind kind_;
  review_guard guard_;
  render_state render_;
  diagnostic_log diagnostics_;
  std::optional<std::string> violation_;
};

} // namespace ad::runtime

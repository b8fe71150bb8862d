#pragma once
// Terminal diagnostics: the output lines of an attempt that may explain why
// it failed, picked per CLI (SPEC section 6) and kept with their origin:
//   stderr                 any stderr line
//   codex:turn.failed      codex `turn.failed` events
//   codex:error            codex `error` events
//   claude:rate_limit_event  a rejected rate_limit_event
//   claude:result          a `result` with is_error true or subtype error_*,
//                          kept as its typed fields only (type, subtype,
//                          is_error, api_error_status, error, result) so
//                          metrics such as duration_ms cannot match a pattern
//   claude:system          a `system` event with subtype error*
//   claude:api_retry       a `system/api_retry` event (the CLI retries a
//                          request), kept as its typed fields
//   claude:assistant       the CLI's synthetic assistant message about a
//                          failed request: "<error>: <text>"
//   agy:event              agy JSON events of type error/fatal/... or severity error
//   agy:stdout             agy plain lines starting with error/fatal/...
//   pi:message_end         a pi assistant message that stopped with an error
//   pi:auto_retry_end      pi gave up retrying ("retries exhausted: <error>")
//   codex:rollout          the rollout's final task_complete error as JSON
//                          {code, message} (read from the file at the end)
//   agy-cli.log            agy CLI log lines matching a failure class (quota
//                          lines only when they truly mean quota)
//   dispatcher:review-control  a codex review that started a collaboration tool
// Diagnostics explain a failure; whether there was one is decided by the
// CLI's typed end first (cli_outcome.hpp). diagnostic_log keeps the newest
// 50 for classification. Pure functions and
// a plain container: no I/O except read_file_tail, never throw, not shared
// between threads.

#include <cstddef>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/stream_render.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

struct terminal_diagnostic {
  std::string origin;
  std::string text;
};

// Diagnostic text beyond this many bytes is dropped when stored. This bounds
// classification: matching the whole pattern table costs a few microseconds
// per byte, so 50 diagnostics stay well under a second even when all are
// long.
inline constexpr size_t max_diagnostic_bytes = 4 * 1024;
inline constexpr size_t default_diagnostic_capacity = 50;

class diagnostic_log {
public:
  explicit diagnostic_log(size_t capacity = default_diagnostic_capacity)
      : capacity_(capacity == 0 ? 1 : capacity) {}
  // Stores d (text cut to max_diagnostic_bytes), dropping the oldest beyond
  // capacity.
  void add(terminal_diagnostic d);
  // Newest first.
  std::vector<terminal_diagnostic> newest_first() const;
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

private:
  size_t capacity_;
  std::deque<terminal_diagnostic> entries_;
};

// The diagnostic carried by one line of output, if any.
std::optional<terminal_diagnostic> detect_terminal_diagnostic(adapter_kind kind,
                                                              output_channel channel,
                                                              std::string_view line);
// The same for a caller that already parsed the line (event: the parsed JSON
// object, or nullptr when the line is not one).
std::optional<terminal_diagnostic> detect_terminal_diagnostic(adapter_kind kind,
                                                              output_channel channel,
                                                              std::string_view line,
                                                              const json* event);

// For a codex review: the collaboration tool a stdout line starts (an
// `item.started` event whose item is a `collab_tool_call`), if any. The
// attempt terminates the agent when this returns a name.
std::optional<std::string> codex_collaboration_tool(std::string_view line);
std::optional<std::string> codex_collaboration_tool_of_event(const json& event);

// The diagnostic recorded when a review starts a collaboration tool.
terminal_diagnostic review_control_diagnostic(std::string_view tool);

// Whether an agy CLI log line is a real quota signal (HTTP 429,
// RESOURCE_EXHAUSTED, too many requests, "rate limit/quota ... exceeded /
// exhausted / reached / rejected", "... retry after"), not a line that merely
// mentions quota.
bool is_agy_quota_line(std::string_view line);

// The agy CLI log lines, among the last 200 of log_text, that classify into
// one of table's classes; provider-quota lines must also pass
// is_agy_quota_line. Origin "agy-cli.log", oldest first.
std::vector<terminal_diagnostic> agy_log_diagnostics(std::string_view log_text,
                                                     const compiled_failure_patterns& table);

// The last max_bytes of a file (the whole file when smaller), starting at a
// line boundary when cut. not_found when missing, io_error otherwise.
result<std::string> read_file_tail(const std::filesystem::path& path, size_t max_bytes);

} // namespace ad::runtime

#pragma once
// What an attempt spent, read from its CLI's own typed reports as they
// arrive, never from free text (docs/agents.md, "Usage"). One usage_reader
// belongs to one attempt and is fed its stdout events in order; so_far()
// is the usage known at that moment and, once the CLI has ended, the
// attempt's. What each format reads, and how it never counts a report twice:
//   codex   `turn.completed` {usage: input_tokens, cached_input_tokens,
//           cache_write_input_tokens, output_tokens, reasoning_output_tokens}.
//           The figures are running totals since the thread started, so the
//           last one replaces the ones before. codex prints nothing of its
//           usage before the turn ends, nor after a failed turn: its rollout
//           (below) has the totals then.
//   claude  each `assistant` event's message.usage while it runs (one
//           message may be printed as several events carrying the same
//           usage: the latest per message id counts), then the `result`
//           event's `usage` and `total_cost_usd`, the run's totals: they
//           replace everything counted before them. The per-message figures
//           are those of the message's start (claude prints the event before
//           the model has finished writing), so output so far is low until
//           the result arrives.
//   pi      each assistant `message_end`'s message.usage {input, output,
//           cacheRead, cacheWrite, cost.total}: one per request, added up.
//           `turn_end`, `agent_end` and `message_update` repeat messages and
//           are not read. pi writes a cost of 0 for a model whose price it
//           has not been told (models.json): a zero cost counts as none
//           reported.
// The mapping onto token_usage: codex's input_tokens include its cached and
// cache-written tokens, so input_tokens = input - cached - cache writes;
// claude's and pi's inputs already exclude them. reasoning_tokens are
// codex's reasoning_output_tokens and claude's output_tokens_details.
// thinking_tokens, a part of the output. A count that is not a whole number
// in 0..max_usage_tokens, or a cost that is not a number in
// 0..max_usage_cost_usd, is left out as not reported.
//
// Session files, for an attempt whose stream does not have it all
// (settle_usage below): codex's rollout records `event_msg` / `token_count`
// with info.total_token_usage after each answered request (running totals
// again: the last one counts); pi's session file holds every assistant
// message with the same usage as its message_end (those at or after the
// attempt's start are added up, so a resumed session's earlier attempts do
// not count). claude's transcript is not read.
// Plain values and pure functions except read_session_usage; nothing
// throws; not shared between threads.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/agents/adapter.hpp"
#include "runtime/core/token_usage.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// The stream format a usage reader understands.
enum class usage_format : uint8_t { none, codex, claude, pi };
// "none", "codex", "claude", "pi".
std::string_view to_string(usage_format f);
// "codex", "claude" or "pi"; invalid_argument naming the three otherwise.
result<usage_format> parse_usage_format(std::string_view name);
// The format an adapter's own CLI prints: codex, claude, pi; none for agy
// (no typed usage) and command (unless the policy names one for the target).
usage_format usage_format_of(adapter_kind kind);

class usage_reader {
public:
  explicit usage_reader(usage_format format) : format_(format) {}

  // One stdout event (a parsed JSON object), in order. Other values are
  // ignored.
  void on_event(const json& event);
  // One stdout line: parsed when it is a JSON object, ignored otherwise.
  void on_line(std::string_view line);

  // The usage known now (empty before the CLI reported any).
  token_usage so_far() const;
  // Whether the CLI gave its closing figures for the run (codex
  // turn.completed, claude result). pi has none: every message_end is
  // final for its request.
  bool closed() const noexcept { return closed_; }
  usage_format format() const noexcept { return format_; }

private:
  void codex(const json& event);
  void claude(const json& event);
  void pi(const json& event);

  usage_format format_;
  bool closed_ = false;
  token_usage total_;                          // codex, pi; claude: the last result's
  std::map<std::string, token_usage> pending_; // claude: messages since the last result, by id
  uint64_t unnamed_ = 0;                       // claude: messages without an id
};

// The codex rollout's and pi session file's usage, fed line by line.
class session_usage_reader {
public:
  // since: pi counts the assistant messages stamped at or after it (ms since
  // the epoch; the attempt's start); codex ignores it.
  session_usage_reader(usage_format format, millis since) : format_(format), since_(since) {}
  void on_line(std::string_view line);
  // What the file says; nullopt when it holds no usage (a codex rollout
  // without token totals, a pi session without an assistant message since).
  const std::optional<token_usage>& found() const noexcept { return found_; }

private:
  usage_format format_;
  millis since_;
  std::optional<token_usage> found_;
};

// Longest session line read; a longer one is skipped.
inline constexpr size_t max_session_line_bytes = 64u << 20;

// Reads a whole session file line by line (never more than one line in
// memory). not_found when it is missing, io_error naming the path when a
// read fails; nullopt inside when the file holds no usage.
result<std::optional<token_usage>> read_session_usage(usage_format format,
                                                      const std::filesystem::path& path,
                                                      millis since);

// Whether the attempt's usage needs its CLI's session file at the end: a
// codex run without a turn.completed (a failed or killed turn: the rollout
// has the totals of the requests answered before), a pi run whose stream
// lost lines to the spool's retention (lost_stream_lines > 0). Never for
// claude or a format without a session file.
bool wants_session_usage(const usage_reader& stream, uint64_t lost_stream_lines);

// The attempt's usage at its end: the session file's when it is wanted and
// was read with usage in it, else the stream's.
token_usage settle_usage(const usage_reader& stream, uint64_t lost_stream_lines,
                         const std::optional<token_usage>& session);

} // namespace ad::runtime

#pragma once
// The phase of a pi session, read from its native session file (JSONL,
// version 3: a header line {type:"session", version:3, id, timestamp, cwd},
// then entries with id/parentId; `message` entries carry a message whose role
// is user, assistant or toolResult; assistant content blocks are text,
// thinking or toolCall {id, name, arguments}; a toolResult names its
// toolCallId). The file is read from the end in blocks, following the active
// branch (the last entry, then its parentId chain) only until the phase is
// decided, plus the header line; a 200 MB session costs a few blocks.
//   starting        no file yet, or no message on the active branch
//   awaiting-model  the branch ends in a user message, or every tool call of
//                   the last assistant message has its result
//   tool-running    some tool calls of the last assistant message have no
//                   result yet (expected/completed/pending ids are reported)
//   finishing       the last assistant message has no tool call
//   unknown         with a reason: session-header-invalid,
//                   unsupported-session-version:<n>, unreadable-jsonl,
//                   invalid-entry-schema, invalid-entry-identity,
//                   invalid-message-schema, unsupported-message-role:<r>,
//                   assistant-content-not-list, unsupported-assistant-content,
//                   tool-call-id-missing, duplicate-tool-call-id,
//                   tool-result-id-missing, duplicate-tool-result-id,
//                   tool-result-id-not-in-latest-batch,
//                   tool-results-without-assistant,
//                   tool-results-without-tool-calls,
//                   active-branch-parent-missing, entry-too-large
// A last line without its newline that does not parse is taken as an entry
// still being written and skipped. Never throws; I/O failures are reported
// as unknown/unreadable-jsonl; not thread-affine, holds no state between calls.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

inline constexpr int pi_session_schema_version = 3;

enum class pi_phase : uint8_t { starting, awaiting_model, tool_running, finishing, unknown };

// "starting", "awaiting-model", "tool-running", "finishing", "unknown".
std::string_view to_string(pi_phase phase);

struct pi_session_state {
  pi_phase phase = pi_phase::starting;
  std::string reason;
  std::vector<std::string> expected_tool_call_ids;
  std::vector<std::string> completed_tool_call_ids;
  std::vector<std::string> pending_tool_call_ids;

  friend bool operator==(const pi_session_state&, const pi_session_state&) = default;
};

struct pi_read_options {
  size_t block_size = 64 * 1024;
  size_t max_header_bytes = 1 << 20;
  size_t max_entry_bytes = 64u << 20; // a longer entry: unknown/entry-too-large
};

struct pi_read_stats {
  uint64_t bytes_read = 0;
  uint64_t entries_examined = 0;
};

// The phase of the session file at path. An empty path reports
// starting/native-session-path-missing, a missing file
// starting/native-session-file-missing.
pi_session_state read_pi_session_state(const std::filesystem::path& path,
                                       pi_read_stats* stats = nullptr,
                                       const pi_read_options& options = {});

} // namespace ad::runtime

#pragma once
// What the dashboard's task page reads beyond the views (docs/events.md,
// "Dashboard API"): an attempt's stream.log or normalized-output.log a page
// at a time (never more than max_log_page_bytes in memory, whatever the
// file's size), and the task's rows of its group's work log. Reads only;
// never throws.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

inline constexpr size_t default_log_page_bytes = 64u << 10;
inline constexpr size_t max_log_page_bytes = 256u << 10;

struct log_page {
  uint64_t size = 0;         // the file's size when read
  uint64_t offset = 0;       // where the text starts
  uint64_t next_offset = 0;  // where the next page starts
  std::string text;
  bool eof = false;          // next_offset is the end of the file
};

// At most `limit` bytes (capped at max_log_page_bytes) from `offset`, cut
// after the last complete line when more follows (a line longer than the
// page comes in pieces). An offset past the end is an empty page at the
// end. not_found or io_error naming the path.
result<log_page> read_log_page(const std::filesystem::path& file, uint64_t offset, size_t limit);

// {"size", "offset", "next_offset", "eof", "text"}.
json log_page_json(const log_page& page);

// "stream" -> "stream.log", "output" -> "normalized-output.log";
// invalid_argument naming both otherwise.
result<std::string> attempt_log_file(std::string_view which);

// An attempt identity as make_attempt_identity writes it: letters, digits,
// '_', '.', '-', and not "." or "..".
bool is_attempt_identity(std::string_view text);

// /api/v1/attempts/<identity>/log: a page of the attempt's `which` log
// (attempt_log_file) in its folder under `runs_dir` (found by identity,
// the newest when several): log_page_json with "identity" and "file".
// invalid_argument for a malformed identity or file, not_found for an
// attempt or a log that is not there (a completed task's attempt folders
// are removed, runtime/run/active_probe.hpp remove_attempt_logs).
result<json> attempt_log_page(const std::string& runs_dir, const std::string& identity,
                              std::string_view which, uint64_t offset, size_t limit);

// The rows of `task` in its group's work log (START, FINISH, CLAIM, KILL)
// and, before them, in the group's archived logs (agent-task/archive/
// <YYYY>/<MM>/<group>/work_log_<n>.log, docs/work-log.md), the newest
// `newest` of them, oldest first: {"seq", "time", "event", "role",
// "attempt", "model", "result", "locator"}. A log that is missing or cannot
// be read adds nothing.
json task_work_log_rows(const std::filesystem::path& workspace, const std::string& task,
                        size_t newest = 50);

} // namespace ad::runtime

#pragma once
// The group work log, agent-task/<group>/WORK_LOG.md: a markdown table
// `| seq | time | event | task | role | attempt | model | result | locator |`
// that the dispatcher appends START and FINISH rows to. This file owns the
// row format (cell escaping, rendering, parsing back into rows) and the
// locked append: an exclusive flock on the log file, the last seq read under
// the lock, the header written when the file is new, one write per row,
// fdatasync. Several processes may append at once; seq stays unique and
// increasing. A row cut short (a full disk, a crash mid-write) is a torn
// row, not foreign text: an append that fails cuts the log back to where
// it began, and an append that finds a torn last line moves it to the side
// file (<log>.torn) and reports that. Safe from any thread (no shared
// state). Error contract: an append that cannot open, lock, read or write
// the log returns io_error naming the path; the caller records its own
// failure class (`work-log-write-failed`). Parsing never fails: lines that
// are not rows are reported as torn or foreign lines.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

inline constexpr const char* work_log_file_name = "WORK_LOG.md";

struct work_log_row {
  uint64_t seq = 0;
  std::string time; // ISO-8601 UTC
  std::string event; // START | FINISH | CLAIM | KILL
  std::string task;
  std::string role;
  int attempt = 0;
  std::string model;
  std::string result;
  std::string locator;

  friend bool operator==(const work_log_row&, const work_log_row&) = default;
};

// Replaces '\' by "\\", '|' by "\|" and CR/LF by a space.
std::string escape_work_log_cell(std::string_view text);

// "| 3 | 2026-... | START | g/01_x | worker | 1 | m | running | /path |\n"
std::string format_work_log_row(const work_log_row& row);

// The title, note, table header and separator written to a new log.
std::string work_log_header();

// Splits "| a | b\|c |" into unescaped, trimmed cells; false when the line is
// not a table row.
bool split_work_log_cells(std::string_view line, std::vector<std::string>& cells);

struct work_log_foreign_line {
  std::size_t line_number = 0; // 1-based
  std::string text;
};

struct work_log_document {
  std::vector<work_log_row> rows;
  std::vector<work_log_foreign_line> foreign; // not a row, header, blank or known note
  // Rows cut short by a write that did not finish: the last line, when it
  // lacks its newline and starts a table line it does not complete, and any
  // line that starts a row ("| <seq>") without completing it.
  std::vector<work_log_foreign_line> torn;
};

work_log_document parse_work_log(std::string_view text);

// The path of a group's log: <workspace>/agent-task/<group>/WORK_LOG.md.
std::filesystem::path work_log_path(const std::filesystem::path& workspace,
                                    std::string_view group);

// Whether a row could be appended to the work log at `path` now: the file
// (or, before its first row, its folder) is writable and its file system
// has at least 1 MiB free. Writes nothing. io_error naming the path and
// the cause otherwise.
status probe_work_log_writable(const std::filesystem::path& path);

// A row to append; seq and time are set by append_work_log.
struct work_log_event {
  std::string event;
  std::string task;
  std::string role;
  int attempt = 0;
  std::string model;
  std::string result;
  std::string locator;
};

// The event as a JSON object (the message trace's worklog.row decision):
// {"event", "task", "role", "attempt", "model", "result", "locator"}.
json work_log_event_to_json(const work_log_event& e);

// Whether rows of this event are told apart by their result too: CLAIM
// (one per path written outside the claim) and KILL (one per process the
// agent left, which its keeper ended); START and FINISH are one per attempt.
bool row_has_own_result(std::string_view event);

// The row of the log at `log_path` recording the same event of the same
// attempt (event, task, role, attempt and locator equal, and the result for
// row_has_own_result events), if any. A missing or unreadable log has none.
std::optional<work_log_row> find_work_log_row(const std::filesystem::path& log_path,
                                              const work_log_event& event);

// The side file that keeps torn rows moved out of a log: <log>.torn.
std::filesystem::path work_log_torn_path(const std::filesystem::path& log_path);

// A torn row moved out of a log into its side file.
struct work_log_heal {
  std::filesystem::path log;
  std::size_t line_number = 0; // 1-based, in the log as it was
  std::string text;            // what was there
  std::filesystem::path side_file;
  // "work log <log> line <n> was cut short by a write that did not finish
  // (a full disk or a crash): moved to <side file>"
  std::string message() const;
};

// Appends "<ISO time> <log> line <n>: <text>" to the side file and syncs
// it (the lines are kept for a person; nothing reads them back).
status keep_torn_lines(const std::filesystem::path& side_file, const std::filesystem::path& log,
                       const std::vector<work_log_foreign_line>& lines, const clock& clk);

struct work_log_appended {
  work_log_row row;                   // as written, with its seq
  std::optional<work_log_heal> healed; // a torn last line moved aside first
};

// Appends one row under an exclusive lock; returns the row written (with
// its seq). Creates the folder and the header when the log is new. A torn
// last line is moved to the side file first (when the side file cannot be
// written, the line stays and the row follows it). A write that fails
// truncates the log back to its size before the append, so a full disk
// leaves no part of the row behind.
result<work_log_appended> append_work_log(const std::filesystem::path& log_path,
                                        const work_log_event& event, const clock& clk);

} // namespace ad::runtime

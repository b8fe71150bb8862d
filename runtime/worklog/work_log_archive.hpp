#pragma once
// Archiving a finished group's work log (SPEC section 9): when every
// observed task of a group is complete and none runs, the live WORK_LOG.md
// (merged with any other copies of the same timeline, e.g. a WORK_LOG.md
// that moved into the archive with a task folder) becomes
// agent-task/archive/<YYYY>/<MM>/<group>/work_log_<n>.log. Open START rows
// (no FINISH for the same task, role and attempt) are first closed with
// `reconciled:verified-complete-archive`. The decisions are pure functions;
// archive_work_log is the one effectful step. Safe from any thread. Error
// contract: a merge conflict (the same event of the same task, role, attempt
// and locator recorded with different content) or a foreign line in a
// source refuses the archive with status::conflict naming the source and
// line; a torn row (a write that did not finish) is no conflict: it is kept
// beside the archive (work_log_<n>.log.torn) with a note in the archive
// naming its source and line; file-system failures are io_error; nothing is
// removed unless the archive file was written durably first.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::runtime {

inline constexpr const char* reconciled_archive_result = "reconciled:verified-complete-archive";

// --- pure -------------------------------------------------------------------

enum class group_task_completion : uint8_t { incomplete, complete };
enum class group_task_activity : uint8_t { idle, running };

struct group_task_view {
  std::string task;
  group_task_completion completion = group_task_completion::incomplete;
  group_task_activity activity = group_task_activity::idle;
};

enum class archive_readiness_kind : uint8_t { ready, not_ready };

struct archive_readiness {
  archive_readiness_kind kind = archive_readiness_kind::not_ready;
  std::string reason; // names the first task that holds the archive back
};

// Ready when the group has observed tasks, all complete, none running.
archive_readiness judge_work_log_archive(const std::vector<group_task_view>& tasks);

// START rows without a later FINISH for the same task, role and attempt, in
// seq order.
std::vector<work_log_row> open_work_log_attempts(const std::vector<work_log_row>& rows);

// rows plus one FINISH row per open START (result reconciled_archive_result,
// same task/role/attempt/model/locator), with seq continuing after the
// largest seq and the given time.
std::vector<work_log_row> close_open_work_log_attempts(std::vector<work_log_row> rows,
                                                       std::string_view time);

struct work_log_source {
  std::string name; // path or label, used in reasons
  work_log_document document;
};

// Merges several copies of a timeline: a row that appears in several sources
// is kept once; rows are ordered by time (then source order, then seq) and
// renumbered from 1. conflict when a source has foreign lines or the same
// event identity carries different content.
result<std::vector<work_log_row>> merge_work_log_sources(
  const std::vector<work_log_source>& sources);

// Header, notes ("> <note>" lines after the header's own), then rows.
std::string render_work_log(const std::vector<work_log_row>& rows,
                            const std::vector<std::string>& notes = {});

// 1 + the largest n of the "work_log_<n>.log" names given; 0 when none.
uint64_t next_work_log_archive_number(const std::vector<std::string>& file_names);

// <workspace>/agent-task/archive/<YYYY>/<MM>/<group> for the UTC month of t.
std::filesystem::path work_log_archive_dir(const std::filesystem::path& workspace,
                                           std::string_view group, millis t);

// --- effectful --------------------------------------------------------------

struct work_log_archive_request {
  std::filesystem::path workspace;
  std::string group;
  // Other copies of the timeline to merge (and remove), e.g. WORK_LOG.md
  // files inside archived task folders.
  std::vector<std::filesystem::path> extra_sources;
  // Target folder; empty = work_log_archive_dir(workspace, group, now).
  std::filesystem::path archive_dir;
};

// Locks the live log, merges every existing source, closes open attempts,
// writes work_log_<n>.log durably (n after every work_log_*.log of the group
// anywhere in the archive), then removes the sources. Returns the archive
// path; not_found when there is no source at all.
result<std::filesystem::path> archive_work_log(const work_log_archive_request& request,
                                               const clock& clk);

} // namespace ad::runtime

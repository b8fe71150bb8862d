#pragma once
// Task discovery under <workspace>/agent-task/ (SPEC section 2). Every folder
// directly under agent-task/ except `archive` is a group; the group folder and
// each folder directly inside it are candidate tasks. A folder is a task when it
// holds a PLAN, a CODE_REVIEW, USER_REVIEW.md, complete.log or a review log
// with a verdict. For each task the scan records its active files, lane and
// grade, recovery state, logs, write set, identity header and task errors.
//
// The scan only reads: it never writes, never follows more than one level
// below a group (so a symlink loop cannot recurse), caps every file read, and
// never throws. A folder it cannot read, or a symlink loop, becomes a warning
// naming the folder. scan_workspace returns not_found when agent-task/ is
// missing and invalid_argument for a bad group name or workspace.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/workspace/path_resolve.hpp"
#include "runtime/workspace/plan_header.hpp"
#include "runtime/workspace/review_verdict.hpp"
#include "runtime/workspace/task_name.hpp"
#include "runtime/workspace/user_review.hpp"
#include "runtime/workspace/write_set.hpp"

namespace ad::runtime {

// Why a task is blocked by its folder alone.
enum class task_error_kind : uint8_t {
  several_plans,
  several_reviews,
  several_user_reviews,
  user_review_beside_active,  // USER_REVIEW.md next to an active PLAN/CODE_REVIEW
  incomplete_pair,            // PLAN without CODE_REVIEW or the reverse, not in recovery
  bad_subtask_name,
  invalid_write_set,          // one per write-set diagnostic
  no_recovery_plan_log,       // a review log but no plan log with the same identity
  missing_plan_header,
  plan_header_names_other_task,
  incomplete_user_review,
  dependency_cycle,           // the task's predecessors lead back to it
};

std::string_view to_string(task_error_kind kind);

struct task_error {
  task_error_kind kind = task_error_kind::bad_subtask_name;
  std::string message;
};

struct task_log_file {
  std::filesystem::path path;
  log_file_name name;
  std::optional<review_verdict> verdict; // review logs only
};

struct scanned_task {
  std::string name;                    // relative to agent-task/: "auth/02+01_api"
  std::string group;                   // first component of name
  std::filesystem::path directory;
  int index = 0;                       // subtask index; 0 for a group-level task
  std::vector<std::string> deps;       // predecessor indexes ("01")

  std::optional<std::filesystem::path> plan;         // the one active PLAN
  std::optional<std::filesystem::path> review;       // the one active CODE_REVIEW
  std::optional<std::filesystem::path> user_review;  // the one USER_REVIEW.md
  std::size_t plan_count = 0, review_count = 0, user_review_count = 0;
  std::optional<task_lane> lane;       // from the active PLAN's name
  int grade = 0;
  std::optional<plan_header> header;   // the active PLAN's identity header
  std::optional<review_verdict> review_verdict_now; // verdict in the active CODE_REVIEW

  bool has_complete_log = false;
  bool recovery = false;               // complete.log or a review log with a verdict
  std::vector<task_log_file> plan_logs;
  std::vector<task_log_file> review_logs;           // every review log, verdict or not
  std::optional<std::filesystem::path> recovery_log;      // newest review log with a verdict
  std::optional<std::filesystem::path> recovery_plan_log; // plan log with its identity

  user_review_reading user_review_state;
  write_set_report write_set;          // from the PLAN, or the recovery plan log
  bool write_set_known = false;        // a valid, non-empty write set
  std::string identity_key;            // changes when the work unit changes

  std::vector<task_error> errors;

  // "local-G05", or "recovery" when no active PLAN names a route.
  std::string route() const;
  // The work unit id from the header, or empty.
  std::string work_unit_id() const;
};

struct workspace_scan {
  std::filesystem::path workspace;  // resolved
  std::filesystem::path task_root;  // workspace/agent-task
  std::vector<std::string> groups;  // groups looked at, sorted
  std::vector<scanned_task> tasks;  // sorted by (index, name)
  std::vector<std::string> warnings;
};

// Scans every group, or only `group` (one plain folder name).
result<workspace_scan> scan_workspace(const std::filesystem::path& workspace,
                                      std::optional<std::string> group = std::nullopt);

// Reads one known folder (a group or a subtask folder) as a task; std::nullopt
// when it holds nothing that makes it a task. Warnings are appended to
// `warnings`. `workspace` is the resolved workspace root (resolve_path), as
// scan_workspace and the workspace scanner hold it. `walks`: the memo of
// write-set path walks shared by the folders read at one moment (the plan's
// own when null).
std::optional<scanned_task> read_task_folder(const std::filesystem::path& workspace,
                                             const std::filesystem::path& directory,
                                             std::vector<std::string>& warnings,
                                             path_walk_memo* walks = nullptr);

// read_task_folder for each of `directories`, the folders read on several
// threads once there are enough of them to pay for starting threads (each is
// a few small files and stats, mostly a wait on the kernel), with one memo
// of the write sets' path walks (a workspace's plans name files in the same
// folders). Answers in the order of `directories`: the task (null where the
// folder makes none) and that folder's warnings.
struct folder_reading {
  std::unique_ptr<scanned_task> task;
  std::vector<std::string> warnings;
};
std::vector<folder_reading> read_task_folders(const std::filesystem::path& workspace,
                                              const std::vector<std::filesystem::path>& directories);

// The nearest ancestor of `path` (or path itself when it is a folder) that
// holds agent-task/; not_found when there is none.
result<std::filesystem::path> find_workspace_root(const std::filesystem::path& path);

// The workspace a command works on: `given` when set (--workspace), else the
// nearest workspace root above `cwd`, else cwd itself (the command then
// reports what it finds there).
std::filesystem::path chosen_workspace(const std::string& given, const std::filesystem::path& cwd);

} // namespace ad::runtime

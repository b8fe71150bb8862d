#pragma once
// Names in the workspace contract (SPEC section 2): subtask folder names
// (`NN[+DD[,DD...]]_slug`: index and predecessor indexes), the active file names
// `PLAN-<lane>-G<grade>.md` / `CODE_REVIEW-<lane>-G<grade>.md`, the plan and
// review log names `plan_<lane>_G<grade>_<n>.log` /
// `code_review_<lane>_G<grade>_<n>.log`, and task names (a folder's path
// relative to agent-task/). Pure functions over strings; no file access, no
// state. A name that does not follow the contract yields std::nullopt.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

enum class task_lane : uint8_t { local, cloud };

std::string_view to_string(task_lane lane);

// "local-G05": the route shown for a PLAN's lane and grade.
std::string route_label(task_lane lane, int grade);

// A parsed subtask folder name: "03+01,02_api" has index 3 and deps {"01","02"}.
struct subtask_name {
  int index = 0;
  std::vector<std::string> deps; // two-digit predecessor indexes, as written
};

// ^\d{2}(\+\d{2}(,\d{2})*)?_[a-z0-9_]+$ with ASCII digits.
std::optional<subtask_name> parse_subtask_name(std::string_view folder);

// A PLAN or CODE_REVIEW file name: lane and grade 1..10.
struct route_file_name {
  task_lane lane = task_lane::local;
  int grade = 0;
};
std::optional<route_file_name> parse_plan_file_name(std::string_view file);
std::optional<route_file_name> parse_review_file_name(std::string_view file);

// A plan or review log file name: lane, grade, generation number n.
struct log_file_name {
  task_lane lane = task_lane::local;
  int grade = 0;
  long long generation = 0;
};
std::optional<log_file_name> parse_plan_log_name(std::string_view file);
std::optional<log_file_name> parse_review_log_name(std::string_view file);

// The task name of `directory` under `task_root` (agent-task/), with '/'
// separators: "auth/02+01_api". Empty when directory is not under task_root.
std::string task_name_of(const std::filesystem::path& task_root,
                         const std::filesystem::path& directory);

// The group of a task: the first folder of its name ("auth" for
// "auth/02+01_api"); a top-level task is a group of its own. The one
// derivation of it: its work log, its orchestration record (the state's
// "scope") and --task-group all name a task's group this way.
std::string task_group(std::string_view task_name);

// A --task-group value is one plain folder name, never "archive", ".", "..".
bool is_valid_group_name(std::string_view group);

} // namespace ad::runtime

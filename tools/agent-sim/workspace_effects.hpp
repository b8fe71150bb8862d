#pragma once
// The simulator's own reading and writing of the task-folder contract (SPEC
// section 2), kept deliberately small and independent of the product's parser:
// locating the task from a prompt, the PLAN identity header, the Modified Files
// Summary paths, the Implementation Checklist, and the reviewer's file moves
// (PASS: review log + complete.log + archive; FAIL/WARN: next plan
// generation). Every write is confined to the workspace: a path that escapes
// it (after `..` and symlinks) is refused and reported, never written.
// Errors are status values naming the file; nothing here throws or prints.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"
#include "tools/agent-sim/scenario.hpp"

namespace ad::agent_sim {

namespace fs = std::filesystem;

// A task folder as the simulator sees it.
struct task_files {
  fs::path workspace;      // canonical workspace root
  fs::path directory;      // the task folder
  std::string name;        // relative to agent-task/, e.g. "auth/02+01_api"
  fs::path plan;           // active PLAN-<lane>-G<NN>.md (may be empty)
  fs::path review;         // active CODE_REVIEW-<lane>-G<NN>.md (may be empty)
  std::string lane;        // local | cloud
  std::string grade;       // "01".."10"
  // A recovery folder (no active CODE_REVIEW): the newest review log
  // code_review_<lane>_G<NN>_<n>.log and the plan log of the same
  // generation (else the newest plan log). Both empty otherwise.
  fs::path review_log;
  fs::path plan_log;
};

// Effects of one action, for the registry and the event stream.
struct effect_report {
  std::vector<std::string> written;   // canonical absolute paths written or moved to
  std::vector<std::string> refused;   // paths refused because they escape the workspace
  std::vector<std::string> notes;     // human lines ("archived to ...")
};

struct plan_identity {
  std::string task;
  int plan = 0;
  std::string tag;
};

// Finds the task a prompt is about: an absolute or workspace-relative path to
// a PLAN/CODE_REVIEW file, a task folder under agent-task/, or an attempt
// locator (a locator.json or its folder) whose "task" field names it.
// The words of a prompt: a double-quoted span (\" and \\ escaped) is one
// word, as the dispatcher quotes a path that holds spaces.
std::vector<std::string> prompt_words(std::string_view prompt);
runtime::result<task_files> task_from_prompt(const fs::path& workspace, std::string_view prompt);
// The task folder agent-task/<name> of a workspace (for `--task`).
runtime::result<task_files> task_from_name(const fs::path& workspace, std::string_view name);
// "review", "selfcheck" or "worker", from the wording of a prompt.
std::string role_from_prompt(std::string_view prompt);

runtime::result<plan_identity> read_plan_identity(std::string_view plan_text);
// Backticked paths of the first cell of each Modified Files Summary row, with
// a `:line[:col]` suffix dropped. invalid_argument when the section is missing.
runtime::result<std::vector<std::string>> modified_files(std::string_view plan_text);
// Marks `- [ ]` boxes of the Implementation Checklist section.
std::string fill_checklist(std::string_view review_text, checklist_fill how);
// True when the checklist has boxes and none is empty.
bool checklist_complete(std::string_view review_text);

// Resolves `relative` against the workspace; not_found-free: returns
// invalid_argument when the result escapes the workspace (or is the root).
runtime::result<fs::path> confine(const fs::path& workspace, std::string_view relative);

// The worker: touch/append every Modified Files Summary path, fill the checklist.
runtime::status do_work(const task_files& task, const action& a, std::string_view stamp,
                        effect_report& report);
// The self-check: fill every missing checklist box.
runtime::status do_selfcheck(const task_files& task, effect_report& report);
// The reviewer: write the verdict and move files as a real reviewer does.
// In a recovery folder it reviews the generation of its newest logs again:
// a new review log with the verdict, then PASS archives the folder and
// FAIL/WARN restores the next generation (PLAN with the next plan number
// from the plan log, a fresh CODE_REVIEW), as a reviewer continuing an
// interrupted review does. With follow_up stop, a FAIL/WARN writes no next
// generation: the PLAN and CODE_REVIEW are only retired to their logs.
runtime::status do_review(const task_files& task, std::string_view verdict,
                          review_follow_up follow_up, runtime::millis now,
                          effect_report& report);
// A scenario `write` action: write content to a workspace-relative path.
runtime::status do_write(const fs::path& workspace, std::string_view relative,
                         std::string_view content, effect_report& report);

} // namespace ad::agent_sim

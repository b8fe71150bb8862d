#pragma once
// Restart safety (SPEC section 8) for `run`: finds the attempt record of a
// task whose durable state names an active stage and judges, with the
// runtime/process liveness rule, whether its agent still runs. The locator
// is the one recorded in state, else the newest run folder named
// `*__<identity>` in the runs folder for the task's latest attempt of that
// stage (the attempt is recorded before its folder exists). Also removes a
// completed task's attempt folders. Reads /proc and the runs folder; never
// writes except remove_attempt_logs; never throws.
//
// Running elsewhere (docs/restart.md): a live verdict makes the scheduler follow the
// agent as running elsewhere (claim adopted, counted against --max-parallel,
// never started again) and probe it again on a timer; when it is gone the
// stage is settled here like any stale stage, and the next pass derives the
// task from its folder (an archived task completes by reconciliation). An
// agent writes to pipes into the dispatcher, so after a crash an agent that
// writes dies of SIGPIPE; only quiet agents survive.
//
// Note: this header uses runtime/process/liveness.hpp, whose
// `workspace_identity` differs from runtime/state/root.hpp's; a file must not
// include both.

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/agents/attempt_locator.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/checklist.hpp"

namespace ad::runtime {

struct run_location {
  std::filesystem::path workspace; // canonical
  std::string workspace_id;
  std::filesystem::path runs_dir;  // <state root>/runs
};

// live: an agent runs that this dispatcher cannot follow (followed as a
// running elsewhere); kept: the attempt runs (or ran) under its keeper, whose files
// hold its output and, once it ended, its exit: it is adopted; stale: no
// agent runs and none will report.
enum class active_probe_kind : uint8_t { live, stale, kept };
std::string_view to_string(active_probe_kind kind); // "live", "stale", "kept"

// What adopting a kept attempt needs, from its locator and keeper record.
struct kept_attempt {
  std::string identity;
  int64_t plan_number = 0;
  int64_t attempt = 0;
  std::string role;
  std::string cli;
  std::string model;
  std::string plan_path;
  std::string review_path;
  int64_t keeper_pid = 0;
  std::string keeper_start_token;
  bool ended = false; // the keeper wrote its exit record
  // Distributed mode: the worker node that runs it; it is adopted through
  // that node, which alone can see its keeper.
  std::string node;
  bool operator==(const kept_attempt&) const = default;
};

struct active_probe {
  active_probe_kind kind = active_probe_kind::stale;
  std::string reason;            // one human line ("pid 4242 alive", "agent gone")
  std::string locator;           // the locator judged; empty when none was found
  std::string locator_status;    // running, succeeded, failed, or empty
  bool owned = false;            // the locator belongs to this workspace's runs folder
  kept_attempt kept;             // kind kept only
};

// Finds the locator of `task`'s attempt `attempt` of `role` at plan `plan`:
// the newest <runs_dir>/*__<identity>/locator.json; empty when none exists.
std::filesystem::path find_attempt_locator(const std::filesystem::path& runs_dir,
                                           const std::string& task, int64_t plan,
                                           const std::string& role, int64_t attempt);

// Judges the active stage of `task` (st.active_stage must be non-empty).
active_probe probe_active_stage(const std::string& task, const task_state& st,
                                const state_model& state, const run_location& where,
                                const clock& clk);

// Every task of `state` with an active stage, except those in `skip` (the
// attempts this dispatcher follows), probed: live ones are returned with
// their one-line detail (followed, never started again), stale ones get a
// clear_active_stage change (the task resumes). With a policy, a stale
// worker or self-check stage whose locator says `succeeded` (a dispatcher
// saw the agent end but died before recording the stage step) is finished
// instead: the changes of after_worker_success (runtime identity from the
// locator) or after_selfcheck_success (the checklist as it is now), so the
// stage is not run again. A review is only cleared: its outcome is read
// from the folders (an archived task completes by orchestration
// reconciliation, a follow-up is a new work unit). A `failed` or `running`
// locator (no dispatcher saw the end) is cleared and the stage resumes.
// An attempt under a keeper is adopted: its stage stays active and a task
// actor follows the keeper to the attempt's end (docs/restart.md).
struct attempt_adoption {
  std::string task;
  std::string stage;
  std::string locator;
  kept_attempt attempt;
  bool operator==(const attempt_adoption&) const = default;
};
struct active_review {
  std::map<std::string, std::string> live; // task -> detail
  std::vector<state_change> changes;
  std::vector<std::string> cleared;        // "<task>: <reason>"
  std::vector<std::string> finished;       // "<task>: <stage> finished from its locator"
  std::vector<attempt_adoption> adopt;     // attempts held by their keepers
};
active_review review_active_stages(const state_model& state, const run_location& where,
                                   const clock& clk, const std::set<std::string>& skip,
                                   const policy* pol = nullptr);

// review_active_stages in two halves, so the decision can be replayed from
// what was read (the message trace's scheduler.liveness edge): the reading
// of one active stage (the task's state, the probe's answer, and for a
// succeeded locator of this workspace the locator's role, CLI and model and
// the checklist of its review file) ...
struct active_stage_reading {
  std::string task;
  task_state state;
  active_probe probe;
  bool locator_read = false; // the succeeded locator was read back
  std::string locator_role;
  std::string locator_cli;
  std::string locator_model;
  bool checklist_read = false; // a self-check's review file was read
  checklist_reading checklist;
};
std::vector<active_stage_reading> read_active_stages(const state_model& state,
                                                     const run_location& where, const clock& clk,
                                                     const std::set<std::string>& skip);
// ... and the decision on those readings alone (pure).
active_review decide_active_stages(const std::vector<active_stage_reading>& readings,
                                   const policy* pol);

// Reads and decodes a locator.json; io_error/not_found/invalid_argument.
result<attempt_locator> read_locator_file(const std::filesystem::path& path);

// Removes every attempt folder of `task` in runs_dir; returns how many.
int remove_attempt_logs(const std::filesystem::path& runs_dir, const std::string& task);

} // namespace ad::runtime

#pragma once
// One scheduling pass of `agent-dispatch run` as a pure function: from the
// workspace scan, the durable state, the policy and what is known to be
// alive (tasks this dispatcher follows, tasks running elsewhere), it builds the
// task views, runs the admission of runtime/schedule, and lists the state
// changes to make durable BEFORE any admitted task starts (new work units,
// orchestration sightings, the claims taken or adopted). It also builds the
// final run observation for the exit code. No I/O beyond make_task_view's
// listing of completed folders and the archive lookups of new sightings;
// never throws.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/policy/policy.hpp"
#include "runtime/schedule/admission.hpp"
#include "runtime/run/exit_code.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

struct live_info {
  live_where where = live_where::here;
  std::string detail; // "pid 4242 alive" for a task running elsewhere
};

struct pass_input {
  const workspace_scan* scan = nullptr;
  const state_model* state = nullptr;
  const policy* pol = nullptr;
  std::map<std::string, live_info> live; // by task name
  int max_parallel = 0;
};

struct pass_plan {
  std::vector<task_view> views;         // one per scanned task, scan order
  admission_plan admission;
  std::vector<state_change> changes;    // durable before starting `admission.admitted`
};

pass_plan plan_pass(const pass_input& in);

// The closing of a finished group (SPEC section 9): when every task its
// orchestration record observed is complete and nothing of the group is
// scanned or runs, its work log moves to the archive (the caller's I/O)
// and the record is marked complete; a failed move (other than a group
// without a work log) is an error and the record stays open.
struct work_log_archive_outcome {
  bool attempted = false;
  bool ok = false;
  bool not_found = false; // the group has no work log
  std::string error;
};
struct group_reading {
  std::string scope;
  orchestration_status status = orchestration_status::running;
  std::size_t complete = 0; // tasks of the record by status
  std::size_t active = 0;
  bool busy = false;        // a task of it is scanned or runs
  work_log_archive_outcome archived;
};
struct group_close {
  bool close = false;
  std::vector<state_change> changes;
  std::string error; // "work-log[<group>]=<why>"
};
group_reading read_group(const std::string& scope, const orchestration_record& record, bool busy);
// Whether to archive the group's work log now (archived is not read).
bool group_closes(const group_reading& g);
group_close decide_group_close(const group_reading& g);

// `run --retry-blocked` at start-up: clear_for_retry for every task of
// `tasks` (durable state, by name) at `now`, in name order.
std::vector<state_change> retry_blocked_changes(const std::map<std::string, task_state>& tasks,
                                                millis now);

// At every run's start: clear_for_retry for each task blocked because its
// work log could not be written (blocked_by_work_log) whose work log
// `writable` says can be written now (the disk was freed, the workspace
// made writable again), in name order.
std::vector<state_change> work_log_unblock_changes(
  const std::map<std::string, task_state>& tasks,
  const std::function<bool(const std::string& task)>& writable, millis now);

// The observation for compute_run_exit once nothing runs here any more.
// `completed` counts tasks this run completed.
run_observation observe_run_end(const pass_plan& last, bool task_group_requested,
                                int completed, const std::vector<std::string>& errors);

} // namespace ad::runtime

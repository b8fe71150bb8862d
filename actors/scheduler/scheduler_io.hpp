#pragma once
// What the scheduler actor takes from outside its messages: the workspace
// scan, the archive lookups of first sightings and vanished tasks, the move
// of a finished group's work log, the removal of a completed task's attempt
// logs, the probes of active stages (/proc, locators, review files), and
// the actors it starts: task actors and the admission quota prober. In a
// run these are the files, /proc and real actors (file_scheduler_io); tests
// give the scheduler their own (tests/actors/scheduler). Every call runs
// inside one of the scheduler's steps, on its thread; none may block long.
// Owned by one scheduler; not thread-safe.

#include <map>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "actors/scheduler/run_context.hpp"
#include "actors/scheduler/task_actor.hpp"
#include "messages/quota.hpp"
#include "messages/scheduler.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/workspace/task_scan_view.hpp"
#include "runtime/workspace/workspace_scanner.hpp"

namespace ad::actors {

// How a finished group's work log move ended.
struct work_log_move {
  bool ok = false;
  bool not_found = false; // there was no work log to move
  std::string error;      // when not ok
};

class scheduler_io {
public:
  virtual ~scheduler_io() = default;

  // Reads what changed in the workspace since the last refresh (`also`:
  // folders known to have changed); the first refresh reads everything.
  // On an error the tasks of the last refresh stay.
  virtual runtime::result<runtime::scan_refresh> refresh_scan(
    const std::vector<std::filesystem::path>& also) = 0;
  // The tasks as of the last refresh (none before the first).
  virtual const runtime::task_scan_view& scan() const = 0;
  // Archive folders of `task` that hold complete.log, sorted.
  virtual std::vector<std::filesystem::path> archived_task_folders(
    const std::string& task) const = 0;
  virtual work_log_move archive_work_log(const std::string& group) = 0;
  virtual void remove_attempt_logs(const std::string& task) = 0;
  // For each task, whether its group's work log could be written now
  // (runtime::probe_work_log_writable).
  virtual std::map<std::string, bool> probe_work_logs(const std::vector<std::string>& tasks) = 0;
  // One reading per task of `state` with an active stage.
  virtual std::vector<runtime::active_stage_reading> read_active_stages(
    const runtime::state_model& state) = 0;
  // Spawns the task actor of one admitted task (linked to nothing; it
  // reports to `self` with task_ended).
  virtual messages::task_actor start_task(messages::scheduler_actor::pointer self,
                                          const run_context_ptr& ctx, const task_spec& spec) = 0;
  // Spawns the actor that runs an admission quota batch (called once, at the
  // first batch; the scheduler keeps the handle).
  virtual messages::quota_prober_actor start_quota_prober(
    messages::scheduler_actor::pointer self) = 0;
};

// The files, /proc and real task actors of `ctx` (its workspace, task group,
// state root and clock); ctx must outlive it.
std::unique_ptr<scheduler_io> make_file_scheduler_io(const run_context& ctx);

} // namespace ad::actors

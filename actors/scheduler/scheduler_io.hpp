#pragma once
// What the scheduler actor reads, moves and starts for its machine's
// commands (runtime/run/scheduler_machine.hpp): the workspace scan, the
// archive folders of tasks, the probes of active stages (/proc, locators,
// review files) and of work logs, the move of a finished group's work log,
// the removal of a completed task's attempt logs, and the actors it
// starts: task actors and the admission quota prober. In a run these are
// the files, /proc and real actors (make_file_scheduler_io); tests give
// their own. Every call answers at once, on the scheduler's thread; none
// may block long. Owned by one scheduler; not thread-safe.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/core/run_context.hpp"
#include "actors/task/task_actor.hpp"
#include "messages/quota.hpp"
#include "messages/scheduler.hpp"
#include "runtime/run/scheduler_machine.hpp"
#include "runtime/workspace/early_scan.hpp"

namespace ad::actors {

class scheduler_io {
public:
  virtual ~scheduler_io() = default;

  // Reads what changed in the workspace since the last refresh (`also`:
  // folders known to have changed); the first refresh reads everything.
  // On an error the tasks of the last refresh stay.
  virtual runtime::result<runtime::scan_reading> refresh_scan(
    const std::vector<std::string>& also) = 0;
  // Archive folders of each of `tasks` that hold complete.log, sorted, by
  // task; a task without one is left out.
  virtual std::map<std::string, std::vector<std::string>> archived_task_folders(
    const std::vector<std::string>& tasks) const = 0;
  virtual runtime::work_log_archive_outcome archive_work_log(const std::string& group) = 0;
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
// state root and clock); ctx must outlive it. `scan`: the scan of ctx's
// workspace and task group, begun earlier (`run` begins it before it reads
// the state: runtime/workspace/early_scan.hpp); null: one begins now.
std::unique_ptr<scheduler_io> make_file_scheduler_io(
  const run_context& ctx, std::unique_ptr<runtime::early_scan> scan = nullptr);

} // namespace ad::actors

#pragma once
// Where the task machine's readings come from and where a completed task's
// attempt logs go: the task actor carries out the machine's read commands
// (task_cmd::read_for_launch, read_after_attempt, read_named_files) and
// remove_attempt_logs through this interface. real_task_files() reads the
// workspace and the runs folder; tests give their own. Every call runs
// inside one of the actor's steps and must not block long. Nothing here
// decides anything: what to read is the machine's command, what it means
// is the machine's next step. Never throws; what cannot be read is left
// empty or unknown (the reading says so).

#include <vector>

#include "runtime/run/task_machine.hpp"

namespace ad::runtime {

class task_files {
public:
  virtual ~task_files() = default;
  // The write set now and, when asked (before a review), the verdict
  // sources seen and the progress signature.
  virtual launch_reading read_for_launch(const task_context& ctx, const task_spec& spec,
                                         const task_cmd::read_for_launch& cmd) const = 0;
  // The write set now and, after a success, the stage's reading (locator
  // identity, checklist, review folders and signature); after a failure,
  // the stream tail.
  virtual attempt_reading read_after_attempt(const task_context& ctx, const task_spec& spec,
                                             const task_cmd::read_after_attempt& cmd) const = 0;
  virtual std::vector<named_file> named_files(const named_path_query& query) const = 0;
  // After the task completed: its attempt folders in the runs folder go.
  virtual void remove_attempt_logs(const task_context& ctx, const task_spec& spec) const = 0;
};

// The real files.
const task_files& real_task_files();

} // namespace ad::runtime

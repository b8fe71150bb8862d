#pragma once
// The dry run (SPEC section 10, `run --dry-run`): for every task of a scanned
// workspace, the stage, route, dependency state, admission status and a
// one-line human reason, plus summary counts and the exit code. It applies the
// admission rules of SPEC section 4 without persisting anything: reviews are
// considered before workers and self-checks, a task without a valid write set
// is never admitted, a write set that intersects an existing claim or one
// admitted earlier in the same pass waits, an exclusive claim blocks every
// admission, and --max-parallel caps admissions counting live tasks.
// Completed tasks are the archived subtask folders (with complete.log) of the
// groups in scope. Pure: the caller supplies the scan, the per-task progress
// from durable state and the existing claims; nothing here writes or prints.
// Never fails.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/workspace/dependencies.hpp"
#include "runtime/workspace/stage.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

enum class dispatch_status : uint8_t { ready, waiting, blocked, user_review, running, complete };

std::string_view to_string(dispatch_status status);

// A write claim already held (persisted by a running dispatcher).
struct held_claim {
  std::vector<std::string> paths;  // canonical absolute paths
  bool exclusive = false;          // a live task whose write set is unknown
};

struct dry_run_task {
  std::string name;
  std::string stage;            // a task_stage name, or "complete"
  std::string route;            // "local-G05", "cloud-G03", "recovery", "archive"
  dependency_report dependency;
  dispatch_status status = dispatch_status::waiting;
  std::string reason;           // one line
  // A waiting task: what it waits for ("dependency", "claim", "capacity")
  // and, for a claim, the task holding it.
  std::string wait;
  std::string wait_owner;
  std::string work_unit_id;     // empty without an identity header
  std::vector<std::string> write_set;
  std::vector<std::string> errors;
  std::string archive_path;     // complete tasks: their archive folder
};

// What the dry run reads from the folders beyond the scan: each scanned
// task's predecessors as the folders show them (settled_dependencies, in the
// order of scan.tasks; the running check comes later, from the progress) and
// the completed tasks, archived, of the groups in scope. It needs the scan
// and the group alone, so a caller may read it while it reads the durable
// state (status does: at 10,000 tasks it is a fifth of the command's time).
struct dry_run_folders {
  std::vector<dependency_report> dependencies;
  std::vector<dry_run_task> archived;
};

dry_run_folders read_dry_run_folders(const workspace_scan& scan,
                                     const std::optional<std::string>& group);

struct dry_run_input {
  const workspace_scan* scan = nullptr;
  std::optional<std::string> group;                 // --task-group
  std::map<std::string, task_progress> progress;    // by task name; absent = fresh
  std::map<std::string, held_claim> claims;         // by owner task name
  int max_parallel = 0;                             // 0 = unlimited
  // read_dry_run_folders(*scan, group), read ahead by the caller; read by
  // plan_dry_run when null or read from a scan with another number of
  // tasks (the only check made: pass the folders of this scan).
  const dry_run_folders* folders = nullptr;
};

struct dry_run_summary {
  std::size_t tasks = 0, ready = 0, waiting = 0, blocked = 0, user_review = 0, running = 0,
              complete = 0;
  int exit_code = 0;
  std::string message;          // one line explaining the exit code
};

struct dry_run_report {
  std::vector<dry_run_task> tasks;  // active tasks in scan order, then completed ones
  dry_run_summary summary;
  std::vector<std::string> warnings; // from the scan
};

dry_run_report plan_dry_run(const dry_run_input& input);

} // namespace ad::runtime

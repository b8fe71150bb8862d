#pragma once
// What every actor of one `run` shares: the workspace and its state root,
// the policy and its time zone, the clock, and the handles of the state
// store, supervisor, attempt host, claim watcher and output actor. Immutable once the run
// starts (shared by pointer between the scheduler and its task actors).
// The output handle may be null (nothing is rendered then), and so may the
// task actors' file access (io: null means the real files) and the
// scheduler's (scheduler_io_factory).

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "messages/attempt.hpp"
#include "messages/claims.hpp"
#include "messages/run_events.hpp"
#include "messages/state.hpp"
#include "messages/supervisor.hpp"
#include "runtime/agents/adapter.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/run/task_files.hpp"
#include "runtime/trace/trace_writer.hpp"

namespace ad::actors {

class scheduler_io; // actors/scheduler/scheduler_io.hpp

struct run_context {
  std::string workspace;     // canonical workspace root
  std::string workspace_id;
  std::string task_root;     // <workspace>/agent-task
  std::string runs_dir;      // <state root>/runs
  std::string task_group;    // --task-group, "" for all
  int max_parallel = 0;
  bool retry_blocked = false;
  runtime::policy pol;
  runtime::time_zone zone;
  std::shared_ptr<const runtime::clock> clk;
  messages::attempt_timing timing;
  // What each adapter's installed CLI accepts, detected once before the run
  // (runtime/agents/cli_probe.hpp), by adapter name; a missing entry: not
  // detected.
  std::map<std::string, runtime::cli_capabilities> cli_caps;
  messages::state_store_actor store;
  messages::supervisor_actor supervisor;
  messages::attempt_host_actor host;
  // Distributed mode: the host is the node pool, asked where each attempt
  // runs before it starts (task_cmd::place_attempt).
  bool place_on_nodes = false;
  messages::output_actor out;
  // The run's claim watcher (docs/claims.md), asked after each attempt
  // whether its writes are judged; null: no one is asked.
  messages::attempt_verdicts_actor claims;
  std::chrono::milliseconds state_timeout{60'000};
  std::chrono::seconds attempt_timeout{48 * 3600};
  std::chrono::milliseconds elsewhere_poll{1'000};
  // `run --trace`: the message trace (docs/traces.md); null: off.
  std::shared_ptr<runtime::trace_writer> trace;
  // What the task actors read from files (and remove); null: the files
  // themselves (runtime::real_task_files). Tests give their own.
  std::shared_ptr<const runtime::task_files> io;
  // What the scheduler reads and starts (its scan, archive, /proc probes,
  // work logs and task actors), made once per scheduler; null: the files,
  // /proc and real task actors (make_file_scheduler_io). Tests set their own.
  std::function<std::unique_ptr<scheduler_io>(const run_context&)> scheduler_io_factory;
};

using run_context_ptr = std::shared_ptr<const run_context>;

} // namespace ad::actors

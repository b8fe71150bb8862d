#pragma once
// Exit code of `agent-dispatch run` from the final observation of a run (SPEC
// section 10): 0 every observed task complete; 2 blocked, nothing runnable,
// a terminal state error or bad usage; 3 waiting on work outside this process
// (another dispatcher, live attempts it does not own, reconciliation
// pending); 130 interrupted. A pure function; the scheduler fills the
// observation when its loop has nothing left to start or follow. Never throws.

#include <cstdint>
#include <string>
#include <vector>

namespace ad::runtime {

struct run_observation {
  bool interrupted = false;       // SIGINT/SIGTERM stopped the run
  std::string terminal_error;     // state/identity error, bad usage: non-empty = exit 2
  std::string other_dispatcher;   // owner of the workspace lock, when not us
  // Live attempts this process does not own (agents running elsewhere: from before a restart, another
  // dispatcher's agents): "<task>: <detail>".
  std::vector<std::string> external_live;
  // Waiting on reconciliation: control-plane errors of tasks that ended
  // unexpectedly, work-log archives to retry, attempt-log cleanup pending,
  // orchestration records not yet reconciled. "<what>[<name>]=<reason>".
  std::vector<std::string> reconciliation_pending;
  // Tasks deferred only for capacity while live attempts of other
  // dispatchers fill --max-parallel.
  std::vector<std::string> capacity_held_externally;
  bool task_group_requested = false; // --task-group given
  int observed = 0;                  // tasks observed in scope (orchestration record)
  int complete = 0;                  // of which verified complete
  // "<task>: <reason>" for every blocked or waiting task that did not finish.
  std::vector<std::string> not_complete;
};

enum class run_exit_kind : uint8_t { complete, blocked, waiting_outside, interrupted };

struct run_exit {
  int code = 0;
  run_exit_kind kind = run_exit_kind::complete;
  std::string summary;              // one line
  std::vector<std::string> details; // one line each, for the final report
};

inline constexpr int exit_complete = 0;
inline constexpr int exit_blocked = 2;
inline constexpr int exit_waiting_outside = 3;
inline constexpr int exit_interrupted = 130;

// Precedence: interrupted, terminal error, another dispatcher, external live
// attempts / reconciliation / capacity held outside (3), an observed-nothing
// --task-group (2), anything not complete (2), else 0.
run_exit compute_run_exit(const run_observation& obs);

} // namespace ad::runtime

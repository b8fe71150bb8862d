#pragma once
// The scheduler actor of `agent-dispatch run` (SPEC sections 4, 8, 10). Each
// pass reads the durable state, scans the workspace (runtime/workspace),
// plans admission (runtime/run/run_pass over runtime/schedule), makes the
// new work units, orchestration sightings and write claims durable through
// the state store, and only then spawns one task actor per admitted task,
// in admission order. The first pass also applies `--retry-blocked` and
// probes every active stage left in state (restart safety): live attempts
// are followed as running elsewhere (claim adopted, polled until they end,
// never started again); stale ones are cleared and resumed. A pass runs
// again after every task_ended. When nothing runs or waits here any more it
// computes the exit code (runtime/schedule/exit_code), sends run_summary to
// the output actor and run_finished to the waiter, and quits. On
// shutdown_requested it stops admitting and cancels its task actors (their
// agents' process groups are terminated), then finishes with 130. A state
// or scan error stops admissions but lets running agents end naturally.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "actors/scheduler/run_context.hpp"
#include "messages/scheduler.hpp"
#include "runtime/run/run_pass.hpp"
#include "runtime/schedule/rescan.hpp"

namespace ad::actors {

struct scheduler_state {
  static inline const char* name = "scheduler";
  run_context_ptr ctx;
  messages::run_waiter_actor waiter;
  std::map<std::string, messages::task_actor> running; // followed here
  std::map<std::string, std::string> survivors;        // task -> detail (restart survivors)
  std::map<std::string, runtime::millis> paused;       // task -> until (review no-progress)
  std::map<std::string, std::string> failed_here;      // task -> reason (errors this run)
  std::vector<std::string> cleared;                    // stale stages cleared at start
  runtime::pass_plan last;
  runtime::reason_tracker reasons;
  int completed = 0;          // tasks completed by this run
  int recorded_complete = 0;  // tasks the orchestration records hold as complete
  bool first_pass = true;
  bool pass_in_flight = false;
  bool pass_wanted = false;
  bool poll_scheduled = false;
  bool stopping = false;     // shutdown requested
  bool interrupted = false;
  std::string terminal_error; // stops admissions
  bool finished = false;
};

messages::scheduler_actor::behavior_type scheduler_impl(
  messages::scheduler_actor::stateful_pointer<scheduler_state> self, run_context_ptr ctx,
  messages::run_waiter_actor waiter);

} // namespace ad::actors

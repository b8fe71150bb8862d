#pragma once
// The scheduler actor of `agent-dispatch run` (SPEC sections 4, 8, 10). Each
// pass reads the durable state (a mirror kept current by the state store's
// publications), rescans the workspace incrementally (through its
// scheduler_io: in a run the workspace_scanner, which reads again only the
// folders that changed), plans
// admission for the affected tasks (runtime/run/pass_planner over
// runtime/schedule), makes the new work units, orchestration sightings and
// write claims durable through the state store, and only then spawns one
// task actor per admitted task, in admission order (after the admission
// quota batch of the admitted workers, when their targets have probes: run
// once per pass on a detached quota prober, told to the supervisor, handed
// to the task actors). The first pass also
// applies `--retry-blocked` and probes every active stage left in state
// (restart safety): live attempts are followed as running elsewhere (claim
// adopted, polled until they end, never started again); stale ones are
// cleared and resumed. A pass runs again after task_ended (several ended
// tasks arriving during a pass are handled by one pass). When nothing runs
// or waits here any more it computes the exit code
// (runtime/schedule/exit_code), sends run_summary to
// the output actor and run_finished to the waiter, and quits. On
// shutdown_requested it stops admitting and cancels its task actors (their
// agents' process groups are terminated), then finishes with 130. A state
// or scan error stops admissions but lets running agents end naturally.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "actors/scheduler/run_context.hpp"
#include "messages/quota.hpp"
#include "messages/scheduler.hpp"
#include <memory>

#include "runtime/run/active_probe.hpp"
#include "runtime/run/pass_planner.hpp"
#include "runtime/run/run_pass.hpp"
#include "runtime/schedule/reason_tracker.hpp"
#include "actors/scheduler/scheduler_io.hpp"

namespace ad::actors {

struct scheduler_state {
  static inline const char* name = "scheduler";
  run_context_ptr ctx;
  messages::run_waiter_actor waiter;
  messages::quota_prober_actor prober; // spawned at the first quota batch
  int64_t quota_batches = 0;
  std::map<std::string, messages::task_actor> running; // followed here
  std::map<std::string, std::string> survivors;        // task -> detail (restart survivors)
  // Attempts found under their keepers at a restart, adopted by the next
  // pass (a task actor follows each to its end).
  std::vector<runtime::attempt_adoption> adopting;
  std::map<std::string, runtime::millis> paused;       // task -> until (review no-progress)
  std::map<std::string, std::string> failed_here;      // task -> reason (errors this run)
  std::vector<std::string> cleared;                    // stale stages cleared at start
  runtime::reason_tracker reasons;
  std::map<std::string, std::string> block_shown; // task -> the block reason its end showed
  // Incremental passes: a mirror of the durable state kept by the store's
  // publications, the workspace scanner (folder watch), the planner with the
  // views and entries of earlier passes, and what changed since the last pass.
  runtime::state_model mirror;
  uint64_t mirror_seq = 0;
  uint64_t applied_seq = 0;   // highest seq of our own applied changes
  bool subscribed = false;
  bool pass_deferred = false; // waiting for the mirror to reach applied_seq
  std::unique_ptr<scheduler_io> io; // the scan (its folder watch) and the rest it reads
  runtime::pass_planner planner;
  std::set<std::string> touched;              // tasks to re-examine next pass
  std::vector<std::filesystem::path> ended_dirs; // folders to re-read next pass
  bool claims_changed = false;
  // Paths written outside a claim by attempts still running (the claim
  // watcher's notes, actors/scheduler/claim_notes): tasks claiming them wait.
  std::vector<runtime::live_violation> live_violations;
  bool violations_changed = false;
  std::map<std::string, std::string> shown;   // task -> last tasks_scanned line
  int completed = 0;          // tasks completed by this run
  bool first_pass = true;
  bool pass_in_flight = false;
  bool pass_wanted = false;
  bool poll_scheduled = false;
  bool stopping = false;     // shutdown requested
  bool interrupted = false;
  std::string terminal_error; // stops admissions
  bool finished = false;
  // The clock read once per message handled: every step of that message
  // uses this reading (replay feeds it back from the message's record).
  runtime::millis now = 0;
  int64_t inbound_seq = 0; // the message's scheduler.inbound edge (0: not tracing)
};

messages::scheduler_actor::behavior_type scheduler_impl(
  messages::scheduler_actor::stateful_pointer<scheduler_state> self, run_context_ptr ctx,
  messages::run_waiter_actor waiter);

} // namespace ad::actors

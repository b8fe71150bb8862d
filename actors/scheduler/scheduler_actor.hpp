#pragma once
// The scheduler actor of `agent-dispatch run`: the interpreter of the
// scheduler machine (runtime/run/scheduler_machine.hpp), which decides
// everything about the run's passes (SPEC sections 4, 8, 9, 10). The actor
// feeds the machine each event with one clock reading per message it
// handles: the run's start, the state store's snapshot, publications and
// answers, the task actors' ends, the claim watcher's notes, its poll timer,
// the quota prober's answers and the shutdown. It carries out the commands
// the machine returns, in order: a request (whose answer, or error, becomes
// the next event), a read or move through its scheduler_io (answered at
// once, fed next with the same clock reading), a task actor started or
// stopped, a timer, a run event for the output, a crash-test checkpoint,
// and finally run_finished to the waiter, after which it quits. When the
// run is traced, each event enters the trace as scheduler.event and the
// commands it produced as its scheduler.commands decision; replay feeds
// those events to a new machine and compares the commands (docs/traces.md).

#include <deque>
#include <map>
#include <memory>
#include <string>

#include "actors/core/run_context.hpp"
#include "actors/scheduler/scheduler_io.hpp"
#include "messages/quota.hpp"
#include "messages/scheduler.hpp"
#include "runtime/run/scheduler_machine.hpp"

namespace ad::actors {

struct scheduler_state {
  static inline const char* name = "scheduler";
  run_context_ptr ctx;
  messages::run_waiter_actor waiter;
  std::unique_ptr<runtime::scheduler_machine> machine;
  std::unique_ptr<scheduler_io> io;
  messages::quota_prober_actor prober;                // spawned at the first quota batch
  std::map<std::string, messages::task_actor> tasks;  // started here, not ended
  std::deque<runtime::scheduler_event> answered;      // reads answered at once
  bool feeding = false;
  runtime::millis now = 0; // the clock reading of the message being handled
};

// The machine's context for the run's settings in ctx (its policy and zone
// by pointer: ctx must outlive it).
runtime::scheduler_context scheduler_context_of(const run_context& ctx);

messages::scheduler_actor::behavior_type scheduler_impl(
  messages::scheduler_actor::stateful_pointer<scheduler_state> self, run_context_ptr ctx,
  messages::run_waiter_actor waiter);

} // namespace ad::actors

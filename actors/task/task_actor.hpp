#pragma once
// The task actor: the interpreter of one task machine (runtime/run/
// task_machine.hpp), which decides everything about one admitted stage of
// one task (SPEC sections 3, 6, 7). The actor feeds the machine each event
// with one clock reading: its start, every answer to its requests (the
// state store, the supervisor, the attempt host), its timer and the run's
// stop. It carries out the commands the machine returns, in order: a
// request (whose answer, or error, becomes the next event; an attempt's
// result once the run's claim watcher has judged its writes), a read of the
// task's files through ctx->io (runtime::task_files; answered at once), a
// timer, a cancel, a run event for the output, a crash-test checkpoint, and
// finally task_ended to the scheduler, after which it quits. When the run
// is traced, each event enters the trace as task.event and the commands it
// produced as its task.commands decision; replay feeds those events to a
// new machine and compares the commands (docs/traces.md).

#include <deque>
#include <memory>

#include "actors/core/run_context.hpp"
#include "messages/scheduler.hpp"
#include "runtime/run/task_machine.hpp"

namespace ad::actors {

using task_spec = runtime::task_spec;

struct task_actor_state {
  static inline const char* name = "task";
  run_context_ptr ctx;
  runtime::task_context task_ctx; // points into *ctx
  messages::scheduler_actor scheduler;
  std::unique_ptr<runtime::task_machine> machine;
  std::deque<runtime::task_event> answered; // events of reads answered at once
  bool feeding = false;
};

// The machine's context for the run's settings in ctx (its policy and zone
// by pointer: ctx must outlive it).
runtime::task_context task_context_of(const run_context& ctx);

messages::task_actor::behavior_type task_actor_impl(
  messages::task_actor::stateful_pointer<task_actor_state> self, run_context_ptr ctx,
  task_spec spec, messages::scheduler_actor scheduler);

} // namespace ad::actors

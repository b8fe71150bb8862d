#pragma once
// The task actor itself, replayed. Each task actor of a recorded run lives
// from a task.begin to its task.end; replay spawns the real task actor
// (actors/scheduler/task_actor) for each such lifetime, in a private actor
// system on CAF's deterministic scheduler (test_coordinator), with its spec
// from that task.begin. The state store, supervisor, attempt host and
// scheduler it talks to are one stand-in actor that answers from the
// lifetime's recorded edges: the task state and cool-downs each edge was
// read with, the supervisor's recorded step with its state changes (the
// supervisor itself is replayed by supervisor_replay), the recorded attempt result; its file
// reads come from the trace through actors::task_io, its clock is a manual
// clock set to the recorded readings, its timers fire when the actor is
// idle, a recorded task.stop is delivered at the point it was recorded,
// and a recorded task.error is the stand-in's answer to that peer's request.
// The actor records into an in-memory trace writer; its n-th edge stands
// for the lifetime's n-th recorded edge, and the decisions it caused are
// the replayed decisions of that edge. No threads, no processes, no files
// read or written. Errors (an edge that does not decode, an actor that
// asks for something the lifetime did not record) show as divergences.

#include "actors/scheduler/run_context.hpp"
#include "runtime/trace/trace_paths.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::tools {

// Adds the task.begin, task.launch, attempt.result and task.stop handlers,
// which compare what the replayed task actors decide, and makes the
// supervisor.failure handler add the task.end (after a block) they decide
// there. Call after the supervisor's handlers. base: the replay's run
// context (policy, zone, roots, options); trace and roots must outlive
// the handlers.
void add_task_actor_replay(runtime::replay_handlers& handlers, const runtime::trace_file& trace,
                           const actors::run_context& base, const runtime::trace_paths& roots);

} // namespace ad::tools

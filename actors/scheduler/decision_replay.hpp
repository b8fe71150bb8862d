#pragma once
// Replay by the decision functions (`agent-dispatch replay`, docs/traces.md):
// handlers that rebuild an attempt's and a task actor's decisions from their
// recorded edges by calling the functions the actors call, on the readings
// the trace holds, and build the decision bodies as recording does
// (actors/scheduler/trace_points.hpp). The attempt actor is replayed this
// way only; the task actors also by themselves (tools/replay/
// task_actor_replay.hpp), and the corpus tests keep both identical.
// Handlers are called one edge at a time; they never throw (a body that
// does not decode is an error result).

#include "actors/scheduler/run_context.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::actors {

// Adds the attempt.line, attempt.follow, attempt.silence and attempt.exit
// handlers: an attempt's reading of its agent's output and silence, and its
// classification under base's policy (from the replayed lines when the
// trace holds them).
void add_attempt_replay_handlers(runtime::replay_handlers& handlers, const run_context& base);

// Adds the task.begin, task.launch, task.stop and attempt.result handlers,
// which replay the task actor's decisions by its decision functions, and
// wraps the supervisor.failure handler (add the supervisor's handlers
// first) so a block step also ends its task. base supplies the policy,
// time zone and the replay roots (workspace, task_root, runs_dir); its
// clock is replaced per edge.
void add_task_replay_handlers(runtime::replay_handlers& handlers, const run_context& base);

} // namespace ad::actors

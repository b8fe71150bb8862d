#pragma once
// Replay of the task actors (docs/traces.md): every task.event edge is fed,
// in seq order, to the task machine of its task (runtime/run/
// task_machine.hpp), made afresh at the task's `begun` event from the spec
// recorded there, and the commands the machine returns are compared with the
// recorded task.commands decision. The machine is what the live task actor
// interprets, so this is the task actor's every decision under the replayed
// policy; nothing is read, started or written. Handlers are called one edge
// at a time; a body that does not decode is an error result; never throws.

#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/run/task_machine.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::runtime {

// base: the run's settings with the replay roots (its pol and zone are
// ignored: pol and zone are copied and used instead).
void add_task_machine_replay(replay_handlers& handlers, const policy& pol, const time_zone& zone,
                             const task_context& base);

} // namespace ad::runtime

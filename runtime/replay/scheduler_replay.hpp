#pragma once
// Replay of the scheduler actor (docs/traces.md): every scheduler.event edge
// is fed, in seq order, to one scheduler machine (runtime/run/
// scheduler_machine.hpp) made with the run's settings, and the commands it
// returns are compared with the recorded scheduler.commands decision. The
// machine is what the live scheduler actor interprets, so this is every
// decision of the scheduler under the replayed policy; nothing is read,
// started or written. Handlers are called one edge at a time; a body that
// does not decode is an error result; never throws.

#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/run/scheduler_machine.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::runtime {

// base: the run's settings with the replay roots (its pol and zone are
// ignored: pol and zone are copied and used instead).
void add_scheduler_machine_replay(replay_handlers& handlers, const policy& pol,
                                  const time_zone& zone, const scheduler_context& base);

} // namespace ad::runtime

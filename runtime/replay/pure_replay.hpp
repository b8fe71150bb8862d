#pragma once
// Replay handlers for the supervisor's decisions, which live entirely in
// runtime/ and take every input from their edge (supervisor.failure ->
// supervisor.step, with the shared quota cool-downs carried from one edge
// to the next exactly as the supervisor actor carries them, and
// supervisor.quota_batch updating them). The handlers share state, so one
// set replays one trace, in order. Pure: no files, no clock; errors are
// handler results. (The scheduler's decisions are replayed by its machine:
// runtime/replay/scheduler_replay.hpp.)

#include "runtime/policy/policy.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::runtime {

void add_pure_replay_handlers(replay_handlers& handlers, const policy& pol, const time_zone& zone);

} // namespace ad::runtime

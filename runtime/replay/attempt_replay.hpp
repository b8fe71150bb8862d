#pragma once
// Replay of the attempt actor's decisions (`agent-dispatch replay`,
// docs/traces.md): handlers that rebuild an attempt's reading of its
// agent's output, its silence checks and its classification from the
// recorded edges by calling the functions the attempt actor calls, on the
// readings the trace holds.
// Handlers are called one edge at a time; they never throw (a body that
// does not decode is an error result).

#include "runtime/policy/policy.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::runtime {

// Adds the attempt.line, attempt.follow, attempt.silence and attempt.exit
// handlers: an attempt's reading of its agent's output and silence, and its
// classification under pol's failure patterns (from the replayed lines
// when the trace holds them).
void add_attempt_replay_handlers(replay_handlers& handlers, const policy& pol);

} // namespace ad::runtime

#pragma once
// Replay handlers for the decisions that live entirely in runtime/ and take
// every input from their edge: the supervisor (supervisor.failure ->
// supervisor.step, with the shared quota cool-downs carried from one edge
// to the next exactly as the supervisor actor carries them, and
// supervisor.quota_batch updating them), the admission of a scheduler pass
// (scheduler.admission -> scheduler.admitted), the orchestration
// reconciliation of a scope (scheduler.reconcile -> scheduler.reconciled),
// the new work units and first sightings of a pass (scheduler.sightings ->
// scheduler.sighted), the closing of a finished group (scheduler.group ->
// scheduler.group_close), the `--retry-blocked` clears at start-up
// (scheduler.retry_blocked -> scheduler.retry_cleared), the settling of
// probed active stages (scheduler.liveness -> scheduler.active_stages) and
// the exit code (run.end -> run.exit). The handlers share state, so one set
// replays one trace, in order. Pure: no files, no clock; errors are handler
// results.

#include "runtime/policy/policy.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::runtime {

void add_pure_replay_handlers(replay_handlers& handlers, const policy& pol, const time_zone& zone);

} // namespace ad::runtime

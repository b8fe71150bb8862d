#pragma once
// The scheduler actor itself, replayed. A trace that holds the scheduler's
// inbound messages (scheduler.inbound: each message it handled, in order,
// with its clock reading) and the raw scan of each pass (scheduler.scan)
// replays the real scheduler actor (actors/scheduler/scheduler_actor) in a
// private actor system on CAF's deterministic scheduler (test_coordinator).
// One stand-in actor plays the state store, supervisor, quota prober, task
// actors and run waiter: it holds the scheduler's requests open, and replay
// delivers each recorded message when the actor is idle and the recording
// says it came next (a publication, a task_ended, a poll, a shutdown, or
// the answer to the open request). Its reads (actors/scheduler/
// scheduler_io.hpp) come from the trace: the scan from scheduler.scan, the
// probes of active stages from the scheduler.liveness edge ahead, the
// archive lookups from the scheduler.reconcile or scheduler.sightings edge
// ahead, the completed folders of predecessors from the scheduler.admission
// edge ahead, the work log's move from the scheduler.group edge ahead. The
// actor records into an in-memory trace writer; its n-th edge stands for
// the recorded scheduler's n-th edge, and the decisions it caused there are
// the replayed decisions of that edge, including scheduler.startup and
// scheduler.pass (caused by the inbound message whose handling decided
// them). No threads, no processes, no files read or written. A replayed
// actor that records another edge than the trace, or asks for something
// the trace did not record, shows as a divergence at that edge.

#include "actors/scheduler/run_context.hpp"
#include "runtime/trace/trace_paths.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::tools {

// Whether the trace records what the scheduler actor's replay needs (its
// scheduler.inbound edges); traces recorded before they existed replay the
// scheduler by its decision functions only.
bool scheduler_replayable(const runtime::trace_file& trace);

// Replaces the handlers of the scheduler's edges (scheduler.liveness,
// .sightings, .admission, .reconcile, .group, .retry_blocked, run.end) by
// the replayed actor's decisions, and adds scheduler.inbound (producing
// scheduler.startup and scheduler.pass) and scheduler.scan. base: the
// replay's run context (policy, zone, roots, options); trace and roots
// must outlive the handlers.
void add_scheduler_actor_replay(runtime::replay_handlers& handlers,
                                const runtime::trace_file& trace, const actors::run_context& base,
                                const runtime::trace_paths& roots);

} // namespace ad::tools

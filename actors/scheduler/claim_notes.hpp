#pragma once
// What the scheduler does with the claim watcher's notes (messages/claims.hpp):
// it keeps the paths written outside a claim by attempts still running
// (scheduler_state::live_violations, the pass planner's input: tasks claiming
// them wait) and names the running task actor a block must stop. The
// violation itself is durable before the note arrives (the watcher made it
// so). Synchronous steps on the scheduler's state; never throw.

#include <optional>

#include "actors/scheduler/scheduler_actor.hpp"
#include "runtime/core/json.hpp"

namespace ad::actors {

// Adds the note's live entries; the task actor to stop (policy block, the
// writer's task running here), if any. The tasks the note names are
// re-examined by the next pass.
std::optional<messages::task_actor> note_claim_violation(scheduler_state& s,
                                                         const messages::claim_violation_noted& v);

// Drops the entries of the ended attempt; true when one went (a pass then
// examines the tasks that waited on them).
bool note_violating_attempt_ended(scheduler_state& s,
                                  const messages::violating_attempt_ended& e);

// The notes as the trace records them (scheduler.inbound detail) and replay
// reads them back.
runtime::json claim_note_json(const messages::claim_violation_noted& v);
runtime::json violation_ended_json(const messages::violating_attempt_ended& e);

} // namespace ad::actors

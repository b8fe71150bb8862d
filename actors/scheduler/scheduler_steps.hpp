#pragma once
// The scheduler actor's synchronous steps, kept apart from its message
// handling: the start-up changes (--retry-blocked, restart probes), one
// pass's decision (scan, survivor re-probes, orchestration reconciliation,
// admission, the task specs to start, the events to show), the bookkeeping
// of a task_ended, and the final exit code. They read the workspace and
// /proc through the scheduler's scheduler_io, send fire-and-forget events
// to the output actor, and never throw.

#include <vector>

#include "actors/scheduler/scheduler_actor.hpp"
#include "actors/scheduler/task_actor.hpp"

namespace ad::actors {

std::vector<runtime::state_change> startup_changes(scheduler_state& s,
                                                   const runtime::state_model& model);

struct pass_decision {
  std::vector<runtime::state_change> changes; // durable before any start
  std::vector<task_spec> start;               // in admission order
};

pass_decision decide_pass(scheduler_state& s, const runtime::state_model& model);

void note_task_ended(scheduler_state& s, const messages::task_ended& ended);

// A publication of the state store: applied to the mirror; the tasks it
// names are re-examined by the next pass (claims changed: claim waiters too).
void note_state_published(scheduler_state& s, const messages::state_changes_published& p);

messages::run_finished finish_run(scheduler_state& s);

} // namespace ad::actors

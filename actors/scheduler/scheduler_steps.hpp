#pragma once
// The scheduler actor's synchronous steps, kept apart from its message
// handling: the start-up changes (--retry-blocked, restart probes), one
// pass's decision (scan, survivor re-probes, orchestration reconciliation,
// admission, the task specs to start, the events to show), the effects a
// pass may carry out only once its changes are durable (attempt logs of
// completed tasks, work logs of closing groups), the bookkeeping of a
// task_ended, and the final exit code. They read the workspace and /proc
// through the scheduler's scheduler_io, send fire-and-forget events to the
// output actor, and never throw.

#include <vector>

#include "actors/scheduler/scheduler_actor.hpp"
#include "actors/scheduler/task_actor.hpp"

namespace ad::actors {

std::vector<runtime::state_change> startup_changes(scheduler_state& s,
                                                   const runtime::state_model& model);

struct pass_decision {
  std::vector<runtime::state_change> changes; // durable before any start or effect below
  std::vector<task_spec> start;               // in admission order
  // Tasks the pass completed by reconciliation (task, archive folder): once
  // `changes` are durable their attempt logs go and the completion is shown.
  std::vector<std::pair<std::string, std::string>> completed;
  // Groups that close: once `changes` are durable each work log moves to
  // the archive, and the record's closing is made durable after that.
  std::vector<runtime::group_reading> closing;
  // Attempts adopted from their keepers: a task actor each, started before
  // the admitted ones.
  std::vector<task_spec> adopt;
};

pass_decision decide_pass(scheduler_state& s, const runtime::state_model& model);

// The pass's effects that wait for its changes to be durable: the attempt
// logs of the tasks it completed go, and their completion is shown.
void after_pass_durable(scheduler_state& s, const pass_decision& pass);

// Moves each closing group's work log to the archive and decides its
// closing on the outcome (scheduler.group -> scheduler.group_close); the
// changes to make durable next (a refused move is a run error).
std::vector<runtime::state_change> close_groups(scheduler_state& s,
                                                std::vector<runtime::group_reading> closing);

void note_task_ended(scheduler_state& s, const messages::task_ended& ended);

// A publication of the state store: applied to the mirror; the tasks it
// names are re-examined by the next pass (claims changed: claim waiters too).
void note_state_published(scheduler_state& s, const messages::state_changes_published& p);

messages::run_finished finish_run(scheduler_state& s);

} // namespace ad::actors

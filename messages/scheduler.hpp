#pragma once
// Messages and typed interfaces of the run loop (actors/scheduler): the
// scheduler actor (scans, admits, follows task actors and restart
// tasks running elsewhere, and reports the final exit code), the task actor (runs one
// admitted task's stage machine through attempts and the supervisor) and the
// waiter that receives the end of the run. Every struct is a value with a
// free inspect(). Error contract: task actors never answer with errors; a
// problem ends the task with outcome "error" or "blocked" and a reason.
// Registered by add_scheduler_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/claims.hpp"
#include "messages/run_events.hpp"
#include "messages/state.hpp"

namespace ad::messages {

// Task actor -> scheduler: the admitted stage run ended.
struct task_ended {
  std::string task;
  std::string stage;
  std::string outcome; // advance | complete | blocked | pause | error | cancelled
  std::string reason;  // one line
  int64_t pause_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_ended& x) {
  return f(caf::meta::type_name("task_ended"), x.task, x.stage, x.outcome, x.reason, x.pause_ms);
}

// Scheduler -> waiter: the run is over.
struct run_finished {
  int32_t exit_code = 0;
  std::string summary;
  std::vector<std::string> details;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_finished& x) {
  return f(caf::meta::type_name("run_finished"), x.exit_code, x.summary, x.details);
}

// Scheduler -> task actor: stop admitting attempts, cancel the running one
// (its process group is terminated) and end as "cancelled".
struct stop_run {
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_run& x) {
  return f(caf::meta::type_name("stop_run"), x.reason);
}

using sch_pass_atom = caf::atom_constant<caf::atom("sch_pass")>;  // run a pass
using sch_poll_atom = caf::atom_constant<caf::atom("sch_poll")>;  // re-probe the tasks running elsewhere
using task_wake_atom = caf::atom_constant<caf::atom("task_wake")>; // a task's pause ended

// shutdown_requested (messages/run_events.hpp) comes from the signal watcher;
// claim_violation_noted and violating_attempt_ended (messages/claims.hpp)
// from the claim watcher.
using scheduler_actor =
  caf::typed_actor<caf::reacts_to<task_ended>, caf::reacts_to<sch_pass_atom>,
                   caf::reacts_to<sch_poll_atom>, caf::reacts_to<shutdown_requested>,
                   caf::reacts_to<state_changes_published>,
                   caf::reacts_to<claim_violation_noted>,
                   caf::reacts_to<violating_attempt_ended>>;

using task_actor = caf::typed_actor<caf::reacts_to<task_wake_atom>, caf::reacts_to<stop_run>>;

using run_waiter_actor = caf::typed_actor<caf::reacts_to<run_finished>>;

void add_scheduler_messages(caf::actor_system_config& cfg);

} // namespace ad::messages

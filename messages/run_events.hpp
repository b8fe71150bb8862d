#pragma once
// Run events and the typed interface of the output actor (actors/output):
// the scheduler and task actors tell it what happened during `run` (a task
// started, waits, is blocked, finished; an attempt started or finished; the
// supervisor failed over, promoted, matched a tactical pattern or waits) and
// the output actor renders them as plain lines, JSON Lines or a live board
// (runtime/report). Events are past tense, fire-and-forget (`reacts_to`), and
// carry the sender's clock reading in `time` (ms since the epoch, UTC) so a
// recorded trace renders the same output. The output actor writes nothing
// durable and never answers an event; flush_output / stop_output reply with
// output_flushed once everything received before them is written.
// Also here: shutdown_requested, which the signal watcher sends to the
// scheduler on the first SIGINT/SIGTERM.
// Error contract: none of these messages is answered with an error.
// Registered by add_run_event_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/sec.hpp>
#include <caf/typed_actor.hpp>

#include "runtime/report/run_event.hpp"

namespace ad::runtime {

// A run event as the output renders it (runtime/report/run_event.hpp): what
// the task actors send for their task machine's `show` commands.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, report_task_entry& x) {
  return f(caf::meta::type_name("report_task_entry"), x.task, x.stage, x.status, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, report_count& x) {
  return f(caf::meta::type_name("report_count"), x.status, x.count);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_event& x) {
  uint8_t kind = 0;
  return f(caf::meta::type_name("run_event"), caf::meta::save_callback([&]() -> caf::error {
             kind = static_cast<uint8_t>(x.kind);
             return caf::none;
           }),
           kind, caf::meta::load_callback([&]() -> caf::error {
             if (kind > static_cast<uint8_t>(run_event_kind::claim_violation))
               return caf::make_error(caf::sec::invalid_argument);
             x.kind = static_cast<run_event_kind>(kind);
             return caf::none;
           }),
           x.time, x.task, x.stage, x.role, x.reason, x.outcome, x.target, x.cli, x.model,
           x.attempt, x.identity, x.locator, x.node, x.attempt_status, x.exit_code, x.failure_class,
           x.evidence, x.from_target, x.to_target, x.pattern_ids, x.action, x.until, x.tasks,
           x.counts, x.path, x.other_task, x.attribution, x.candidates);
}

} // namespace ad::runtime

namespace ad::messages {

// ---- task events -----------------------------------------------------------
// `stage` is worker | selfcheck | review (or "" when not known);
// `reason` is one line meant for people.

// A stage of the task was admitted and its attempt is about to start.
struct task_started {
  int64_t time = 0;
  std::string task;
  std::string stage;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_started& x) {
  return f(caf::meta::type_name("task_started"), x.time, x.task, x.stage);
}

// The task is complete (archived with complete.log) or one of its stages
// succeeded. `outcome`: complete | stage-done | user-review | follow-up ...
struct task_finished {
  int64_t time = 0;
  std::string task;
  std::string stage;
  std::string outcome;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_finished& x) {
  return f(caf::meta::type_name("task_finished"), x.time, x.task, x.stage, x.outcome, x.reason);
}

// A stage failed (the supervisor decides what next; a block follows as
// task_blocked).
struct task_failed {
  int64_t time = 0;
  std::string task;
  std::string stage;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_failed& x) {
  return f(caf::meta::type_name("task_failed"), x.time, x.task, x.stage, x.reason);
}

// The task is blocked until a person acts (`reason` says why).
struct task_blocked {
  int64_t time = 0;
  std::string task;
  std::string stage;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_blocked& x) {
  return f(caf::meta::type_name("task_blocked"), x.time, x.task, x.stage, x.reason);
}

// The task cannot be admitted now: dependency, write-claim conflict, running
// elsewhere, parallel limit, quota cool-down... (`reason` says which).
struct task_waiting {
  int64_t time = 0;
  std::string task;
  std::string stage;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_waiting& x) {
  return f(caf::meta::type_name("task_waiting"), x.time, x.task, x.stage, x.reason);
}

// One task's status as the scheduler sees it after a scan. `status`:
// pending | running | waiting | blocked | complete | failed.
struct task_status_entry {
  std::string task;
  std::string stage;
  std::string status;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_status_entry& x) {
  return f(caf::meta::type_name("task_status_entry"), x.task, x.stage, x.status, x.reason);
}

// The scheduler (re)scanned the workspace: every observed task and its
// status on the first pass (and after a full rescan), afterwards only the
// tasks whose entry changed. The board's counts start from here; later
// events update them.
struct tasks_scanned {
  int64_t time = 0;
  std::vector<task_status_entry> tasks;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tasks_scanned& x) {
  return f(caf::meta::type_name("tasks_scanned"), x.time, x.tasks);
}

// ---- attempt events --------------------------------------------------------

// An agent process is about to run (its locator is already durable).
struct attempt_began {
  int64_t time = 0;
  std::string task;
  std::string role;          // worker | selfcheck | review
  std::string target;        // target id (policy)
  std::string cli;           // codex | claude | agy | pi | command
  std::string model;
  int64_t attempt = 0;       // the per (task, plan, role) counter
  std::string identity;      // <safe task>__p<plan>__<role>__a<NN>
  std::string locator_path;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_began& x) {
  return f(caf::meta::type_name("attempt_began"), x.time, x.task, x.role, x.target, x.cli,
           x.model, x.attempt, x.identity, x.locator_path);
}

// The agent process ended and was classified (attempt_result's facts).
struct attempt_ended {
  int64_t time = 0;
  std::string task;
  std::string role;
  std::string target;
  std::string identity;
  std::string status;         // succeeded | failed | cancelled
  int32_t exit_code = 0;
  std::string failure_class;  // "" on success
  std::string evidence;       // one line
  std::string locator_path;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_ended& x) {
  return f(caf::meta::type_name("attempt_ended"), x.time, x.task, x.role, x.target, x.identity,
           x.status, x.exit_code, x.failure_class, x.evidence, x.locator_path);
}

// ---- supervisor events -----------------------------------------------------

// The next attempt moves to another target of the same tier.
struct failover_done {
  int64_t time = 0;
  std::string task;
  std::string role;
  std::string from_target;
  std::string to_target;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failover_done& x) {
  return f(caf::meta::type_name("failover_done"), x.time, x.task, x.role, x.from_target,
           x.to_target, x.reason);
}

// The next attempt moves up to a stronger target.
struct promotion_done {
  int64_t time = 0;
  std::string task;
  std::string role;
  std::string from_target;
  std::string to_target;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, promotion_done& x) {
  return f(caf::meta::type_name("promotion_done"), x.time, x.task, x.role, x.from_target,
           x.to_target, x.reason);
}

// A failure matched tactical escalation patterns.
struct tactical_matched {
  int64_t time = 0;
  std::string task;
  std::string role;
  std::string target;
  std::vector<std::string> pattern_ids;
  std::string action;  // what the supervisor does about it ("" if nothing)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tactical_matched& x) {
  return f(caf::meta::type_name("tactical_matched"), x.time, x.task, x.role, x.target,
           x.pattern_ids, x.action);
}

// The supervisor holds the task until `until` (quota reset, back-off).
struct supervisor_waiting {
  int64_t time = 0;
  std::string task;
  std::string role;
  std::string target;
  int64_t until = 0;  // ms since the epoch, UTC
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervisor_waiting& x) {
  return f(caf::meta::type_name("supervisor_waiting"), x.time, x.task, x.role, x.target,
           x.until, x.reason);
}

// ---- the end of a run ------------------------------------------------------

struct status_count {
  std::string status;  // as in task_status_entry
  int64_t count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, status_count& x) {
  return f(caf::meta::type_name("status_count"), x.status, x.count);
}

// The last event of a run: counts by status and the process exit code
// (SPEC section 10: 0, 2, 3, 130). Send flush_output or stop_output after it.
struct run_summary {
  int64_t time = 0;
  std::vector<status_count> counts;
  int32_t exit_code = 0;
  std::string reason;  // one line: why this exit code
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_summary& x) {
  return f(caf::meta::type_name("run_summary"), x.time, x.counts, x.exit_code, x.reason);
}

// ---- output control --------------------------------------------------------

// Write everything received so far (and redraw the board once); replies
// output_flushed when the stream has been flushed.
struct flush_output {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, flush_output&) {
  return f(caf::meta::type_name("flush_output"));
}

// Like flush_output, then the output actor stops its redraw timer and quits
// after replying. The board leaves its last frame on screen.
struct stop_output {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_output&) {
  return f(caf::meta::type_name("stop_output"));
}

struct output_flushed {
  int64_t events_written = 0;  // events rendered since the actor started
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, output_flushed& x) {
  return f(caf::meta::type_name("output_flushed"), x.events_written);
}

using output_actor =
  caf::typed_actor<caf::reacts_to<tasks_scanned>, caf::reacts_to<task_started>,
                   caf::reacts_to<task_finished>, caf::reacts_to<task_failed>,
                   caf::reacts_to<task_blocked>, caf::reacts_to<task_waiting>,
                   caf::reacts_to<attempt_began>, caf::reacts_to<attempt_ended>,
                   caf::reacts_to<failover_done>, caf::reacts_to<promotion_done>,
                   caf::reacts_to<tactical_matched>, caf::reacts_to<supervisor_waiting>,
                   caf::reacts_to<run_summary>, caf::reacts_to<runtime::run_event>,
                   caf::replies_to<flush_output>::with<output_flushed>,
                   caf::replies_to<stop_output>::with<output_flushed>>;

// ---- signals ---------------------------------------------------------------

// Signal watcher -> scheduler: the first SIGINT/SIGTERM arrived. The
// scheduler stops admissions, terminates running agents' process groups,
// records them cancelled, flushes state and exits 130. A second signal makes
// the watcher _exit(130) at once.
struct shutdown_requested {
  int32_t signal_number = 0;  // SIGINT or SIGTERM
  int64_t time = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shutdown_requested& x) {
  return f(caf::meta::type_name("shutdown_requested"), x.signal_number, x.time);
}

// The narrowest handle the signal watcher needs; the scheduler's interface
// includes reacts_to<shutdown_requested>, so its handle converts to this.
using shutdown_listener = caf::typed_actor<caf::reacts_to<shutdown_requested>>;

void add_run_event_messages(caf::actor_system_config& cfg);

} // namespace ad::messages

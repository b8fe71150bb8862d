#pragma once
// Messages and typed interfaces of the claim watcher (actors/claims), the one
// actor per run that notices writes outside the writer's claim
// (docs/claims.md). The attempt side tells it when an agent starts and ends
// (attempt_watch_begin / attempt_watch_end); the task side waits for the
// verdicts on an ended attempt's writes before its next step
// (attempt_watch_judged); it tells the scheduler what a violation holds back
// or stops (claim_violation_noted) and when the violating attempt has ended
// (violating_attempt_ended). Run events, work-log rows and the durable
// record it produces itself. Only the begin and the judged query are
// answered; the rest are fire-and-forget (reacts_to); every struct is a
// value with a free inspect().
// Error contract: no answer is an error; a watcher that cannot watch
// (fanotify refused, a snapshot failed) logs why, answers at once and goes
// on with what it can.
// Registered by add_claims_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "runtime/schedule/admission.hpp"

namespace ad::runtime {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, live_violation& x) {
  return f(caf::meta::type_name("live_violation"), x.path, x.attempt, x.task);
}

} // namespace ad::runtime

namespace ad::messages {

// Attempt side -> watcher: the agent process of attempt `identity` is about
// to start; answered with attempt_watch_ready once the watcher holds what
// it compares the agent's writes with, and the agent is started only then.
// `marker` is its AGENT_DISPATCH_EXECUTION_ID value, `write_paths` the
// task's write set (canonical absolute paths: its claim), `started_at` ms
// since the epoch, UTC. The watcher snapshots the workspace (snapshot mode)
// or from now on judges the writes carrying the marker (fanotify mode).
// `agent_pid` is 0 unless the agent already runs (an adopted attempt's
// agent, or a test's); attempt_watch_agent names it later.
struct attempt_watch_begin {
  std::string task;
  std::string identity;                 // <safe task>__p<plan>__<role>__a<NN>
  std::string marker;
  int32_t agent_pid = 0;                // 0 when not known
  std::vector<std::string> write_paths;
  int64_t started_at = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_watch_begin& x) {
  return f(caf::meta::type_name("attempt_watch_begin"), x.task, x.identity, x.marker, x.agent_pid,
           x.write_paths, x.started_at);
}

struct attempt_watch_ready {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_watch_ready&) {
  return f(caf::meta::type_name("attempt_watch_ready"));
}

// Attempt side -> watcher: the agent of `identity` runs as `agent_pid`
// (fanotify mode remembers it, so the agent's last writes stay its own
// after it exits).
struct attempt_watch_agent {
  std::string identity;
  int32_t agent_pid = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_watch_agent& x) {
  return f(caf::meta::type_name("attempt_watch_agent"), x.identity, x.agent_pid);
}

// Attempt side -> watcher: the agent process of `identity` has exited (or
// was never started after a begin). Every begin needs its end: snapshot
// mode judges the attempt's window here, and tasks held back by its
// violations are admitted only after it.
struct attempt_watch_end {
  std::string identity;
  int64_t ended_at = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_watch_end& x) {
  return f(caf::meta::type_name("attempt_watch_end"), x.identity, x.ended_at);
}

// Task side -> watcher, after attempt `identity` ended (its end was sent
// before its result went out, so the watcher has handled it): answered
// with attempt_watch_done once the writes the watcher has seen until now
// are judged and each violation's effects carried out (under `block`: the
// task's block durable and the scheduler's note sent), so the task's next
// step sees the block. Under `warn` nothing the task does next depends on
// a verdict: answered at once.
struct attempt_watch_judged {
  std::string identity;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_watch_judged& x) {
  return f(caf::meta::type_name("attempt_watch_judged"), x.identity);
}

struct attempt_watch_done {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_watch_done&) {
  return f(caf::meta::type_name("attempt_watch_done"));
}

// Watcher -> scheduler, once the violation is durable: `path` was written
// outside its writer's claim. `live` lists the attempts (writer, or each
// candidate) that still run: a task claiming the path waits for them.
// `stop_task` (policy block, writer known) is the blocked task whose running
// stage the scheduler stops; `reason` is its block reason.
struct claim_violation_noted {
  int64_t time = 0;
  std::string task;    // the writer's task, "" when only candidates are known
  std::string attempt; // the writer's identity, ""
  std::string path;
  std::vector<runtime::live_violation> live;
  std::string stop_task;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_violation_noted& x) {
  return f(caf::meta::type_name("claim_violation_noted"), x.time, x.task, x.attempt, x.path,
           x.live, x.stop_task, x.reason);
}

// Watcher -> scheduler: an attempt named in an earlier note's `live` ended;
// the paths it held back are free.
struct violating_attempt_ended {
  int64_t time = 0;
  std::string attempt;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, violating_attempt_ended& x) {
  return f(caf::meta::type_name("violating_attempt_ended"), x.time, x.attempt);
}

// What the scheduler takes from the watcher (its own interface includes it).
using claim_violation_listener =
  caf::typed_actor<caf::reacts_to<claim_violation_noted>, caf::reacts_to<violating_attempt_ended>>;

// Whoever wires the run -> watcher: from now on, notes go to `listener`.
struct claim_listener_set {
  claim_violation_listener listener;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_listener_set& x) {
  return f(caf::meta::type_name("claim_listener_set"), x.listener);
}

// How the watcher watches, for logs and tests.
struct claim_watch_query {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_watch_query&) {
  return f(caf::meta::type_name("claim_watch_query"));
}

struct claim_watch_info {
  std::string mode;   // fanotify | snapshots
  std::string note;   // why snapshots, when so ("" otherwise)
  int64_t running = 0; // attempts between begin and end
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_watch_info& x) {
  return f(caf::meta::type_name("claim_watch_info"), x.mode, x.note, x.running);
}

// The watcher's note to itself: drain the fanotify queue.
using claims_tick_atom = caf::atom_constant<caf::atom("clm_tick")>;

// The narrowest handle the attempt side needs.
using attempt_watch_actor =
  caf::typed_actor<caf::replies_to<attempt_watch_begin>::with<attempt_watch_ready>,
                   caf::reacts_to<attempt_watch_agent>, caf::reacts_to<attempt_watch_end>>;

// ... and the task side.
using attempt_verdicts_actor =
  caf::typed_actor<caf::replies_to<attempt_watch_judged>::with<attempt_watch_done>>;

using claim_watcher_actor =
  caf::typed_actor<caf::replies_to<attempt_watch_begin>::with<attempt_watch_ready>,
                   caf::reacts_to<attempt_watch_agent>, caf::reacts_to<attempt_watch_end>,
                   caf::replies_to<attempt_watch_judged>::with<attempt_watch_done>,
                   caf::reacts_to<claim_listener_set>, caf::reacts_to<claims_tick_atom>,
                   caf::replies_to<claim_watch_query>::with<claim_watch_info>>;

void add_claims_messages(caf::actor_system_config& cfg);

} // namespace ad::messages

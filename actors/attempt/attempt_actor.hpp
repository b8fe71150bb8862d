#pragma once
// The attempt actor: one agent process for one task and role, followed from
// start to a classified end by one coroutine (actors/core). start_attempt
// opens the attempt folder and writes the locator durably (runtime/attempt),
// appends the START row, tells the run's claim watcher which agent is about
// to start and waits for its answer (attempt_watch_begin; its pid and its
// end follow), starts the pi session watcher for pi, asks the
// process actor to spawn the agent, records pid and start token, then
// follows output, heartbeats (every timing.heartbeat_ms of silence), a
// one-time silence inspection per silence (for pi only outside a running
// tool call), the optional stall limit, a codex review's collaboration
// tool and cancel_attempt, and finally classifies, appends FINISH, writes
// the final locator and answers with attempt_result. It then exits; if it
// is stopped while its agent runs, it asks the process actor to terminate
// the agent's process group. Every resumption runs on this actor. Error
// contract: start_attempt answers errc::state_unavailable when the attempt
// folder or first locator cannot be written (no process started),
// errc::invalid_request for a second start; every other failure is a
// classified attempt_result.

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "actors/core/coroutines.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "messages/attempt.hpp"
#include "messages/claims.hpp"
#include "messages/errc.hpp"
#include "messages/process.hpp"

namespace ad::runtime {
class attempt_run;
class clock;
class trace_writer;
} // namespace ad::runtime

namespace ad::actors {

struct attempt_config {
  messages::process_actor process;
  std::shared_ptr<const runtime::clock> clock;  // wall clock for records
  int dispatcher_pid = 0;
  std::string dispatcher_start_token;
  // `run --trace`: every attempt writes its agent's lines, pi phase
  // reports, silence checks and its classification here as they happen
  // (docs/traces.md). Null: nothing is recorded.
  std::shared_ptr<runtime::trace_writer> trace;
  // The policy's failure-pattern table every attempt classifies with,
  // compiled once for the run (null: the default table).
  std::shared_ptr<const runtime::compiled_failure_patterns> failure_patterns;
  // The agent keeper (ad-keeper, docs/keeper.md) every agent runs under, so
  // that it outlives this dispatcher; empty: agents run as direct children
  // (the process layer's own tests).
  std::string keeper;
  // On a worker node: the node's lease file and lease, which every keeper
  // watches so that it stops its agent once the node's lease has run out
  // (docs/distributed.md). Empty: no lease.
  std::string keeper_lease_file;
  int64_t keeper_lease_ms = 0;
  // The run's claim watcher (actors/claims, docs/claims.md): told when the
  // agent has started (attempt_watch_begin, with its pid and marker) and
  // when it has ended (attempt_watch_end). Null: no one is told.
  messages::attempt_watch_actor claims;
};

// The dispatcher's own pid and start token with the system clock, and the
// keeper found beside this executable (find_keeper_binary; empty when there
// is none).
attempt_config make_attempt_config(messages::process_actor process,
                                   std::shared_ptr<runtime::trace_writer> trace = nullptr);

struct attempt_cancel_signal {};
using attempt_event = std::variant<messages::process_line, messages::process_exit,
                                   messages::process_agent_started, attempt_cancel_signal>;

struct attempt_state {
  static inline const char* name = "attempt";
  attempt_state();
  ~attempt_state();  // terminates a child that still runs
  attempt_config cfg;
  core::event_queue<attempt_event> events;
  std::unique_ptr<runtime::attempt_run> run;
  messages::pi_watcher_actor watcher;
  bool started = false;
  bool cancel_requested = false;
  bool record_lines = false;          // tracing: lines, phases, silence checks
  std::shared_ptr<runtime::trace_writer> lines; // cfg.trace
  uint64_t child = 0;
  bool child_running = false;
  bool watched = false;               // attempt_watch_begin sent, its end not yet
  std::vector<std::string> write_paths; // the task's claim, for the claim watcher
  core::coroutine_host coro;  // last: its frames go first on exit
};

messages::attempt_actor::behavior_type attempt_impl(
  messages::attempt_actor::stateful_pointer<attempt_state> self, attempt_config cfg);

} // namespace ad::actors

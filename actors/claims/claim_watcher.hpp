#pragma once
// The claim watcher of one run (interface messages::claim_watcher_actor,
// docs/claims.md): it notices writes in the workspace outside the writer's
// claim. At its start it opens runtime::write_watch (fanotify) unless the
// kernel refuses it or the policy forces snapshots ("watch": "snapshots");
// otherwise it compares a workspace snapshot taken when an attempt begins
// with one taken when it ends. With fanotify it drains the non-blocking
// queue on a short timer (no thread of its own; while no attempt runs it
// only reads the queue away) and names each agent's pid to the watcher as
// it begins.
//
// Every decision is runtime/claims': claim_monitor keeps the windows and
// judges them (judge_claim_writes), decide_violation says what a violation
// does. The actor carries that out in order: the durable record (and the
// block) through the state store, then the run event to the output actor,
// the CLAIM work-log row, and the note to the scheduler (claim_listener_set
// names it). A violating attempt's end is told to the scheduler only after
// every note that named it. Under `block`, the task side's question whether
// an ended attempt's writes are judged (attempt_watch_judged) is answered
// only once no judgement is in flight and no write drained by then still
// waits for its settle time: the block is durable before the task's next
// step. It never answers with an error: a watch that
// cannot be opened, a snapshot that fails, a refused durable write or work
// log are logged and the run goes on.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "messages/claims.hpp"
#include "messages/run_events.hpp"
#include "messages/state.hpp"
#include "runtime/claims/claim_monitor.hpp"
#include "runtime/claims/claim_scope.hpp"
#include "runtime/claims/workspace_snapshot.hpp"
#include "runtime/claims/write_watch.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/policy/policy.hpp"

namespace ad::actors {

struct claim_watcher_config {
  std::string workspace;  // canonical workspace root
  std::string state_root; // the dispatcher's state root: never a violation
  std::string runs_dir;   // attempt folders (the locator column of CLAIM rows)
  runtime::policy_claims policy;
  messages::state_store_actor store;
  messages::output_actor out; // may be null: nothing is shown
  std::shared_ptr<const runtime::clock> clock;
  std::chrono::milliseconds tick{200};
  // fanotify: how long a created file must live to count (temporary files
  // renamed into place do not; claim_monitor_options::settle).
  std::chrono::milliseconds settle{1000};
  std::chrono::milliseconds store_timeout{60'000};
  // The agent CLIs' own folders inside the workspace.
  std::vector<std::string> exempt{".codex", ".claude", ".pi"};
  runtime::write_watch_options watch; // its mode follows policy.watch
  runtime::snapshot_limits limits;
};

struct claim_watcher_state {
  static inline const char* name = "claim_watcher";
  claim_watcher_config cfg;
  std::optional<runtime::claim_scope> scope;   // none: the workspace cannot be watched
  std::optional<runtime::write_watch> watch;   // fanotify mode
  std::string note;                            // why snapshots (or nothing at all)
  runtime::claim_monitor monitor;
  std::map<std::string, runtime::workspace_snapshot> before; // snapshot mode, by identity
  messages::claim_violation_listener listener;
  bool ticking = false;
  int in_flight = 0;                  // judgements whose notes are not sent yet
  std::vector<std::string> ended;     // violating attempts' ends waiting for those notes
  // attempt_watch_judged questions waiting for the judgements (and the
  // settle times of the writes drained until `until`).
  struct awaiting_verdicts {
    runtime::millis until = 0;
    caf::typed_response_promise<messages::attempt_watch_done> rp;
  };
  std::vector<awaiting_verdicts> awaiting;
};

messages::claim_watcher_actor::behavior_type claim_watcher_impl(
  messages::claim_watcher_actor::stateful_pointer<claim_watcher_state> self,
  claim_watcher_config cfg);

} // namespace ad::actors

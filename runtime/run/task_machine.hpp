#pragma once
// The lifecycle of one admitted stage of one task (SPEC sections 3, 6, 7) as
// one pure machine, in the spirit of ninja's Plan: a typed event goes in
// (with the one clock reading of its handling), the machine moves to its
// next phase and returns the typed commands its owner must carry out, in
// order. The machine chooses the target (or waits for cooling targets or a
// durable quota reset, or blocks), builds each attempt order, asks for every
// change to be made durable before the action that depends on it (decision
// and attempt start before the launch, the write set after an attempt before
// the supervisor reads it, a step's changes before the task acts on it),
// applies the stage step after a success and the supervisor's step after a
// failure, and ends the task with an outcome. A stop ends a waiting task at
// once, cancels a running attempt, and otherwise ends the task before its
// next wait or launch.
//
// Everything it reads arrives in events: the task state (task_state_read),
// the files it asks for (launch_read, attempt_read), the supervisor's step,
// and, when the policy sets limits, what the task and the run have spent
// (spend_read) before each attempt it starts: a reached ceiling
// (check_ceiling) blocks the task instead of starting it. Without limits
// there is no such read; an adopted attempt is never checked.
// The task actor (actors/task/task_actor) is its interpreter; the
// message trace records each event and the commands it produced
// (task.event -> task.commands), and replay feeds the recorded events to a
// new machine and compares its commands. Single owner, no I/O, no clock of
// its own, never throws. An event that does not fit the phase (a late timer,
// an answer nobody waits for) changes nothing and returns no command.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/selection.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/tactical.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/report/run_event.hpp"
#include "runtime/run/attempt_order.hpp"
#include "runtime/run/named_paths.hpp"
#include "runtime/run/stage_steps.hpp"
#include "runtime/run/task_spec.hpp"
#include "runtime/schedule/review_outcome.hpp"
#include "runtime/schedule/runtime_identity.hpp"
#include "runtime/state/change.hpp"
#include "runtime/workspace/checklist.hpp"

namespace ad::runtime {

// What every task of a run decides with besides its events. The policy and
// zone must outlive every machine made with this context.
struct task_context {
  const policy* pol = nullptr;
  const time_zone* zone = nullptr;
  std::string workspace; // canonical workspace root
  std::string workspace_id;
  std::string task_root; // <workspace>/agent-task
  std::string runs_dir;  // <state root>/runs
  // What each adapter's installed CLI accepts, by adapter name.
  std::map<std::string, cli_capabilities> cli_caps;
  attempt_timing timing;
  // Distributed mode: the attempt host places each attempt on a worker
  // node, asked before the start (task_cmd::place_attempt).
  bool place_on_nodes = false;
};

// What the task's files said before an attempt started.
struct launch_reading {
  std::vector<file_snapshot> write_set; // the write set now (before the attempt)
  // Asked for before a review: the verdict sources seen and the progress
  // signature of the task folder and write set.
  seen_sources review_seen;
  std::string review_signature;
};

// What the task's files said after an attempt ended.
struct attempt_reading {
  std::vector<file_snapshot> write_set; // the write set now (after the attempt)
  // After a success, by stage: the runtime identity in the locator (worker),
  // the checklist (self-check), or the review folders (review: observed is
  // false when they could not be read) and the progress signature now.
  attempt_identity runtime_identity;
  checklist_reading checklist;
  bool review_observed = false;
  review_observation review;
  std::string review_signature;
  // After a failure: the files the failure's message names, and the tail of
  // the attempt's stream log.
  std::vector<named_file> named_files;
  std::string stream_tail;
};

// Who answered a request with an error.
enum class task_peer : uint8_t { state_store, supervisor, attempt };
std::string_view to_string(task_peer peer); // "state store", "supervisor", "attempt"

namespace task_ev {
struct begun {};                  // the task actor started
struct cooldowns_read {           // the supervisor's shared quota cool-downs
  target_cooldowns cooldowns;
};
struct task_state_read {          // the task's durable state
  bool found = false;
  task_state state;
};
struct durable {};                // the changes asked for last are durable
struct launch_read {              // answer to task_cmd::read_for_launch
  launch_reading reading;
};
struct attempt_finished {         // the attempt host's answer
  attempt_result result;
};
struct attempt_read {             // answer to task_cmd::read_after_attempt
  attempt_reading reading;        // named_files empty: they come with named_files_read
};
struct named_files_read {         // answer to task_cmd::read_named_files
  std::vector<named_file> files;
};
struct supervisor_decided {       // the supervisor's answer
  next_step step;
  std::vector<state_change> changes; // durable before the task acts on step
  std::vector<tactical_event> events;
};
struct placed {                   // answer to task_cmd::place_attempt
  std::string node;               // "": none now, see waiting_reason
  std::string waiting_reason;
};
struct spend_read {               // answer to task_cmd::read_spend
  token_usage task;               // what the task has spent, every stage
  token_usage run;                // what the run has spent, every task
};
struct woke {};                   // the timer of task_cmd::wake_at fired
struct stop {};                   // the run stops (SIGINT, shutdown)
struct request_failed {           // a request was answered with an error
  task_peer peer = task_peer::state_store;
  std::string error;
};
} // namespace task_ev

using task_event =
  std::variant<task_ev::begun, task_ev::cooldowns_read, task_ev::task_state_read, task_ev::durable,
               task_ev::launch_read, task_ev::attempt_finished, task_ev::attempt_read,
               task_ev::named_files_read, task_ev::supervisor_decided, task_ev::placed,
               task_ev::spend_read, task_ev::woke, task_ev::stop, task_ev::request_failed>;

namespace task_cmd {
struct read_cooldowns {};         // ask the supervisor; answer: cooldowns_read
struct read_task_state {};        // ask the state store; answer: task_state_read
struct make_durable {             // ask the state store; answer: durable
  std::vector<state_change> changes;
};
struct read_spend {};             // ask the state store; answer: spend_read
struct read_for_launch {          // read the files; answer: launch_read
  bool review_baseline = false;
};
struct start_attempt {            // ask the attempt host; answer: attempt_finished
  attempt_order order;
};
struct adopt_attempt {            // ask the attempt host; answer: attempt_finished
  attempt_order order;            // the adopted attempt, as this policy describes it
  std::string locator;
  int64_t keeper_pid = 0;
  std::string keeper_start_token;
};
struct place_attempt {            // ask the attempt host; answer: placed
  std::string identity;
  std::string task;
  std::string adapter;
};
struct cancel_attempt {           // tell the attempt host (no answer)
  std::string identity;
};
struct read_after_attempt {       // read the files; answer: attempt_read
  bool succeeded = false;         // the stage's success reading, else the stream tail
  std::string locator;            // the attempt's locator.json
  std::string stream_log;         // its stream.log
};
struct read_named_files {         // read the files; answer: named_files_read
  named_path_query query;
};
struct ask_supervisor {           // answer: supervisor_decided
  supervisor_request request;
  task_state state;
};
struct wake_at {                  // a timer; answer: woke
  millis at = 0;
};
struct checkpoint {               // a named point a crash test may stop at
  std::string name;
  std::string role;               // the attempt's role, where there is one
};
struct remove_attempt_logs {};    // the task completed: its attempt folders go
struct show {                     // a run event for the output
  run_event event;
};
struct note {                     // a line for the debug log
  std::string text;
};
struct end_task {                 // tell the scheduler, then stop
  std::string outcome;            // advance | complete | pause | blocked | cancelled | error
  std::string reason;
  millis pause = 0;
};
} // namespace task_cmd

using task_command =
  std::variant<task_cmd::read_cooldowns, task_cmd::read_task_state, task_cmd::make_durable,
               task_cmd::read_spend, task_cmd::read_for_launch, task_cmd::start_attempt,
               task_cmd::adopt_attempt, task_cmd::place_attempt, task_cmd::cancel_attempt,
               task_cmd::read_after_attempt, task_cmd::read_named_files,
               task_cmd::ask_supervisor, task_cmd::wake_at,
               task_cmd::checkpoint, task_cmd::remove_attempt_logs, task_cmd::show,
               task_cmd::note, task_cmd::end_task>;

enum class task_phase : uint8_t {
  begin_cooldowns,    // reading the cool-downs
  begin_state,        // reading the task state to choose a target
  begin_blocking,     // making a block of the target choice durable
  begin_wait_persisting, // making a wait for cooling targets durable
  begin_waiting,      // a timer: cooling targets or a durable quota reset
  launch_state,       // reading the task state before a launch
  launch_spending,    // reading what the task and run spent (limits set)
  launch_reading,     // reading the files before a launch
  launch_persisting,  // making the decision and attempt start durable
  launch_cancelling,  // a stop came before the start: clearing the stage
  launch_blocking,    // the step named an unknown target: blocking
  running,            // the attempt runs
  after_reading,      // reading the files after the attempt
  after_naming,       // reading the files a failure's message names
  after_persisting,   // making the write set after the attempt durable
  after_state,        // reading the task state after the attempt
  cancel_persisting,  // the attempt ended after a stop: clearing the stage
  step_persisting,    // making the stage step after a success durable
  supervising,        // waiting for the supervisor's step
  decision_persisting,// making the supervisor's changes durable
  block_persisting,   // the step blocks: clearing the stage
  launch_waiting,     // a timer before the next launch (backoff, reset wait)
  placing,            // asking the attempt host for a node
  placing_waiting,    // a timer before asking again (no node free)
  ended,
};
std::string_view to_string(task_phase phase);

class task_machine {
public:
  task_machine(const task_context& ctx, task_spec spec);

  // One event handled at `now`: the commands to carry out, in order.
  std::vector<task_command> step(millis now, const task_event& event);

  task_phase phase() const noexcept { return phase_; }
  bool ended() const noexcept { return phase_ == task_phase::ended; }
  const task_spec& spec() const noexcept { return spec_; }
  // The identity of the attempt launched last ("" before the first).
  const std::string& identity() const noexcept { return identity_; }

private:
  using out_t = std::vector<task_command>;

  void begin(out_t& out);
  void decide_begin(millis now, out_t& out);
  void adopt(millis now, out_t& out);
  void launch(millis now, std::string target, std::string prompt, std::vector<state_change> pre,
              std::string handoff, std::string native_session, out_t& out);
  void launch_within_limits(millis now, const task_ev::spend_read& spent, out_t& out);
  void read_for_launch(out_t& out);
  void launch_after_reading(millis now, const launch_reading& reading, out_t& out);
  void attempt_ended(millis now, const attempt_result& r, out_t& out);
  void after_reading(millis now, attempt_reading reading, out_t& out);
  // The changes that record the ended attempt's end: its write set after
  // it, and what it spent (when it reported anything).
  std::vector<state_change> end_changes() const;
  // What the ended attempt spent, when it reported anything.
  void add_spend(std::vector<state_change>& changes) const;
  void on_durable(millis now, out_t& out);
  void settle(millis now, out_t& out);
  void on_supervised(millis now, task_ev::supervisor_decided d, out_t& out);
  void after_decision(millis now, out_t& out);
  void start_placed(millis now, const std::string& node, out_t& out);
  void on_placed(millis now, const task_ev::placed& p, out_t& out);
  void wait_then(millis now, millis until, task_phase waiting, out_t& out);
  void persist(millis now, std::vector<state_change> changes, task_phase next, out_t& out);
  void end(std::string outcome, std::string reason, millis pause, out_t& out);
  void show(run_event e, out_t& out);
  run_event event(run_event_kind kind, millis now) const;

  const task_context* ctx_;
  task_spec spec_;
  task_phase phase_ = task_phase::begin_cooldowns;
  task_state st_;
  target_cooldowns cooldowns_;
  bool cancelled_ = false;
  std::string placing_reason_;  // the last waiting reason shown while placing
  bool started_shown_ = false;
  bool cost_unknown_noted_ = false;
  std::string end_reason_;     // of a block under way
  millis cooldown_until_ = 0;  // the end of a cool-down wait being made durable
  // The launch under way: its target, prompt, changes and handoff.
  struct pending_launch {
    std::string target;
    std::string prompt;
    std::vector<state_change> pre;
    std::string handoff;
    std::string native_session;
  } launch_;
  attempt_order order_;        // of the attempt launched last
  std::string identity_;       // its identity
  std::string target_;         // its target
  std::string last_locator_;   // of the attempt that ended last
  seen_sources review_seen_;   // before the review attempt
  std::string review_signature_;
  attempt_result result_;      // of the attempt that ended last
  attempt_reading reading_;    // after it
  // The supervisor's step being carried out, and the wait's target.
  task_ev::supervisor_decided decided_;
  stage_step stage_step_;
};

// The stage step after a successful attempt of spec's stage, decided on
// the task state and the readings alone.
stage_step step_after_success(const task_spec& spec, const task_state& st, const policy& pol,
                              const attempt_reading& reading, const seen_sources& review_seen,
                              const std::string& review_signature);

// The trace's JSON forms of events and commands (task.event, task.commands);
// a decoder returns invalid_argument naming the member at fault.
json to_json(const task_event& e);
result<task_event> task_event_from_json(const json& j);
json to_json(const task_command& c);
json commands_to_json(const std::vector<task_command>& cs);
std::string_view event_name(const task_event& e);     // "begun", "durable", ...
std::string_view command_name(const task_command& c); // "make_durable", ...

} // namespace ad::runtime

#pragma once
// The typed changes that are the only way the durable state moves, and the
// pure function that applies one. The journal stores these changes (never
// whole states); replaying them in order with apply_change() rebuilds the state, so
// apply_change() must stay deterministic: it reads nothing but its arguments.
//
// Contract of apply_change(): it returns OK and mutates the state, or returns a
// non-OK status (not_found for an unknown task/scope, conflict for a failed
// precondition) and leaves the state untouched. A rejected change is still
// a durable journal entry; replay rejects it again the same way. Task-scoped
// changes other than begin_work_unit need the task to exist. Never throws.
//
// Two transitions are single changes on purpose: record_attempt_started
// records the new attempt's locator and consumes the pending retry handoff
// in one journal entry (SPEC section 7), and replace_claim swaps a task's
// whole write claim at once.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// -- per task ---------------------------------------------------------------

// Creates the task, or resets its state to a fresh one (keeping nothing)
// when work_unit_id differs from the recorded one. Same id: no-op.
struct begin_work_unit {
  std::string task;
  std::string work_unit_id;
};

enum class task_flag : uint8_t { worker_done, selfcheck_done };

struct set_task_flag {
  std::string task;
  task_flag flag = task_flag::worker_done;
  bool value = false;
};

struct set_blocked {
  std::string task;
  blocked_info info;
};

struct clear_blocked {
  std::string task;
};

// Sets active stage and locator (clear_active_stage empties both).
struct set_active_stage {
  std::string task;
  std::string stage;
  std::string locator;
};

struct clear_active_stage {
  std::string task;
};

struct set_counter {
  std::string task;
  std::string name;
  int64_t value = 0;
};

// failure_budgets[stage] += 1 for the task's current work unit.
struct record_failure {
  std::string task;
  std::string stage;
};

// failure_budgets[stage] = 0; an empty stage clears every stage.
struct reset_failures {
  std::string task;
  std::string stage;
};

// decisions[decision.stage] = decision, and appended to route_history.
struct record_decision {
  std::string task;
  shared_decision decision;
};

struct set_completing_decision {
  std::string task;
  shared_decision decision;
};

struct set_quota_snapshot {
  std::string task;
  quota_snapshot quota;
};

struct set_retry_handoff {
  std::string task;
  retry_handoff handoff;
};

struct clear_retry_handoff {
  std::string task;
};

// One attempt started: attempt_counters[(task, plan, role)] becomes at least
// `attempt`, the active stage and locator are set, and when
// consume_handoff_id is not empty the pending retry handoff with that id is
// consumed. A handoff id that does not match the pending one is a conflict
// and nothing changes.
struct record_attempt_started {
  std::string task;
  std::string stage;
  int64_t plan = 0;
  std::string role;
  int64_t attempt = 0;
  std::string locator;
  std::string consume_handoff_id;
};

struct set_intervention {
  std::string task;
  intervention_context context;
};

struct clear_intervention {
  std::string task;
};

// Stores the before or after snapshot of an attempt's write set.
struct record_write_set {
  std::string task;
  std::string attempt_id;
  snapshot_phase phase = snapshot_phase::before;
  shared_value<std::vector<file_snapshot>> files;
};

// Forgets a task (its state and attempt counters; claims are separate).
struct remove_task {
  std::string task;
};

// -- workspace-wide ---------------------------------------------------------

struct set_attempt_counter {
  attempt_key key;
  int64_t value = 0;
};

// The owner's claim becomes exactly `claim` (created if absent).
struct replace_claim {
  std::string owner;
  write_claim claim;
};

struct release_claim {
  std::string owner;
};

struct observed_task {
  std::string task;
  std::vector<std::string> archive_baseline;
};

// Starts (or restarts, when absent or complete) the scope's record as
// running, then adds each task not yet tracked as active with its baseline.
// Tasks already tracked keep their first-sight baseline.
struct observe_orchestration {
  std::string scope;
  std::vector<observed_task> tasks;
};

struct set_orchestration_status {
  std::string scope;
  orchestration_status status = orchestration_status::running;
};

struct complete_orchestration_task {
  std::string scope;
  std::string task;
  std::string archive;
};

// A write outside the writer's claim was judged (claim_violation_record's
// fields). Appended to state_model::claim_violations unless a record of the
// same task, attempt, path and candidates is there already; beyond
// max_claim_violations records the oldest is dropped. invalid_argument
// without a path or with an attribution other than fanotify, elimination,
// candidates. Blocking the task (policy `block`) is a separate set_blocked.
struct record_claim_violation {
  std::string task;
  std::string attempt;
  std::string path;
  std::string other_task;
  std::string attribution;
  std::vector<std::string> candidates;
  std::string action;
  millis at = 0;
};

// What a finished attempt spent (its identity, task, policy target and
// usage): replaces the attempt's record when there is one, so an attempt
// recorded twice counts once. Needs no task record.
struct record_attempt_usage {
  std::string attempt_id;
  std::string task;
  std::string target;
  token_usage usage;
};

using state_change =
  std::variant<begin_work_unit, set_task_flag, set_blocked, clear_blocked, set_active_stage,
               clear_active_stage, set_counter, record_failure, reset_failures, record_decision,
               set_completing_decision, set_quota_snapshot, set_retry_handoff,
               clear_retry_handoff, record_attempt_started, set_intervention,
               clear_intervention, record_write_set, remove_task, set_attempt_counter,
               replace_claim, release_claim, observe_orchestration, set_orchestration_status,
               complete_orchestration_task, record_claim_violation,
               record_attempt_usage>;

// Applies one change (see the contract above).
status apply_change(state_model& state, const state_change& change);

// The change's operation name as written in the journal ("replace_claim").
std::string change_name(const state_change& change);

// JSON mapping of changes. change_to_json never throws; change_from_json
// returns corruption() naming `source` on an unknown op or a bad field
// (read by change_reader.cpp, as the journal's entries are).
json change_to_json(const state_change& change);
result<state_change> change_from_json(const json& j, std::string_view source);

// A list of changes as one JSON array text (used by messages crossing hosts).
std::string changes_to_json_text(const std::vector<state_change>& changes);
result<std::vector<state_change>> changes_from_json_text(std::string_view text,
                                                         std::string_view source);

} // namespace ad::runtime

#pragma once
// The admission pass of SPEC section 4: given the tasks to examine, the write
// claims held in the workspace, every live task of the workspace (this
// dispatcher's and others') and --max-parallel, decide for each task whether
// it starts now (and which claim it takes), is tracked as already running
// (its claim adopted), waits, or is blocked, each with one stable human
// reason. A pure function: the caller persists `claims_taken` (durably,
// before any start) and starts `admitted` in order. The same call serves
// --dry-run, where nothing is persisted. Never throws.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/schedule/task_view.hpp"

namespace ad::runtime {

enum class admission_kind : uint8_t {
  admit,             // start now; `claim` is what it holds
  running_here,      // followed by this dispatcher: never started again
  running_elsewhere, // alive in another dispatcher or from before a restart
  wait,              // will become runnable by itself: see `cause`
  blocked,           // needs a change to the folder, the state or a human
  complete,          // nothing to do
};

std::string_view to_string(admission_kind kind);

enum class wait_cause : uint8_t {
  none,
  task_blocked,         // blocked: task errors, USER_REVIEW, persisted block
  dependency_ambiguity, // blocked
  no_write_set,         // blocked: never admitted without a valid write set
  predecessor_live,     // wait
  predecessor_missing,  // wait
  claim_conflict,       // wait
  exclusive_claim,      // wait
  capacity,             // wait, without taking a claim
  violation_pending,    // wait: a path it claims was written outside a claim by a running attempt
};

// A path written outside its writer's claim by an attempt that still runs
// (docs/claims.md): a task whose write set holds the path is not admitted
// until that attempt has ended, so its agent never starts on a file another
// agent is still changing. When the writer is not known (several attempts
// ran), every candidate attempt that still runs has its own entry.
struct live_violation {
  std::string path;    // canonical absolute
  std::string attempt; // the running attempt's identity
  std::string task;    // its task
  bool operator==(const live_violation&) const = default;
};

struct admission_entry {
  std::string task;
  view_stage stage = view_stage::worker;
  admission_kind kind = admission_kind::wait;
  wait_cause cause = wait_cause::none;
  std::string reason; // one line; empty for admit and complete
  write_claim claim;  // admit, running_*: the claim the task holds afterwards
};

struct admission_input {
  // The tasks to examine: every task after a full scan, or the re-examine
  // set after a finish (see runtime/run/pass_planner.hpp). Order does not matter.
  std::vector<task_view> tasks;
  // Claims persisted in state, owner task -> claim (state_model::claims).
  std::map<std::string, write_claim> claims;
  // Every task of the workspace with a live attempt, this dispatcher's and
  // other dispatchers', also outside --task-group. Tasks in `tasks` whose
  // `live` is not none count as well even when missing here.
  std::vector<live_task> live;
  int max_parallel = 0; // 0 (or less) = unlimited; the CLI rejects negatives
  // Paths written outside a claim by attempts still running; a task whose
  // write set holds one waits (its own attempts' entries do not count).
  std::vector<live_violation> violations;
};

struct admission_plan {
  // One entry per examined task, sorted by (index, name).
  std::vector<admission_entry> entries;
  // Tasks to start, in admission order (reviews, then index, then name).
  std::vector<std::string> admitted;
  // New or changed claims to persist before starting anything: the claims of
  // admitted tasks and claims adopted for running tasks that held none.
  std::map<std::string, write_claim> claims_taken; // owner -> claim
  // Tasks deferred only for capacity: re-examined after every finish.
  std::vector<std::string> capacity_waiters;
  int occupied = 0; // live tasks counted against --max-parallel, before admission
};

// Reasons (stable, one line):
//   "claim conflict with <owner> on <path>"
//   "exclusive claim held by <owner> (its write set is unknown)"
//   "no valid write set: <error>"
//   "capacity: <n> of <max> running"
//   "<path> was written outside its claim by running attempt <attempt> of <task>"
//   "running here" / "running elsewhere: <detail>"
admission_plan plan_admission(const admission_input& input);
// The same decision over views kept elsewhere (the pass planner keeps each
// task's view between passes): `tasks` stands for input.tasks, which is not
// read. Nothing is copied from the views; they must outlive the call.
admission_plan plan_admission(const admission_input& input,
                              const std::vector<const task_view*>& tasks);

} // namespace ad::runtime

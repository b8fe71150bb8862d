#pragma once
// Stage derivation (SPEC section 3): the stage of a task is computed afresh
// from its scanned folder and a small value holding what durable state knows
// about it (task_progress). The state module maps its records onto
// task_progress; nothing here reads or writes state. Order of the rules:
//   blocked      task errors (or a USER_REVIEW beside an active PLAN/REVIEW, or
//                worker done without a valid completing decision)
//   user-review  a complete USER_REVIEW.md stop request
//   review       a recovery folder without a full PLAN/REVIEW pair, a verdict
//                in the active CODE_REVIEW, or worker done with self-check done
//                or not needed
//   selfcheck    worker done on a local model, self-check not done
//   worker       otherwise
// Pure functions; never fail.

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

enum class task_stage : uint8_t { blocked, user_review, review, selfcheck, worker };

std::string_view to_string(task_stage stage);

// What persisted state says about the decision whose target completed the
// worker stage (SPEC section 3: the completing decision).
enum class completing_decision : uint8_t {
  missing,      // none recorded
  invalid,      // recorded but it no longer satisfies the task or policy
  local_model,  // valid, made on a local model: a self-check is required
  cloud_model,  // valid, made on a cloud model: no self-check
};

// An agent process currently attributed to the task.
enum class task_activity : uint8_t {
  idle,   // no active stage recorded
  live,   // an active stage whose agent still runs (here or elsewhere)
  stale,  // an active stage whose agent is gone (it is cleared and resumed)
};

// The per-task facts from durable state that stage derivation and the dry run
// need. Default-constructed means "nothing recorded": a fresh task.
struct task_progress {
  bool worker_done = false;
  bool selfcheck_done = false;
  completing_decision completing = completing_decision::missing;
  std::string blocked_reason;   // non-empty: blocked by an earlier failure
  std::string active_stage;     // "worker", "selfcheck", "review" or empty
  task_activity activity = task_activity::idle;
  std::string active_detail;    // e.g. "pid 4242 alive; idle 12 s"
};

task_stage derive_stage(const scanned_task& task, const task_progress& progress);

} // namespace ad::runtime

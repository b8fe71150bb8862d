#pragma once
// The scheduler's own, minimal picture of a task and of the write claims held
// in a workspace. Every admission decision is a pure function of these values;
// the scheduler actor builds them from the workspace scan, the task state and
// the liveness probes, so the decisions stay testable and replayable. Write
// claims are the state model's own `write_claim` values (owner -> claim). Nothing
// here touches the file system, the clock or the state store; nothing throws.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/state/model.hpp" // write_claim, claim_kind

namespace ad::runtime {

// The stage a task stands at when a pass looks at it (SPEC section 3).
enum class view_stage : uint8_t { blocked, user_review, review, selfcheck, worker, complete };

// "blocked", "user-review", "review", "selfcheck", "worker", "complete".
std::string_view to_string(view_stage stage);

// Where an agent for the task is alive right now.
enum class live_where : uint8_t {
  none,      // no live attempt
  here,      // an attempt this dispatcher started and still follows
  elsewhere, // another dispatcher's attempt, or one that survived a restart
};

std::string_view to_string(live_where where);

// Whether the task's PLAN yields a usable write set.
enum class write_set_kind : uint8_t { valid, unknown };

// One predecessor named in the subtask folder (`03+01,02_x` names 01 and 02)
// and the folders with complete.log that match it, in the group or its
// archive. Exactly one match satisfies the dependency; more is an ambiguity.
struct predecessor_view {
  int index = 0;
  std::vector<std::string> complete_matches;
  bool operator==(const predecessor_view&) const = default;
};

struct task_view {
  std::string name;  // "auth/02+01_api", or "auth" for a group that is one task
  std::string group; // "auth"
  int index = 0;     // subtask index (02); 0 for a group that is one task
  view_stage stage = view_stage::worker;
  // Non-empty when the task may not run: task errors, a waiting or incomplete
  // USER_REVIEW, a persisted block. The text is the human reason.
  std::string blocked_reason;
  std::vector<predecessor_view> predecessors;
  write_set_kind write_set = write_set_kind::unknown;
  std::vector<std::string> write_paths; // canonical absolute paths, when valid
  std::string write_set_error;          // why the write set is unknown
  live_where live = live_where::none;
  std::string live_detail; // e.g. "pid 4242 alive (idle 3m)"; shown in the reason
  // Equal views get equal admission decisions under equal claims and live sets.
  bool operator==(const task_view&) const = default;
};

// A task known to have a live attempt, by name only: the scheduler passes
// every live task of the workspace, also those outside --task-group.
struct live_task {
  std::string name;
  live_where where = live_where::elsewhere;
};

// The subtask index of a task name ("auth/02+01_api" -> 2); nullopt when the
// last component does not start with two digits followed by '+' or '_'.
std::optional<int> subtask_index_of(std::string_view task_name);

// "01" for 1: the two-digit form used in folder names and reasons.
std::string two_digit(int index);

} // namespace ad::runtime

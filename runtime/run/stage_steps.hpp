#pragma once
// The task stage machine of SPEC section 3 as pure steps: what a successful
// worker, self-check or review attempt changes in durable state, and what
// the task does next. The task actor reads the files (locator, checklist,
// review observation, progress snapshot) and hands the readings in; these
// functions only decide and list the state changes to make durable before
// the task moves on. They never read files or the clock and never throw.

#include <optional>
#include <string>
#include <vector>

#include "runtime/policy/policy.hpp"
#include "runtime/schedule/review_outcome.hpp"
#include "runtime/schedule/review_progress.hpp"
#include "runtime/schedule/runtime_identity.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/checklist.hpp"

namespace ad::runtime {

enum class stage_next : uint8_t {
  advance,  // the stage is done: rescan, the next stage follows
  complete, // the task is complete (archived with complete.log)
  pause,    // unchanged review: run the review again after `pause`
  blocked,  // blocked with `reason`
};

std::string_view to_string(stage_next n);

struct stage_step {
  stage_next next = stage_next::advance;
  std::vector<state_change> changes; // durable before the task moves on
  std::string reason;                // blocked: why; pause: the warning
  millis pause = 0;
};

// A worker attempt succeeded. The stage's current decision must be a worker
// decision of the task's work unit whose target's (adapter, model) equals
// what the attempt ran with; then worker_done and the completing decision
// are recorded. A mismatch or a missing decision blocks the task.
stage_step after_worker_success(const std::string& task, const task_state& st, const policy& pol,
                                const attempt_identity& actual);

// A self-check attempt succeeded. A complete checklist records
// selfcheck_done; otherwise the round counter grows and at the policy's
// selfcheck_incomplete budget the task is blocked.
stage_step after_selfcheck_success(const std::string& task, const task_state& st,
                                   const policy& pol, const checklist_reading& checklist);

// A review attempt ended successfully. `outcome` is the classification of
// what the review did; `progress` the no-progress step computed from the
// signatures before and after (counter in "review_no_progress").
stage_step after_review(const std::string& task, const review_outcome& outcome,
                        const progress_step& progress);

// Everything a finished review is decided on, as the task actor reads it:
// the verdict sources seen before the review, the task's folders after it
// (observed false when they could not be read) and the progress signatures
// of the task folder and write set before and after.
struct review_reading {
  bool observed = false;
  review_observation after;
  seen_sources before;
  std::string signature_before;
  std::string signature_after;
};

// The JSON form of a review reading in the message trace (sources with
// path, sha256, mtime, kind and verdict label; the seen set as [path,
// sha256] pairs); the decoder returns invalid_argument naming the member.
json review_reading_body(const review_reading& r);
result<review_reading> review_reading_from_json(const json& j);

// A review attempt ended successfully: classifies the reading, steps the
// no-progress counter (policy budget review_no_progress) and decides with
// after_review; a completion also carries completion_changes for the task's
// group, and its reason is the archive folder.
stage_step after_review_reading(const std::string& task, std::string_view task_folder,
                                const task_state& st, const policy& pol,
                                const review_reading& reading);

// The changes that finish a completed task: its claim is released, its
// active stage cleared, and its orchestration record (scope) marks it
// complete at `archive`.
std::vector<state_change> completion_changes(const std::string& task, const std::string& scope,
                                             const std::string& archive);

// The name of the counter the review no-progress limit uses.
inline constexpr const char* review_no_progress_counter = "review_no_progress";
inline constexpr const char* selfcheck_rounds_counter = "selfcheck_rounds";

} // namespace ad::runtime

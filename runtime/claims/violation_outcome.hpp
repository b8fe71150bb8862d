#pragma once
// What one write outside a claim does in a run (docs/claims.md), decided
// once, here: the durable record (record_claim_violation, plus set_blocked
// of the writer's task when the policy says block and the writer is known),
// the claim_violation run event, the work-log rows (CLAIM, the path in the
// result column) and what the scheduler must hear (the paths that hold
// admission back while their writers run, the task to stop). The claim
// watcher carries the outcome out: changes first (durable), then the event,
// the rows and the scheduler's note. Pure apart from find_attempt_locator();
// never throws, never fails.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "runtime/claims/claim_monitor.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/report/run_event.hpp"
#include "runtime/state/change.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::runtime {

// Role and attempt counter of an identity `<safe task>__p<plan>__<role>__a<NN>`;
// role "" and attempt 0 when it has another shape.
struct identity_parts {
  std::string role;
  int attempt = 0;
};
identity_parts parse_attempt_identity(std::string_view identity);

struct work_log_append {
  std::filesystem::path log; // agent-task/<group>/WORK_LOG.md
  work_log_event row;
};

struct violation_outcome {
  std::vector<state_change> changes; // durable before anything below
  run_event event;                   // kind claim_violation
  std::vector<work_log_append> rows; // the writer's group log; each candidate's without one writer
  std::vector<live_violation> live;  // from claim_monitor::live_after
  std::string stop_task;             // block: the writer's task, its running stage is stopped
  std::string block_reason;          // the task's blocked reason (names the path)
};

struct violation_input {
  const claim_violation* violation = nullptr;
  // The attempts the monitor knows (writer and candidates among them).
  const std::map<std::string, watched_attempt>* attempts = nullptr;
  std::vector<live_violation> live;
  violation_action action = violation_action::warn;
  std::filesystem::path workspace;
  millis now = 0;
};

violation_outcome decide_violation(const violation_input& in);

// <runs_dir>/<stamp>__<identity>/locator.json when such a folder exists
// (the newest stamp when several do), else "". Reads the folder's entries.
std::string find_attempt_locator(const std::filesystem::path& runs_dir, std::string_view identity);

} // namespace ad::runtime

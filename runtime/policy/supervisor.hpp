#pragma once
// The supervisor's decision function (SPEC section 7): after a failed
// attempt, given the failure, the task's durable state (runtime/state), the
// policy and the time, it answers with the next step (retry the same target,
// fail over, promote, resume a native session, wait until a quota reset, or
// block) plus the state changes that must be durable before the step is
// taken (budget counts, decisions, quota marks, intervention context, block
// record) and the tactical diagnostic events. It also owns the success reset,
// the `--retry-blocked` clearing with its retry handoff, backoff and prompt
// rendering. A CLI that refused its command line (launch-refused) blocks at
// once with the fix, like a work-log failure. Everything is pure: no clock, no files
// (verify_context_package is the one effect, kept separate), no threads.
// Errors: decide_after_failure never fails; every problem becomes a
// block{reason, evidence} step. The JSON readers return invalid_argument.

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/policy/selection.hpp"
#include "runtime/policy/tactical.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// Failure classes the decision function treats specially.
bool is_work_log_failure(std::string_view failure_class);
// The block reason of a work-log failure: the I/O error as the attempt saw
// it (ENOSPC, a read-only file system) and the fix.
std::string work_log_block_reason(std::string_view failure_class, std::string_view evidence);
// Whether a task is blocked because its work log could not be written (the
// blocker's evidence names a work-log failure class): such a block is
// lifted at the next run's start once the work log is writable again.
bool blocked_by_work_log(const task_state& task);
bool is_failover_qualified(std::string_view failure_class); // quota, context, model, stream
bool is_promotable(std::string_view failure_class); // + provider-connection, stream-disconnect

// min(max_s, initial_s * coefficient^min(n, 5)) in milliseconds; n counts the
// earlier retries of the same kind (0 for the first retry), so the default
// 2, 2, 30 gives 2, 4, 8, 16, 30, 30 s.
millis backoff_delay(const policy_backoff& b, int64_t n);

// A path as a prompt shows it: as it is when it holds no white space,
// quote, backslash or backtick; otherwise in double quotes with `"` and
// `\` escaped by a backslash, so an agent (and agent-sim) reads a workspace
// such as "/home/me/my project" as one path.
std::string prompt_path(std::string_view path);

// {name} placeholders replaced from vars (every variable is a path, shown
// with prompt_path); unknown ones stay as written.
std::string render_prompt(std::string_view tmpl, const std::map<std::string, std::string>& vars);

struct task_paths {
  std::string workspace;
  std::string task_dir;
  std::string plan;   // active PLAN
  std::string review; // active CODE_REVIEW
};

// The first prompt of a stage (worker, selfcheck, review), with the task's
// persisted intervention context appended when it has one.
std::string stage_prompt(const policy& pol, std::string_view stage, const task_paths& paths,
                         const task_state& task);

struct failure_report {
  std::string task;
  std::string stage; // worker | selfcheck | review (the attempt's role)
  std::string failure_class;
  std::string evidence;
  std::string evidence_origin;
  std::vector<std::string> diagnostics;
  std::vector<std::string> stream_tail;
  std::string attempt_id;
  std::string locator;           // the attempt's locator.json
  std::string raw_log;           // its stream.log
  std::string normalized_output; // its normalized-output.log
  std::string native_session_path;
  // provider-quota: when the quota resets, as the attempt's classification
  // found it (the CLI's typed value or its text read in the agent's time
  // zone). Never read again from the evidence here.
  std::optional<millis> reset_at;
};
json to_json(const failure_report& f);
result<failure_report> failure_report_from_json(const json& j);

enum class package_kind : uint8_t { native, logical };

// What the next target gets to continue from (SPEC section 7).
struct context_package {
  package_kind kind = package_kind::logical;
  std::string plan, locator, workspace, raw_log, normalized_output, native_session_path;
};
json to_json(const context_package& p);
// The effect: every file the package names exists.
status verify_context_package(const context_package& p);

enum class prompt_origin : uint8_t { continuation, from_scratch };

struct retry_same {
  std::string target;
  std::string prompt;
  millis delay = 0;
  std::string kind; // review-control, pi-recovery, session-stall, generic, terminal, no-promotion
  prompt_origin origin = prompt_origin::continuation;
};
struct failover_step {
  std::string target;
  context_package package;
  std::string prompt;
  route_decision decision;
  millis delay = 0; // > 0: every candidate was cooling down; start then
};
struct promote_step {
  std::string target;
  context_package package;
  std::string prompt;
  route_decision decision;
  millis delay = 0; // > 0: every candidate was cooling down; start then
};
struct resume_native {
  std::string target;
  std::string session; // native session file
  std::string prompt;
  millis delay = 0;
};
// Wait for a quota reset without spending the failure budget, then run the
// same target again with prompt.
struct wait_until {
  millis until = 0;
  std::string reason;
  std::string target;
  std::string prompt;
};
struct block_step {
  std::string reason;
  std::string evidence; // JSON text: role, failure_class, locator, selected, work unit, ...
};

using next_step =
  std::variant<retry_same, failover_step, promote_step, resume_native, wait_until, block_step>;
std::string_view step_name(const next_step& s); // "retry_same", "failover", ...
json to_json(const next_step& s);
// The inverse of to_json; invalid_argument names the member at fault.
result<next_step> next_step_from_json(const json& j);

struct supervisor_request {
  failure_report failure;
  task_paths paths;
  std::string lane;
  int grade = 1;
  // The write set as it is now (after the attempt), for the intervention.
  std::vector<file_snapshot> write_set_now;
  // What is known about the files the failure's message names
  // (runtime/run/named_paths.hpp), for the intervention.
  std::vector<named_file> named_files;
};
json to_json(const supervisor_request& r);
result<supervisor_request> supervisor_request_from_json(const json& j);

struct supervisor_outcome {
  next_step step;
  std::vector<state_change> changes; // persist before acting on step
  std::vector<tactical_event> events;
  target_cooldowns cooldowns;        // the shared cool-downs after this failure
};

supervisor_outcome decide_after_failure(const policy& pol, const time_zone& zone,
                                        const task_state& task, const target_cooldowns& cooldowns,
                                        const supervisor_request& req, millis now);

// The supervisor's reply to one failure, with the cool-downs it keeps
// (updated in place, and in the outcome, with the entries expired at `now`
// dropped). The supervisor actor and replay both call it.
supervisor_outcome supervise_with_cooldowns(const policy& pol, const time_zone& zone,
                                            target_cooldowns& cooldowns, const task_state& task,
                                            const supervisor_request& req, millis now);

// A success of stage: its budget, retry counters and reset waits start over,
// and a served intervention context is cleared.
std::vector<state_change> on_attempt_succeeded(const std::string& task_name, const task_state& task,
                                               std::string_view stage);

// The end of a quota-reset wait of stage that the supervisor made durable
// (counter "reset_wait_until:<stage>") when it lies after now, else 0. A
// restarted dispatcher holds the stage until then before its next attempt.
millis pending_reset_wait(const task_state& task, std::string_view stage, millis now);

// Cool-downs in the durable state, so that `status` and `serve` can say
// what a live run waits for and a restarted dispatcher keeps a wait:
// - a quota failure records, on the failed task, the cool-down it started
//   (counter "cooldown_until:<target>" = its end);
// - a stage that waits because every candidate cools down (at its start,
//   or a failover that starts when the first candidate is free) records the
//   wait (counter "cooldown_wait:<stage>:<target>" = its end, target the
//   one free first).
// A probe that finds a target available again ends its cool-down in the
// running dispatcher only; the recorded end stays, and a stage's recorded
// wait is what that stage does.
struct recorded_cooldown {
  std::string target;
  millis until = 0;
  std::string task;  // the task whose failure (or wait) recorded it
};
state_change record_cooldown_wait(const std::string& task, std::string_view stage,
                                  const std::string& target, millis until);
// The stage's recorded cool-down wait when it ends after now (the latest,
// when there are several), else nullopt.
std::optional<recorded_cooldown> pending_cooldown_wait(const task_state& task,
                                                       std::string_view stage, millis now);
// Per target, the latest recorded cool-down still running at now.
std::map<std::string, recorded_cooldown> recorded_cooldowns(const state_model& state, millis now);

// `run --retry-blocked` for one task: clears the block, budgets and counters;
// for a worker blocked by a failover-qualified failure of the current work
// unit it also records a retry handoff (stable id, failed target, locator).
struct retry_clearance {
  std::vector<state_change> changes;
  std::optional<retry_handoff> handoff;
};
retry_clearance clear_for_retry(const std::string& task_name, const task_state& task, millis now);

// A persisted decision that revalidate_decision rejected blocks its task:
// the set_blocked change naming the reason, with the decision as evidence.
state_change block_invalid_decision(const std::string& task_name, const route_decision& d,
                                    const status& why);

// The decision for the attempt that consumes a pending handoff: a failover
// away from the failed target using a fresh quota snapshot.
result<route_decision> select_for_handoff(const policy& pol, const time_zone& zone,
                                          const task_state& task, const retry_handoff& handoff,
                                          const quota_snapshot& fresh,
                                          const target_cooldowns& cooldowns, millis now);

} // namespace ad::runtime

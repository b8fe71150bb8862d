#pragma once
// One attempt as the task lifecycle orders it and as it comes back: the
// attempt_order (what to run, where, for which task and role, with which
// routing evidence and policy settings) and the attempt_result (its
// classified end, the same facts as its final locator). Plain values: the
// task machine (task_machine.hpp) builds orders and reads results, the
// attempt actor runs them, and messages/attempt.hpp sends them between
// actors and hosts as they are. The JSON forms (to_json / *_from_json) are
// the message trace's; a decoder returns invalid_argument naming the member
// at fault and never throws.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/token_usage.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/usage_policy.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// Intervals of one attempt, in milliseconds. Defaults are SPEC section 6;
// tests use a few milliseconds. stall_limit_ms == 0 disables the stall limit.
struct attempt_timing {
  int64_t heartbeat_ms = 30'000;
  int64_t silence_inspection_ms = 180'000;
  int64_t stall_limit_ms = 0;
  int64_t terminate_grace_ms = 5'000;
  int64_t pi_poll_ms = 2'000;
  int64_t spawn_timeout_ms = 30'000;
  bool operator==(const attempt_timing&) const = default;
};

// What the installed CLI accepts (runtime::cli_capabilities), detected once
// per binary before the run.
struct cli_launch_caps {
  bool detected = false;
  std::string version;
  bool pi_approve = false;
  bool pi_session_id = false;
  bool operator==(const cli_launch_caps&) const = default;
};

// The adapter's no-progress rule (runtime::no_progress_settings), in ms;
// 0 turns a limit off.
struct attempt_progress_rule {
  int64_t network_wait_ms = 0;
  int64_t retrying_ms = 0;
  bool failover_available = false;
  bool operator==(const attempt_progress_rule&) const = default;
};

// Starts one attempt: one agent process for one task and role.
struct attempt_order {
  // identity: <safe task>__p<plan>__<role>__a<NN>; `attempt` is the
  // persisted per (task, plan, role) counter, assigned by the caller.
  std::string task;
  int64_t plan_number = 0;
  std::string role; // worker, selfcheck, review
  int64_t attempt = 0;
  // where
  std::string workspace; // absolute workspace root (the agent's cwd)
  std::string workspace_id;
  std::string runs_dir; // <state root>/runs
  std::string work_log; // WORK_LOG.md path; empty: agent-task/<group>/WORK_LOG.md
  // what runs (runtime::launch_spec)
  std::string adapter;    // codex, claude, agy, pi, command
  std::string executable; // replaces argv[0]; empty: the CLI's own name
  std::string model;
  std::string effort;
  std::string prompt;
  std::string session_id;           // claude/pi; empty: a fresh UUID
  std::string native_session_file;  // pi resume
  std::string resumed_from_locator; // pi resume: the locator of the attempt it continues
  std::string provider;             // pi --provider; "" = the adapter's default
  cli_launch_caps caps;             // what the installed CLI accepts
  std::string plan_path;
  std::string review_path;
  // The task's write set (canonical absolute paths): what the run's claim
  // watcher holds this attempt's writes against (docs/claims.md).
  std::vector<std::string> write_paths;
  std::vector<std::string> command_template; // adapter "command"
  std::vector<std::string> env_additions;    // "NAME=value"
  // routing evidence copied into the locator
  bool has_selector_evidence = false;
  route_decision selector_evidence; // when has_selector_evidence
  int64_t stage_budget = 0;
  std::string retry_handoff_id; // "" when none
  // policy (the failure-pattern table is the attempt host's, from the
  // policy it was started with)
  attempt_progress_rule progress;
  attempt_timing timing;
  // An output line longer than this many bytes is cut (the rest is counted
  // and dropped, never buffered).
  uint64_t line_cap = uint64_t{1} << 20;
  // Distributed mode: the worker node the attempt was placed on ("": this
  // host; docs/distributed.md).
  std::string node;
  // Names of processes the agent may leave running past the attempt (the
  // policy's processes.keep_alive; docs/keeper.md). Empty: none.
  std::vector<std::string> keep_alive;
  // Usage (docs/agents.md, "Usage"): the stream format a command target's
  // stdout speaks ("" = the adapter's own), and the target's prices that give
  // a cost to a usage its CLI reported without one (when has_prices).
  std::string usage_reader;
  bool has_prices = false;
  token_prices prices;
  bool operator==(const attempt_order&) const = default;
};

// The classified end of an attempt (the same facts as its final locator).
struct attempt_result {
  std::string identity;
  std::string locator_path;
  std::string attempt_dir;
  std::string status; // succeeded, failed
  int32_t exit_code = 0;
  int32_t pid = 0;
  std::string failure_class; // "" on success
  std::string failure_source;
  std::string evidence;
  std::string evidence_origin;
  std::string termination_signal; // "SIGKILL" or ""
  std::string session_id;
  std::string native_session_path;
  int64_t started_at = 0; // ms since the epoch
  int64_t finished_at = 0;
  int64_t heartbeats = 0;
  bool silence_inspected = false;
  bool has_reset_at = false; // provider-quota: when the quota resets
  int64_t reset_at = 0;
  // What the attempt spent up to its end, also when it failed or was
  // cancelled (empty: nothing reported); priced with the order's prices
  // when the CLI gave no cost.
  token_usage usage;
  bool operator==(const attempt_result&) const = default;
};

// The intervals a run's attempts use: the policy's heartbeat, silence
// inspection and stall limit, the rest as attempt_timing's defaults.
attempt_timing attempt_timing_of(const policy& pol);

json to_json(const attempt_timing& t);
result<attempt_timing> attempt_timing_from_json(const json& j);
json to_json(const attempt_order& o);
result<attempt_order> attempt_order_from_json(const json& j);
json to_json(const attempt_result& r);
result<attempt_result> attempt_result_from_json(const json& j);

} // namespace ad::runtime

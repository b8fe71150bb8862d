#pragma once
// The execution policy as a value: targets (adapter + model), selection rules,
// the promotion chain, the fixed review target, budgets, backoff, timeouts,
// failure and tactical patterns, prompt texts (SPEC sections 5 and 7), and
// what spending costs and may cost (prices and limits, usage_policy.hpp). The
// document format is JSON (docs/policy.md); an embedded default reproduces the
// original dispatcher's setup, and a policy file replaces each top-level key
// it sets. Everything here is pure: parse_policy validates a JSON value and
// load_policy is the only function that reads files. A policy is immutable
// once built and may be shared between threads.
// Errors: every validation error is invalid_argument and names the source
// file, the JSON pointer, what was expected and what was found, one error per
// line; unknown keys and unknown target ids are errors. A missing explicit
// policy file is not_found.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/usage_reader.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/notify_policy.hpp"
#include "runtime/policy/usage_policy.hpp"

namespace ad::runtime {

// The longest string the policy accepts (docs/limits.md), in bytes: ids,
// names, models, the time zone, node addresses, environment variable
// names and promotion keys; then prompts, instructions, argv elements and
// environment values. Patterns have their own limit (user_regex_max_chars).
// Every field is checked without recursion, so no length can exhaust the
// stack.
inline constexpr std::size_t policy_max_name_chars = 256;
inline constexpr std::size_t policy_max_text_chars = 64 << 10;

enum class execution_class : uint8_t { local_model, cloud_model };
std::string_view to_string(execution_class c);

struct policy_target {
  std::string id;
  std::string adapter; // codex | claude | agy | pi | command
  std::string model;
  execution_class exec_class = execution_class::cloud_model;
  bool selfcheck_required = false; // defaults to exec_class == local_model
  std::string reasoning_effort;    // "" = adapter default
  bool native_resume = false;      // pi: continue the same native session
  std::vector<std::string> argv;   // command adapter: argument template
  std::vector<std::string> quota_probe; // optional probe argv ({adapter}, {model}, {target})
  std::string provider;            // pi: --provider ("" = iop, the original setup's)
  std::map<std::string, std::string> env; // set in the agent's environment
  // command adapter: the stream format its stdout speaks, so its usage is
  // read (usage_reader.hpp); none: a command reports no usage.
  usage_format usage_reader = usage_format::none;
};

// The usage format an attempt on the target reads: the adapter's own, or
// for a command target the one the policy names.
usage_format usage_format_of(const policy_target& t);

// Local time-of-day window; end < start wraps past midnight. Days empty = every day.
struct time_window {
  std::vector<int> weekdays; // 0 = Sunday .. 6 = Saturday
  int start_minute = 0;      // minutes after local midnight
  int end_minute = 0;
  std::string text; // "mon,tue 22:00-06:00" as written, for decisions
};

struct policy_rule {
  std::string id;
  int priority = 0;
  std::string stage; // worker | selfcheck
  std::vector<std::string> lanes; // local | cloud
  int grade_min = 1, grade_max = 10;
  std::optional<time_window> window;
  std::vector<std::string> candidates; // target ids, in preference order
};

struct policy_budgets {
  int recovery_failures = 10;
  int selfcheck_incomplete = 10;
  int review_no_progress = 10;
  int reset_waits = 10; // reset-time waits per (work unit, stage) before they count
};

struct policy_backoff {
  double initial_s = 2;
  double coefficient = 2;
  double max_s = 30;
};

struct policy_timeouts {
  double heartbeat_s = 30;
  double silence_inspection_s = 180;
  double stall_limit_s = 0;      // 0 = off
  double reset_wait_max_s = 3600; // longest single wait for a quota reset
  double quota_cooldown_s = 1800; // shared cool-down when no reset time is known
};

// The adapters' rule for an agent that makes no progress while it keeps
// printing (runtime/agents/progress_watch.hpp), and the CLI's own retry
// count while another candidate could take over.
struct policy_no_progress {
  double network_wait_s = 180; // codex waiting for network this long ends the attempt (0 = never)
  double retrying_s = 120;     // a CLI retrying one error this long, with a failover candidate
  int cli_max_retries = 3;     // claude CLAUDE_CODE_MAX_RETRIES with a failover candidate (0 = the CLI's own)
};

// What a write outside the writer's claim does (docs/claims.md): `warn`
// reports it (run event, work-log row, `status`); `block` also blocks the
// writer's task and stops its running attempt.
enum class violation_action : uint8_t { warn, block };
std::string_view to_string(violation_action a);

// How writes are noticed: `automatic` uses fanotify where the kernel permits
// it and snapshots elsewhere; `snapshots` always compares the workspace
// before and after each attempt (the fallback, forced).
enum class claim_watch_mode : uint8_t { automatic, snapshots };
std::string_view to_string(claim_watch_mode m);

struct policy_claims {
  violation_action on_violation = violation_action::warn;
  claim_watch_mode watch = claim_watch_mode::automatic;
};

// What an agent may leave running past its attempt (docs/keeper.md,
// "Containment"): processes whose name is listed here are kept alive (a
// build server such as sccache); every other process the agent started ends
// with the attempt. Empty, the default: none is kept.
struct policy_processes {
  std::vector<std::string> keep_alive;
};

struct tactical_pattern {
  std::string id;
  std::vector<std::string> regexes;
  std::string instruction;
};

struct policy_prompts {
  std::string worker;
  std::string selfcheck;
  std::string review;
  std::string continuation;         // same target, names {locator}
  std::string review_continuation;  // review retried on the fixed target
  std::string context_package;      // failover/promotion with a logical package
  std::string native_resume;        // same native session
  std::string intervention;         // header of the intervention block
};

struct policy {
  int version = 1;
  std::string timezone = "UTC";
  std::vector<policy_target> targets;
  std::vector<policy_rule> rules;
  std::map<std::string, std::string> promotion; // target id -> next target id
  std::string review_target;
  policy_budgets budgets;
  policy_backoff backoff;
  policy_timeouts timeouts;
  policy_no_progress no_progress;
  policy_claims claims;
  policy_processes processes;
  std::vector<failure_pattern> failure_patterns;
  std::vector<tactical_pattern> tactical_patterns;
  policy_prompts prompts;
  // Distributed mode: worker nodes as "HOST:PORT", used when `run` is given
  // no --node (docs/distributed.md). Optional; empty: agents run here.
  std::vector<std::string> nodes;
  // Optional: per target id, the prices that give a cost to a usage the
  // target's CLI reported without one.
  std::map<std::string, token_prices> prices;
  // Optional: the ceilings on what a task and the run may spend.
  usage_limits limits;
  // Optional: who hears about blocked tasks, reviews, long quota waits,
  // claim violations and the run's end (notify_policy.hpp).
  policy_notify notify;

  const policy_target* find_target(std::string_view id) const;
  // The prices for a target id, or nullptr.
  const token_prices* find_prices(std::string_view target_id) const;
};

// The embedded default policy document.
const json& default_policy_json();

// Replaces each top-level key of base that overlay sets (the merge rule).
json merge_policy_json(const json& base, const json& overlay);

// Validates a complete policy document. `source` names it in errors.
result<policy> parse_policy(const json& doc, std::string_view source);

// The policy as a complete JSON document (what `policy show` prints).
json policy_to_json(const policy& p);

struct loaded_policy {
  policy value;
  json document;      // the effective merged document
  std::string source; // "embedded default", or the file that was merged in
};

// Parses policy file text merged over the default.
result<loaded_policy> parse_policy_text(std::string_view text, std::string_view source);

// The effective policy: explicit_file when given (it must exist), else
// <workspace>/agent-dispatch.json when present, else the embedded default.
result<loaded_policy> load_policy(const std::optional<std::filesystem::path>& explicit_file,
                                  const std::filesystem::path& workspace);

} // namespace ad::runtime

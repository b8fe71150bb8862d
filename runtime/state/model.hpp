#pragma once
// The durable state model of one workspace (SPEC section 9) as plain typed
// values: per-task state keyed by task name, attempt counters, write claims
// and orchestration records. These structs are what the state store actor
// holds in memory and what a snapshot file contains; they change only through
// the typed changes of runtime/state/change.hpp. Pure data: no I/O, no
// threads, nothing here throws. JSON mapping lives in model_json.hpp.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/shared_value.hpp"
#include "runtime/core/token_usage.hpp"

namespace ad::runtime {

// One ranked candidate of a routing decision.
struct route_candidate {
  std::string target;            // "<adapter>:<model>"
  bool eligible = false;
  std::vector<std::string> reasons;  // rejection (or selection) reason codes
  bool operator==(const route_candidate&) const = default;
};

enum class route_transition : uint8_t { initial, resume, failover, promotion };

// A batch quota probe result: target -> available | exhausted | unknown.
struct quota_snapshot {
  millis taken_at = 0;
  std::map<std::string, std::string> status_by_target;
  bool operator==(const quota_snapshot&) const = default;
};

// A routing decision with the fields of SPEC section 5.
struct route_decision {
  std::string work_unit_id;
  std::string stage;    // worker | selfcheck | review
  std::string lane;     // local | cloud
  int grade = 0;
  std::vector<route_candidate> candidates;
  std::string selected_target;
  std::string rule_id;
  int priority = 0;
  std::vector<std::string> reason_codes;
  millis evaluated_at = 0;
  quota_snapshot quota;
  route_transition transition = route_transition::initial;
  std::string previous_target;  // empty for `initial`
  std::string next_target;
  bool operator==(const route_decision&) const = default;
};

// A decision is made once and then only read: the task's current decision
// for its stage, its route history and its completing decision hold the
// same value, and so do the three models of a run (the change that records
// it carries it to each), instead of a copy in each place.
using shared_decision = shared_value<route_decision>;

// Recorded by `run --retry-blocked`; consumed by the next attempt start.
struct retry_handoff {
  std::string id;
  std::string failed_target;
  std::string locator;
  bool operator==(const retry_handoff&) const = default;
};

struct blocked_info {
  std::string reason;
  std::string evidence;
  bool operator==(const blocked_info&) const = default;
};

// Tactical escalation context, persisted so it survives a restart.
// A file the failure's own message named ("File already exists: src/x"),
// whether or not it is in the task's write set, as it was when the failure
// was analysed.
struct named_file {
  std::string path;          // canonical absolute
  std::string as_written;    // as the message wrote it
  bool exists = false;
  millis mtime = 0;
  bool in_write_set = false;
  std::vector<std::string> changed_by;   // attempts of this work unit that ran when it last changed
  std::vector<std::string> predecessors; // completed predecessor tasks whose write set lists it
  bool operator==(const named_file&) const = default;
};

struct intervention_context {
  std::vector<std::string> pattern_ids;
  std::string instruction;
  std::vector<std::string> existing_files;  // write-set files that exist now
  std::vector<std::string> touched_files;   // created/modified by earlier attempts
  millis created_at = 0;
  std::vector<named_file> named_files;      // files the failure's message named
  bool operator==(const intervention_context&) const = default;
};

struct file_snapshot {
  std::string path;  // canonical absolute
  bool exists = false;
  uint64_t size = 0;
  millis mtime = 0;
  std::string hash;  // sha256 hex; empty when !exists
  bool operator==(const file_snapshot&) const = default;
};

enum class snapshot_phase : uint8_t { before, after };

// The write set as seen before and after one attempt. Each list is taken
// once and never changed, so copies of the model share it (the change that
// records it carries it to each).
struct write_set_snapshot {
  shared_value<std::vector<file_snapshot>> before;
  shared_value<std::vector<file_snapshot>> after;
  bool operator==(const write_set_snapshot&) const = default;
};

// Everything remembered about one task for its current work unit. Reset to
// a fresh value (keeping only the name) when the work unit id changes.
struct task_state {
  std::string work_unit_id;  // "<task>::plan-<N>::tag-<tag>"
  bool worker_done = false;
  bool selfcheck_done = false;
  std::optional<blocked_info> blocked;
  std::string active_stage;    // empty when no attempt is active
  std::string active_locator;  // path of the active attempt's locator.json
  std::map<std::string, int64_t> counters;         // e.g. selfcheck_rounds, no_progress
  std::map<std::string, int64_t> failure_budgets;  // stage -> failures for work_unit_id
  std::map<std::string, shared_decision> decisions;  // stage -> current decision
  std::vector<shared_decision> route_history;        // every decision, oldest first
  std::optional<shared_decision> completing_decision;
  std::optional<quota_snapshot> quota;
  std::optional<retry_handoff> handoff;
  std::optional<intervention_context> intervention;
  std::map<std::string, write_set_snapshot> write_sets;  // attempt id -> snapshots
  bool operator==(const task_state&) const = default;
};

// Attempt numbering is per (task, plan number, role).
struct attempt_key {
  std::string task;
  int64_t plan = 0;
  std::string role;
  auto operator<=>(const attempt_key&) const = default;
};

enum class claim_kind : uint8_t { paths, exclusive };

// A task's write claim: a set of canonical paths, or exclusive (its write
// set is unknown, so it blocks every other admission).
struct write_claim {
  claim_kind kind = claim_kind::paths;
  std::set<std::string> paths;
  bool operator==(const write_claim&) const = default;
};

enum class orchestration_status : uint8_t { running, blocked, complete };
enum class orchestration_task_status : uint8_t { active, complete };

struct orchestration_task {
  orchestration_task_status status = orchestration_task_status::active;
  std::string archive;  // archive folder once complete
  std::vector<std::string> archive_baseline;  // archive folders seen at first sight
  bool operator==(const orchestration_task&) const = default;
};

struct orchestration_record {
  orchestration_status status = orchestration_status::running;
  std::map<std::string, orchestration_task> tasks;
  bool operator==(const orchestration_record&) const = default;
};

// A write outside the writer's claim (docs/claims.md), as the claim watcher
// judged it. `attribution` is how the writer was found: fanotify (the
// writing process carried the attempt's marker), elimination (only that
// attempt ran when the path changed) or candidates (several ran: task and
// attempt are empty and `candidates` names the attempts).
struct claim_violation_record {
  std::string task;
  std::string attempt;     // attempt identity
  std::string path;        // canonical absolute
  std::string other_task;  // a task whose claim covers the path, "" when none
  std::string attribution; // fanotify | elimination | candidates
  std::vector<std::string> candidates; // attempt identities (candidates only)
  std::string action;      // warn | block: what the policy made of it
  millis at = 0;           // when the watcher judged it
  bool operator==(const claim_violation_record&) const = default;
};

// How many violation records the state keeps (the oldest go first).
inline constexpr std::size_t max_claim_violations = 256;

// The whole durable state of one workspace.
// What one finished attempt spent (docs/state-format.md, "spent"): the task
// and policy target it ran for and its usage, as its result reported it.
struct attempt_spend {
  std::string task;
  std::string target;
  token_usage usage;
  bool operator==(const attempt_spend&) const = default;
};

struct state_model {
  std::map<std::string, task_state> tasks;
  std::map<attempt_key, int64_t> attempt_counters;
  std::map<std::string, write_claim> claims;  // owner task -> claim
  std::vector<claim_violation_record> claim_violations; // oldest first
  std::map<std::string, orchestration_record> orchestrations;  // scope -> record
  // attempt identity -> what it spent. Kept by identity, so recording an
  // attempt again (a replay, an adopted attempt) replaces its record, and
  // kept when its task starts a new work unit or is removed: the run spent it.
  std::map<std::string, attempt_spend> spent;
  bool operator==(const state_model&) const = default;
};

// The attempt counters of one task (every plan and role), in key order: a
// range of state.attempt_counters found by lower_bound, so a caller that
// asks for every task does not walk every counter for each.
struct attempt_counter_range {
  std::map<attempt_key, int64_t>::const_iterator first, last;
  auto begin() const { return first; }
  auto end() const { return last; }
};

inline attempt_counter_range task_attempt_counters(const state_model& state,
                                                   const std::string& task) {
  const auto& counters = state.attempt_counters;
  auto first = counters.lower_bound(attempt_key{task, std::numeric_limits<int64_t>::min(), ""});
  auto last = first;
  while (last != counters.end() && last->first.task == task)
    ++last;
  return {first, last};
}

std::string to_string(route_transition x);
std::string to_string(claim_kind x);
std::string to_string(orchestration_status x);
std::string to_string(orchestration_task_status x);

} // namespace ad::runtime

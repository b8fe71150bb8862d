#pragma once
// What `agent-dispatch status` shows: for every task of the workspace scan,
// its stage, status and one-line reason (the dry run's classification over
// the durable state), attempts made for its current plan, the current
// target, failure budget used per stage, and its live or stale attempt with
// the locator (SPEC section 8 liveness via runtime/run/active_probe); plus
// the dispatcher that holds the lock and whether it is alive, and the writes
// outside a claim recorded in the durable state (docs/claims.md). Builders are
// pure apart from the liveness probes (/proc and the runs folder, read
// only); renderers return strings. Never writes, never throws.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/observe/state_reader.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/workspace/dry_run.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

struct status_attempt {
  std::string role;        // the active stage
  std::string liveness;    // live | stale
  std::string reason;      // "pid 4242 alive", "agent gone"
  std::string locator;     // locator.json path, "" when none found
  std::string locator_status;
  std::string node;        // distributed mode: the worker node running it
};

struct status_task {
  std::string name;
  std::string stage;
  std::string status;   // dispatch_status words (ready, waiting, running, ...)
  std::string reason;
  int64_t attempts = 0;                     // all roles, current plan
  std::map<std::string, int64_t> attempts_by_role;
  std::string target;                       // current target, "" when none
  std::map<std::string, int64_t> budget_used;  // stage -> failures counted
  std::vector<status_attempt> live;         // at most one today (the active stage)
  // Supervision detail from the durable state (JSON output only).
  std::string blocked_evidence;             // JSON text of the block record, "" when none
  std::optional<intervention_context> intervention;
  std::string handoff_id;                   // pending retry handoff, "" when none
  int64_t reset_wait_until = 0;             // durable quota-reset wait of the stage, 0 = none
  // A waiting task: what it waits for (dependency, claim, capacity: the
  // dry run's over the durable claims; quota-reset and cool-down: the
  // durable wait of its stage, which makes a task the dry run finds ready
  // wait) and, for a claim, the task holding it; for a quota reset or a
  // cool-down, the target and the wait's end.
  std::string wait;
  std::string wait_owner;
  std::string wait_target;
  int64_t wait_until = 0;
  std::vector<route_decision> route;        // route history, oldest first
  std::map<std::string, write_set_snapshot> write_sets;  // attempt id -> before/after
  token_usage spent;                        // every attempt of the task (state "spent")
};

struct status_dispatcher {
  bool present = false;  // a lock record exists
  bool alive = false;    // its pid runs with the same start token
  int64_t pid = 0;
  int64_t started_at = 0;
  std::string version;
};

struct status_report {
  std::string workspace;
  std::string state_root;
  bool state_exists = false;
  uint64_t seq = 0;
  status_dispatcher dispatcher;
  std::vector<status_task> tasks;
  std::vector<claim_violation_record> claim_violations; // oldest first
  // What was spent, from the state's attempt records (runtime/state/spend.hpp):
  // the run's (every task, across restarts) and per policy target.
  token_usage spent;
  std::map<std::string, token_usage> spent_by_target;
  // The targets' cool-downs the state records that still run (target ->
  // its end and the task whose quota failure started it).
  std::map<std::string, recorded_cooldown> cooldowns;
  dry_run_summary summary;
  std::vector<std::string> warnings;
};

struct status_input {
  const workspace_scan* scan = nullptr;
  const dry_run_folders* folders = nullptr;  // read from `scan` ahead; read here when null
  const unlocked_state* state = nullptr;
  const policy* pol = nullptr;
  run_location where;
  std::string state_root;
  std::optional<std::string> group;
};

status_report build_status_report(const status_input& input, const clock& clk);

// People: a header, one block per task, the summary line. Times via clk.
std::string render_status_text(const status_report& report, const clock& clk);

// One line for a person: "claim violation: <task> attempt <id> wrote <path>
// outside its claim ..." (the status text shows one per record).
std::string describe_claim_violation(const claim_violation_record& v);

// JSON Lines (docs/events.md): {"event":"dispatcher"}, one {"event":"task"}
// per task, one {"event":"claim_violation"} per recorded violation, then
// {"event":"summary"} shaped like the dry run's.
std::string render_status_json_lines(const status_report& report);

} // namespace ad::runtime

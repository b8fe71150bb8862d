#pragma once
// The event model of a run as plain values, its one event type: the
// scheduler and task machines show them (their `show` commands), the output
// actor receives them as they are, and the renderers (event_render.hpp,
// board.hpp) consume them; nothing here knows about actors. One flat struct for every kind keeps the renderers simple:
// each kind uses the fields its comment names and leaves the rest empty.
// Pure data plus name tables; no I/O, no threads, never throws.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/token_usage.hpp"

namespace ad::runtime {

enum class run_event_kind : uint8_t {
  tasks_scanned,     // tasks
  task_started,      // task, stage
  task_finished,     // task, stage, outcome, reason
  task_failed,       // task, stage, reason
  task_blocked,      // task, stage, reason
  task_waiting,      // task, stage, reason, wait
  attempt_started,   // task, role, target, cli, model, attempt, identity, locator
  attempt_finished,  // task, role, target, identity, attempt_status, exit_code,
                     // failure_class, evidence, locator
  failover,          // task, role, from_target, to_target, reason
  promotion,         // task, role, from_target, to_target, reason
  tactical_match,    // task, role, target, pattern_ids, action
  supervisor_wait,   // task, role, target, until, reason, wait
  summary,           // counts, exit_code, reason
  claim_violation,   // task, role, attempt, identity, path, other_task, attribution,
                     // candidates, action (warn | block), reason
  node_status,       // node, slots, slots_in_use, lease, until (the lease's end),
                     // reason (why it is not connected); distributed runs only
};

// The `event` value in JSON Lines ("task_started", "summary", ...).
std::string_view to_string(run_event_kind kind);

// Task status words used by the board and the summary counts.
inline constexpr std::string_view task_status_pending = "pending";
inline constexpr std::string_view task_status_running = "running";
inline constexpr std::string_view task_status_waiting = "waiting";
inline constexpr std::string_view task_status_blocked = "blocked";
inline constexpr std::string_view task_status_failed = "failed";
inline constexpr std::string_view task_status_complete = "complete";

// What a wait waits for (run_event::wait, report_task_entry::wait): the
// board and the dashboard group waits by it.
inline constexpr std::string_view wait_dependency = "dependency";
inline constexpr std::string_view wait_claim = "claim";
inline constexpr std::string_view wait_capacity = "capacity";
inline constexpr std::string_view wait_cool_down = "cool-down";
inline constexpr std::string_view wait_quota_reset = "quota-reset";
inline constexpr std::string_view wait_pause = "pause";
inline constexpr std::string_view wait_node = "node";
inline constexpr std::string_view wait_elsewhere = "elsewhere";

// A worker node's lease as the coordinator sees it (node_status events;
// runtime/distributed/node_status.hpp decides it).
inline constexpr std::string_view lease_held = "held";
inline constexpr std::string_view lease_expiring = "expiring";
inline constexpr std::string_view lease_lost = "lost";

struct report_task_entry {
  std::string task;
  std::string stage;
  std::string status;  // one of the task_status_* words
  std::string reason;
  std::string wait = {};  // a waiting task: one of the wait_* words, else ""
};

struct report_count {
  std::string status;
  int64_t count = 0;
};

struct run_event {
  run_event_kind kind = run_event_kind::task_started;
  millis time = 0;
  std::string task;
  std::string stage;  // task events
  std::string role;   // attempt and supervisor events
  std::string reason;
  std::string outcome;
  // attempts
  std::string target;
  std::string cli;
  std::string model;
  int64_t attempt = 0;
  std::string identity;
  std::string locator;
  std::string node;            // attempt_started in distributed mode, node_status: the worker node
  std::string attempt_status;  // succeeded | failed | cancelled
  int32_t exit_code = 0;       // attempt_finished and summary
  std::string failure_class;
  std::string evidence;
  // attempt_finished: what the attempt spent; summary: what the run has
  // spent (every attempt the state records, across restarts)
  token_usage usage;
  // supervisor
  std::string from_target;
  std::string to_target;
  std::vector<std::string> pattern_ids;
  std::string action;
  millis until = 0;
  std::string wait;  // task_waiting, supervisor_wait: one of the wait_* words
  // tasks_scanned / summary
  std::vector<report_task_entry> tasks;
  std::vector<report_count> counts;
  // claim_violation: the path written outside the writer's claim, a task
  // whose claim covers it, how the writer was found and, without one writer,
  // the candidate attempts (identities)
  std::string path;
  std::string other_task;
  std::string attribution;
  std::vector<std::string> candidates;
  // node_status: the node's slots, how many are in use, and its lease as
  // the coordinator sees it (runtime/distributed/node_status.hpp)
  int32_t slots = 0;
  int32_t slots_in_use = 0;
  std::string lease;
};

} // namespace ad::runtime

#include "runtime/report/run_event.hpp"

namespace ad::runtime {

std::string_view to_string(run_event_kind kind) {
  switch (kind) {
    case run_event_kind::tasks_scanned: return "tasks_scanned";
    case run_event_kind::task_started: return "task_started";
    case run_event_kind::task_finished: return "task_finished";
    case run_event_kind::task_failed: return "task_failed";
    case run_event_kind::task_blocked: return "task_blocked";
    case run_event_kind::task_waiting: return "task_waiting";
    case run_event_kind::attempt_started: return "attempt_started";
    case run_event_kind::attempt_finished: return "attempt_finished";
    case run_event_kind::failover: return "failover";
    case run_event_kind::promotion: return "promotion";
    case run_event_kind::tactical_match: return "tactical_match";
    case run_event_kind::supervisor_wait: return "supervisor_wait";
    case run_event_kind::summary: return "summary";
    case run_event_kind::claim_violation: return "claim_violation";
    case run_event_kind::node_status: return "node_status";
  }
  return "unknown";
}

} // namespace ad::runtime

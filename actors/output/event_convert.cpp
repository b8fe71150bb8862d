#include "actors/output/event_convert.hpp"

namespace ad::actors {
namespace {

using runtime::run_event;
using runtime::run_event_kind;

run_event base(run_event_kind kind, int64_t time, const std::string& task) {
  run_event e;
  e.kind = kind;
  e.time = time;
  e.task = task;
  return e;
}

template <class TaskMessage>
run_event task_event(run_event_kind kind, const TaskMessage& x) {
  auto e = base(kind, x.time, x.task);
  e.stage = x.stage;
  e.reason = x.reason;
  return e;
}

template <class RouteMessage>
run_event route_event(run_event_kind kind, const RouteMessage& x) {
  auto e = base(kind, x.time, x.task);
  e.role = x.role;
  e.from_target = x.from_target;
  e.to_target = x.to_target;
  e.reason = x.reason;
  return e;
}

} // namespace

run_event to_run_event(const messages::tasks_scanned& x) {
  auto e = base(run_event_kind::tasks_scanned, x.time, "");
  for (const auto& t : x.tasks)
    e.tasks.push_back({t.task, t.stage, t.status, t.reason});
  return e;
}

run_event to_run_event(const messages::task_started& x) {
  auto e = base(run_event_kind::task_started, x.time, x.task);
  e.stage = x.stage;
  return e;
}

run_event to_run_event(const messages::task_finished& x) {
  auto e = task_event(run_event_kind::task_finished, x);
  e.outcome = x.outcome;
  return e;
}

run_event to_run_event(const messages::task_failed& x) {
  return task_event(run_event_kind::task_failed, x);
}

run_event to_run_event(const messages::task_blocked& x) {
  return task_event(run_event_kind::task_blocked, x);
}

run_event to_run_event(const messages::task_waiting& x) {
  return task_event(run_event_kind::task_waiting, x);
}

run_event to_run_event(const messages::attempt_began& x) {
  auto e = base(run_event_kind::attempt_started, x.time, x.task);
  e.role = x.role;
  e.target = x.target;
  e.cli = x.cli;
  e.model = x.model;
  e.attempt = x.attempt;
  e.identity = x.identity;
  e.locator = x.locator_path;
  return e;
}

run_event to_run_event(const messages::attempt_ended& x) {
  auto e = base(run_event_kind::attempt_finished, x.time, x.task);
  e.role = x.role;
  e.target = x.target;
  e.identity = x.identity;
  e.attempt_status = x.status;
  e.exit_code = x.exit_code;
  e.failure_class = x.failure_class;
  e.evidence = x.evidence;
  e.locator = x.locator_path;
  return e;
}

run_event to_run_event(const messages::failover_done& x) {
  return route_event(run_event_kind::failover, x);
}

run_event to_run_event(const messages::promotion_done& x) {
  return route_event(run_event_kind::promotion, x);
}

run_event to_run_event(const messages::tactical_matched& x) {
  auto e = base(run_event_kind::tactical_match, x.time, x.task);
  e.role = x.role;
  e.target = x.target;
  e.pattern_ids = x.pattern_ids;
  e.action = x.action;
  return e;
}

run_event to_run_event(const messages::supervisor_waiting& x) {
  auto e = base(run_event_kind::supervisor_wait, x.time, x.task);
  e.role = x.role;
  e.target = x.target;
  e.until = x.until;
  e.reason = x.reason;
  return e;
}

run_event to_run_event(const messages::run_summary& x) {
  auto e = base(run_event_kind::summary, x.time, "");
  for (const auto& c : x.counts)
    e.counts.push_back({c.status, c.count});
  e.exit_code = x.exit_code;
  e.reason = x.reason;
  return e;
}

} // namespace ad::actors

#pragma once
// Converts the run event messages (messages/run_events.hpp) into the plain
// runtime::run_event the renderers consume (runtime/report). One overload per
// message; pure, no actor code beyond the message types, never throws.

#include "messages/run_events.hpp"
#include "runtime/report/run_event.hpp"

namespace ad::actors {

runtime::run_event to_run_event(const messages::tasks_scanned& x);
runtime::run_event to_run_event(const messages::task_started& x);
runtime::run_event to_run_event(const messages::task_finished& x);
runtime::run_event to_run_event(const messages::task_failed& x);
runtime::run_event to_run_event(const messages::task_blocked& x);
runtime::run_event to_run_event(const messages::task_waiting& x);
runtime::run_event to_run_event(const messages::attempt_began& x);
runtime::run_event to_run_event(const messages::attempt_ended& x);
runtime::run_event to_run_event(const messages::failover_done& x);
runtime::run_event to_run_event(const messages::promotion_done& x);
runtime::run_event to_run_event(const messages::tactical_matched& x);
runtime::run_event to_run_event(const messages::supervisor_waiting& x);
runtime::run_event to_run_event(const messages::run_summary& x);

} // namespace ad::actors

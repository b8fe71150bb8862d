#include "messages/run_events.hpp"

#include <caf/all.hpp>

namespace ad::messages {

void add_run_event_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<task_started>("task_started");
  cfg.add_message_type<task_finished>("task_finished");
  cfg.add_message_type<task_failed>("task_failed");
  cfg.add_message_type<task_blocked>("task_blocked");
  cfg.add_message_type<task_waiting>("task_waiting");
  cfg.add_message_type<task_status_entry>("task_status_entry");
  cfg.add_message_type<tasks_scanned>("tasks_scanned");
  cfg.add_message_type<attempt_began>("attempt_began");
  cfg.add_message_type<attempt_ended>("attempt_ended");
  cfg.add_message_type<failover_done>("failover_done");
  cfg.add_message_type<promotion_done>("promotion_done");
  cfg.add_message_type<tactical_matched>("tactical_matched");
  cfg.add_message_type<supervisor_waiting>("supervisor_waiting");
  cfg.add_message_type<status_count>("status_count");
  cfg.add_message_type<run_summary>("run_summary");
  cfg.add_message_type<runtime::report_task_entry>("report_task_entry");
  cfg.add_message_type<runtime::report_count>("report_count");
  cfg.add_message_type<runtime::run_event>("run_event");
  cfg.add_message_type<flush_output>("flush_output");
  cfg.add_message_type<stop_output>("stop_output");
  cfg.add_message_type<output_flushed>("output_flushed");
  cfg.add_message_type<shutdown_requested>("shutdown_requested");
}

} // namespace ad::messages

#include "messages/run_events.hpp"

#include <caf/all.hpp>

namespace ad::messages {

void add_run_event_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<runtime::report_task_entry>("report_task_entry");
  cfg.add_message_type<runtime::report_count>("report_count");
  cfg.add_message_type<runtime::run_event>("run_event");
  cfg.add_message_type<flush_output>("flush_output");
  cfg.add_message_type<stop_output>("stop_output");
  cfg.add_message_type<output_flushed>("output_flushed");
  cfg.add_message_type<shutdown_requested>("shutdown_requested");
}

} // namespace ad::messages

#include "messages/scheduler.hpp"

#include <caf/all.hpp>

namespace ad::messages {

void add_scheduler_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<task_ended>("scheduler_task_ended");
  cfg.add_message_type<run_finished>("scheduler_run_finished");
  cfg.add_message_type<stop_run>("scheduler_stop_run");
}

} // namespace ad::messages

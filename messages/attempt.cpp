#include "messages/attempt.hpp"

#include <caf/all.hpp>

namespace ad::messages {

void add_attempt_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<attempt_timing>("attempt_timing");
  cfg.add_message_type<cli_launch_caps>("cli_launch_caps");
  cfg.add_message_type<attempt_progress_rule>("attempt_progress_rule");
  cfg.add_message_type<start_attempt>("start_attempt");
  cfg.add_message_type<attempt_result>("attempt_result");
  cfg.add_message_type<adopt_attempt>("adopt_attempt");
  cfg.add_message_type<cancel_attempt>("cancel_attempt");
  cfg.add_message_type<place_attempt>("place_attempt");
  cfg.add_message_type<attempt_placement>("attempt_placement");
  cfg.add_message_type<pi_watch_target>("pi_watch_target");
  cfg.add_message_type<pi_phase_report>("pi_phase_report");
  cfg.add_message_type<pi_session_observed>("pi_session_observed");
  cfg.add_message_type<pi_phase_changed>("pi_phase_changed");
}

} // namespace ad::messages

#include "messages/claims.hpp"

#include <caf/all.hpp>

namespace ad::messages {

void add_claims_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<attempt_watch_begin>("attempt_watch_begin");
  cfg.add_message_type<attempt_watch_ready>("attempt_watch_ready");
  cfg.add_message_type<attempt_watch_agent>("attempt_watch_agent");
  cfg.add_message_type<attempt_watch_end>("attempt_watch_end");
  cfg.add_message_type<attempt_watch_judged>("attempt_watch_judged");
  cfg.add_message_type<attempt_watch_done>("attempt_watch_done");
  cfg.add_message_type<runtime::live_violation>("live_violation");
  cfg.add_message_type<claim_violation_noted>("claim_violation_noted");
  cfg.add_message_type<violating_attempt_ended>("violating_attempt_ended");
  cfg.add_message_type<claim_listener_set>("claim_listener_set");
  cfg.add_message_type<claim_watch_query>("claim_watch_query");
  cfg.add_message_type<claim_watch_info>("claim_watch_info");
}

} // namespace ad::messages

#include "messages/node.hpp"

#include <caf/all.hpp>

namespace ad::messages {

void add_node_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<node_hello>("node_hello");
  cfg.add_message_type<node_welcome>("node_welcome");
  cfg.add_message_type<lease_renew>("lease_renew");
  cfg.add_message_type<lease_granted>("lease_granted");
  cfg.add_message_type<node_start>("node_start");
  cfg.add_message_type<node_follow>("node_follow");
  cfg.add_message_type<node_cancel>("node_cancel");
  cfg.add_message_type<node_lease_check>("node_lease_check");
  cfg.add_message_type<node_connected>("node_connected");
  cfg.add_message_type<node_unreachable>("node_unreachable");
  cfg.add_message_type<node_pool_tick>("node_pool_tick");
}

} // namespace ad::messages

#include "messages/types.hpp"

#include <caf/all.hpp>

#include "messages/attempt.hpp"
#include "messages/claims.hpp"
#include "messages/node.hpp"
#include "messages/process.hpp"
#include "messages/quota.hpp"
#include "messages/scheduler.hpp"
#include "messages/run_events.hpp"
#include "messages/state.hpp"
#include "messages/supervisor.hpp"

namespace ad::messages {

std::string to_string(errc x) {
  switch (x) {
    case errc::retry_call: return "retry_call";
    case errc::retry_task: return "retry_task";
    case errc::state_unavailable: return "state_unavailable";
    case errc::state_corrupt: return "state_corrupt";
    case errc::invalid_request: return "invalid_request";
    case errc::conflict: return "conflict";
    case errc::not_found: return "not_found";
    case errc::cancelled: return "cancelled";
    case errc::node_lost: return "node_lost";
  }
  return "unknown";
}

void register_message_types(caf::actor_system_config& cfg) {
  cfg.add_error_category(caf::atom("ad"), [](uint8_t code, caf::atom_value,
                                              const caf::message& ctx) -> std::string {
    // "ad::<code>: <text>" for the usual single text, so an error that
    // wraps another reads as plain words, not nested escapes.
    std::string out = "ad::" + to_string(static_cast<errc>(code));
    if (ctx.size() == 1 && ctx.match_element<std::string>(0))
      out += ": " + ctx.get_as<std::string>(0);
    else if (!ctx.empty())
      out += "(" + caf::deep_to_string(ctx) + ")";
    return out;
  });
  // Each concern registers its own types here, e.g. add_state_messages(cfg);
  add_process_messages(cfg);
  add_attempt_messages(cfg);
  add_state_messages(cfg);
  add_supervisor_messages(cfg);
  add_scheduler_messages(cfg);
  add_run_event_messages(cfg);
  add_quota_messages(cfg);
  add_claims_messages(cfg);
  add_node_messages(cfg);
}

} // namespace ad::messages

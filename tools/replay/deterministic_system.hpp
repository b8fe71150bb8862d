#pragma once
// The actor system replay runs recorded actors in: CAF's `testing` scheduler
// policy (caf::scheduler::test_coordinator: no threads, messages run when
// the caller runs the scheduler, timeouts fire when it triggers them) with
// every message type of the dispatcher registered. One per replayed actor
// group; not shared between threads. An error of replay_error_category
// renders as the text it carries: an error reply recorded as CAF rendered
// it in the run is rendered the same way again.

#include <caf/all.hpp>

#include "messages/types.hpp"

namespace ad::tools {

inline constexpr caf::atom_value replay_error_category = caf::atom("replayed");

struct deterministic_config : caf::actor_system_config {
  deterministic_config() {
    set("scheduler.policy", caf::atom("testing"));
    messages::register_message_types(*this);
    add_error_category(replay_error_category,
                       [](uint8_t, caf::atom_value, const caf::message& ctx) -> std::string {
                         return ctx.match_element<std::string>(0) ? ctx.get_as<std::string>(0)
                                                                  : std::string();
                       });
  }
};

inline caf::scheduler::test_coordinator& test_scheduler(caf::actor_system& sys) {
  return dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
}

} // namespace ad::tools

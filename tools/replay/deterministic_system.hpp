#pragma once
// The actor system replay runs recorded actors in: CAF's `testing` scheduler
// policy (caf::scheduler::test_coordinator: no threads, messages run when
// the caller runs the scheduler, timeouts fire when it triggers them) with
// every message type of the dispatcher registered. One per replayed actor
// group; not shared between threads.

#include <caf/all.hpp>

#include "messages/types.hpp"

namespace ad::tools {

struct deterministic_config : caf::actor_system_config {
  deterministic_config() {
    set("scheduler.policy", caf::atom("testing"));
    messages::register_message_types(*this);
  }
};

inline caf::scheduler::test_coordinator& test_scheduler(caf::actor_system& sys) {
  return dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
}

} // namespace ad::tools

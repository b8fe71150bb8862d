#pragma once
// The local attempt host: implements attempt_host_actor by spawning one
// attempt actor per start_attempt (the attempt's answer goes straight to
// the requester) and forwarding cancel_attempt to the attempt with that
// identity. A remote node can provide the same interface later. Error
// contract: the attempt's own (see attempt_actor.hpp); a cancel for an
// identity it does not run is ignored.

#include <map>
#include <string>

#include "actors/attempt/attempt_actor.hpp"

namespace ad::actors {

struct attempt_host_state {
  static inline const char* name = "attempt_host";
  attempt_config cfg;
  std::map<std::string, messages::attempt_actor> running;  // by identity
};

messages::attempt_host_actor::behavior_type attempt_host_impl(
  messages::attempt_host_actor::stateful_pointer<attempt_host_state> self, attempt_config cfg);

} // namespace ad::actors

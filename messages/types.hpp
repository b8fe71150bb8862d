#pragma once
// The central header of the message layer: the shared atoms and the function
// that registers every message type and the error category with an actor
// system configuration. Domain message structs and actor interfaces live in
// one header per concern beside this one (messages/state.hpp, ...); each
// struct has a free inspect() so it can cross hosts. Messages are values:
// strings, integers, vectors and ids, never pointers or runtime objects.

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>

#include "messages/errc.hpp"

namespace ad::messages {

// Registers every message type of the project and the "ad" error category.
// Call once on each actor_system_config, coordinator and node alike, so type
// names match across hosts.
void register_message_types(caf::actor_system_config& cfg);

} // namespace ad::messages

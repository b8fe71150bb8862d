#pragma once
// Starting the durable state actors: opens nothing itself; takes a loaded
// runtime::durable_store (see durable_store::open, which reports torn tails
// and corruption before any actor exists) and spawns the serializer that
// owns it and the state store that serves its state. Callers talk to the
// store only; the serializer handle is returned for tests and shutdown.

#include <chrono>
#include <memory>

#include <caf/actor_system.hpp>

#include "messages/state.hpp"
#include "runtime/state/durable_store.hpp"

namespace ad::actors {

struct state_actors {
  messages::state_store_actor store;
  messages::state_serializer_actor serializer;
};

state_actors spawn_state_actors(caf::actor_system& sys,
                                std::unique_ptr<runtime::durable_store> store,
                                std::chrono::milliseconds write_timeout = std::chrono::seconds(60));

} // namespace ad::actors

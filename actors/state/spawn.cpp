#include "actors/state/spawn.hpp"

#include <caf/all.hpp>

#include "actors/state/serializer.hpp"
#include "actors/state/state_store.hpp"

namespace ad::actors {

state_actors spawn_state_actors(caf::actor_system& sys,
                                std::unique_ptr<runtime::durable_store> store,
                                std::chrono::milliseconds write_timeout) {
  state_store_config cfg;
  cfg.initial = store->state();
  cfg.initial_seq = store->last_seq();
  cfg.write_timeout = write_timeout;
  std::shared_ptr<runtime::durable_store> shared(std::move(store));
  auto serializer = sys.spawn(state_serializer, shared);
  cfg.serializer = serializer;
  auto store_actor = sys.spawn(state_store, std::move(cfg));
  return {store_actor, serializer};
}

} // namespace ad::actors

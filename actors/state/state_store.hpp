#pragma once
// The state store actor: holds the authoritative in-memory state (the
// durable state, nothing more), answers queries from it, and applies typed
// changes: apply_state_changes is forwarded as one journal entry to the
// serializer, and only when the serializer reports it durable are the changes
// applied and the reply sent. Replies therefore arrive in journal order, and
// a query sent after a reply was received sees the change. Queries never wait
// for pending writes (they see durable state only). Error contract: see
// messages/state.hpp (errc::state_unavailable once a durable write failed;
// errc::invalid_request for an empty change list).

#include <chrono>
#include <cstdint>

#include "messages/state.hpp"
#include "runtime/state/model.hpp"

namespace ad::actors {

struct state_store_config {
  messages::state_serializer_actor serializer;
  runtime::state_model initial;  // the state the serializer's store loaded
  uint64_t initial_seq = 0;
  std::chrono::milliseconds write_timeout{60000};
};

struct state_store_state {
  // Not an aggregate: CAF would otherwise try to build it from the actor pointer.
  state_store_state() = default;
  static inline const char* name = "state_store";
  messages::state_serializer_actor serializer;
  runtime::state_model model;
  uint64_t seq = 0;
  std::chrono::milliseconds write_timeout{60000};
  caf::error failed;  // set once a durable write failed
};

messages::state_store_actor::behavior_type state_store(
  messages::state_store_actor::stateful_pointer<state_store_state> self, state_store_config cfg);

} // namespace ad::actors

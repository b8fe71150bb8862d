#pragma once
// The state store actor: holds the authoritative in-memory state (the
// durable state, nothing more), answers queries from it, and applies typed
// changes: each apply_state_changes becomes one journal entry; the entries
// of every request that arrived together go to the serializer as one
// journal_batch (the first request schedules an st_batch_atom to the store
// itself, which lands behind the requests already in its mailbox), and only
// when the serializer reports them durable are the changes applied and the
// replies sent. Replies therefore arrive in journal order, and
// a query sent after a reply was received sees the change. Queries never wait
// for pending writes (they see durable state only). Error contract: see
// messages/state.hpp (errc::state_unavailable once a durable write failed;
// errc::invalid_request for an empty change list).

#include <chrono>
#include <cstdint>
#include <vector>

#include <caf/typed_response_promise.hpp>

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
  // Received but not yet sent to the serializer (see send_batch).
  std::vector<messages::journal_entry> pending;
  std::vector<caf::typed_response_promise<messages::state_changes_applied>> pending_promises;
  bool batch_scheduled = false;
  // Told of every entry once durable and applied (subscribe_state_changes).
  std::vector<messages::state_subscriber_actor> subscribers;
};

messages::state_store_actor::behavior_type state_store(
  messages::state_store_actor::stateful_pointer<state_store_state> self, state_store_config cfg);

} // namespace ad::actors

#pragma once
// The serializer actor: the only code that writes state files. It owns the
// runtime::durable_store. Each journal_batch (the entries the store received
// together) is queued; the first batch queued schedules an st_flush_atom to
// itself, which lands behind every message already in the mailbox, so one
// flush group-commits every entry of every batch that arrived together (one
// write, one fsync) and then replies to each batch in arrival order. After a failed write or sync every pending and later entry
// is answered with errc::state_unavailable (the store refuses further
// changes; a restart recovers). Never blocks on anything but its own file I/O.

#include <memory>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "messages/state.hpp"
#include "runtime/state/durable_store.hpp"

namespace ad::actors {

struct serializer_state {
  // Not an aggregate: CAF would otherwise try to build it from the actor pointer.
  serializer_state() = default;
  static inline const char* name = "state_serializer";
  std::shared_ptr<runtime::durable_store> store;
  std::vector<messages::journal_batch> queued;
  std::vector<caf::typed_response_promise<messages::journal_batch_durable>> promises;
  bool flush_scheduled = false;
};

messages::state_serializer_actor::behavior_type state_serializer(
  messages::state_serializer_actor::stateful_pointer<serializer_state> self,
  std::shared_ptr<runtime::durable_store> store);

} // namespace ad::actors

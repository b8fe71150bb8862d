#include "actors/state/serializer.hpp"

#include <caf/all.hpp>

namespace ad::actors {

using namespace ad::messages;

namespace {

std::vector<change_outcome> to_outcomes(const std::vector<runtime::status>& statuses) {
  std::vector<change_outcome> out;
  out.reserve(statuses.size());
  for (const auto& st : statuses)
    out.push_back({static_cast<uint8_t>(st.get_code()), st.is_ok() ? std::string() : st.message()});
  return out;
}

void flush(state_serializer_actor::stateful_pointer<serializer_state> self) {
  auto& s = self->state;
  s.flush_scheduled = false;
  auto batches = std::move(s.queued);
  auto promises = std::move(s.promises);
  s.queued.clear();
  s.promises.clear();
  if (batches.empty())
    return;
  // Every entry of every queued batch goes into one group commit.
  std::vector<std::vector<runtime::state_change>> entries;
  for (auto& batch : batches)
    for (auto& entry : batch.entries)
      entries.push_back(std::move(entry.changes));
  auto done = s.store->commit(entries);
  if (!done) {
    for (auto& rp : promises)
      rp.deliver(caf::make_error(errc::state_unavailable, done.error().to_string()));
    return;
  }
  size_t next = 0;
  for (size_t b = 0; b < promises.size(); ++b) {
    journal_batch_durable reply;
    reply.entries.reserve(batches[b].entries.size());
    for (size_t i = 0; i < batches[b].entries.size(); ++i, ++next)
      reply.entries.push_back({(*done)[next].seq, to_outcomes((*done)[next].outcomes)});
    promises[b].deliver(std::move(reply));
  }
}

} // namespace

state_serializer_actor::behavior_type state_serializer(
  state_serializer_actor::stateful_pointer<serializer_state> self,
  std::shared_ptr<runtime::durable_store> store) {
  self->state.store = std::move(store);
  return {
    [=](journal_batch& batch) -> caf::typed_response_promise<journal_batch_durable> {
      auto rp = self->make_response_promise<journal_batch_durable>();
      auto& s = self->state;
      s.queued.push_back(std::move(batch));
      s.promises.push_back(rp);
      if (!s.flush_scheduled) {
        s.flush_scheduled = true;
        self->send(self, st_flush_atom::value);
      }
      return rp;
    },
    [=](st_flush_atom) { flush(self); },
  };
}

} // namespace ad::actors

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
  auto entries = std::move(s.queued);
  auto promises = std::move(s.promises);
  s.queued.clear();
  s.promises.clear();
  if (entries.empty())
    return;
  auto done = s.store->commit(entries);
  if (!done) {
    for (auto& rp : promises)
      rp.deliver(caf::make_error(errc::state_unavailable, done.error().to_string()));
    return;
  }
  for (size_t i = 0; i < promises.size(); ++i)
    promises[i].deliver(journal_entry_durable{(*done)[i].seq, to_outcomes((*done)[i].outcomes)});
}

} // namespace

state_serializer_actor::behavior_type state_serializer(
  state_serializer_actor::stateful_pointer<serializer_state> self,
  std::shared_ptr<runtime::durable_store> store) {
  self->state.store = std::move(store);
  return {
    [=](journal_entry& entry) -> caf::typed_response_promise<journal_entry_durable> {
      auto rp = self->make_response_promise<journal_entry_durable>();
      auto& s = self->state;
      s.queued.push_back(std::move(entry.changes));
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

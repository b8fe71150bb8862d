#include "actors/state/state_store.hpp"

#include <caf/all.hpp>

#include "runtime/state/model_json.hpp"
#include "runtime/state/spend.hpp"

namespace ad::actors {

using namespace ad::messages;

namespace {

// Sends every entry received since the last batch to the serializer as one
// journal_batch; applies and acknowledges them once the serializer reports
// them durable.
void send_batch(state_store_actor::stateful_pointer<state_store_state> self) {
  auto& s = self->state;
  s.batch_scheduled = false;
  if (s.pending.empty())
    return;
  auto batch = std::make_shared<journal_batch>();
  batch->entries = std::move(s.pending);
  auto promises = std::make_shared<std::vector<caf::typed_response_promise<state_changes_applied>>>(
    std::move(s.pending_promises));
  s.pending.clear();
  s.pending_promises.clear();
  if (s.failed) {
    for (auto& rp : *promises)
      rp.deliver(s.failed);
    return;
  }
  self->request(s.serializer, s.write_timeout, *batch)
    .then(
      [=](journal_batch_durable& done) {
        auto& st = self->state;
        if (done.entries.size() != batch->entries.size()) {
          st.failed = caf::make_error(errc::state_unavailable,
                                      "durable state write answered "
                                        + std::to_string(done.entries.size()) + " of "
                                        + std::to_string(batch->entries.size()) + " entries");
          for (auto& rp : *promises)
            rp.deliver(st.failed);
          return;
        }
        for (size_t i = 0; i < done.entries.size(); ++i) {
          for (const auto& c : batch->entries[i].changes)
            (void) runtime::apply_change(st.model, c);
          st.seq = done.entries[i].seq;
          for (const auto& sub : st.subscribers)
            self->send(sub, state_changes_published{st.seq, batch->entries[i].changes});
          (*promises)[i].deliver(
            state_changes_applied{done.entries[i].seq, std::move(done.entries[i].outcomes)});
        }
      },
      [=](caf::error& err) {
        // The entries may or may not be on disk: nothing more may be
        // written until a restart replays the journal.
        auto& st = self->state;
        st.failed = caf::make_error(errc::state_unavailable,
                                    "durable state write failed: " + self->system().render(err));
        for (auto& rp : *promises)
          rp.deliver(st.failed);
      });
}

} // namespace

state_store_actor::behavior_type state_store(
  state_store_actor::stateful_pointer<state_store_state> self, state_store_config cfg) {
  self->state.serializer = std::move(cfg.serializer);
  self->state.model = std::move(cfg.initial);
  self->state.seq = cfg.initial_seq;
  self->state.write_timeout = cfg.write_timeout;
  return {
    [=](apply_state_changes& req) -> caf::typed_response_promise<state_changes_applied> {
      auto rp = self->make_response_promise<state_changes_applied>();
      auto& s = self->state;
      if (s.failed) {
        rp.deliver(s.failed);
        return rp;
      }
      if (req.changes.empty()) {
        rp.deliver(caf::make_error(errc::invalid_request, "apply_state_changes without changes"));
        return rp;
      }
      s.pending.push_back(journal_entry{std::move(req.changes)});
      s.pending_promises.push_back(rp);
      if (!s.batch_scheduled) {
        // Lands behind every request already in the mailbox: they all go
        // to the serializer as one batch.
        s.batch_scheduled = true;
        self->send(self, st_batch_atom::value);
      }
      return rp;
    },
    [=](st_batch_atom) { send_batch(self); },
    [=](get_task_state& q) {
      task_state_reply reply;
      reply.task = q.task;
      auto it = self->state.model.tasks.find(q.task);
      if (it != self->state.model.tasks.end()) {
        reply.found = true;
        reply.state = it->second;
      }
      return reply;
    },
    [=](get_task_spend& q) {
      const auto& model = self->state.model;
      return task_spend_reply{runtime::task_spend(model, q.task),
                              runtime::spend_totals_of(model).run};
    },
    [=](get_state_snapshot) {
      return state_snapshot_reply{self->state.seq, self->state.model};
    },
    [=](subscribe_state_changes) {
      if (auto sub = caf::actor_cast<state_subscriber_actor>(self->current_sender()))
        self->state.subscribers.push_back(std::move(sub));
      return state_snapshot_reply{self->state.seq, self->state.model};
    },
    [=](get_claims) {
      claims_reply reply;
      for (const auto& [owner, claim] : self->state.model.claims)
        reply.claims.push_back({owner, claim.kind == runtime::claim_kind::exclusive,
                                std::vector<std::string>(claim.paths.begin(), claim.paths.end())});
      return reply;
    },
  };
}

} // namespace ad::actors

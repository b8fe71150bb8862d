#include "actors/state/state_store.hpp"

#include <caf/all.hpp>

#include "runtime/state/model_json.hpp"

namespace ad::actors {

using namespace ad::messages;

state_store_actor::behavior_type state_store(
  state_store_actor::stateful_pointer<state_store_state> self, state_store_config cfg) {
  self->state.serializer = std::move(cfg.serializer);
  self->state.model = std::move(cfg.initial);
  self->state.seq = cfg.initial_seq;
  self->state.write_timeout = cfg.write_timeout;
  return {
    [=](apply_state_changes& req) -> caf::typed_response_promise<state_changes_applied> {
      auto rp = self->make_response_promise<state_changes_applied>();
      if (self->state.failed) {
        rp.deliver(self->state.failed);
        return rp;
      }
      if (req.changes.empty()) {
        rp.deliver(caf::make_error(errc::invalid_request, "apply_state_changes without changes"));
        return rp;
      }
      auto changes = std::make_shared<std::vector<runtime::state_change>>(std::move(req.changes));
      self->request(self->state.serializer, self->state.write_timeout, journal_entry{*changes})
        .then(
          [=](journal_entry_durable& done) mutable {
            auto& s = self->state;
            state_changes_applied reply{done.seq, std::move(done.outcomes)};
            for (const auto& c : *changes)
              (void) runtime::apply_change(s.model, c);
            s.seq = done.seq;
            rp.deliver(std::move(reply));
          },
          [=](caf::error& err) mutable {
            // The entry may or may not be on disk: nothing more may be
            // written until a restart replays the journal.
            self->state.failed = caf::make_error(
              errc::state_unavailable, "durable state write failed: " + self->system().render(err));
            rp.deliver(self->state.failed);
          });
      return rp;
    },
    [=](get_task_state& q) {
      task_state_reply reply;
      reply.task = q.task;
      auto it = self->state.model.tasks.find(q.task);
      if (it != self->state.model.tasks.end()) {
        reply.found = true;
        reply.state_json = runtime::task_to_json_text(it->second);
      }
      return reply;
    },
    [=](get_state_snapshot) {
      return state_snapshot_reply{self->state.seq, runtime::state_to_json_text(self->state.model)};
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

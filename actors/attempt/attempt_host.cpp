#include "actors/attempt/attempt_host.hpp"

#include "runtime/agents/attempt_locator.hpp"

namespace ad::actors {

messages::attempt_host_actor::behavior_type attempt_host_impl(
  messages::attempt_host_actor::stateful_pointer<attempt_host_state> self, attempt_config cfg) {
  self->state.cfg = std::move(cfg);
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& running = self->state.running;
    for (auto i = running.begin(); i != running.end(); ++i)
      if (i->second.address() == dm.source) {
        running.erase(i);
        return;
      }
  });
  return {
    [self](messages::start_attempt& req) -> caf::delegated<messages::attempt_result> {
      auto identity =
        runtime::make_attempt_identity(req.task, req.plan_number, req.role, req.attempt);
      auto attempt = self->spawn(attempt_impl, self->state.cfg);
      self->monitor(attempt);
      self->state.running[identity] = attempt;
      return self->delegate(attempt, std::move(req));
    },
    [self](messages::adopt_attempt& req) -> caf::delegated<messages::attempt_result> {
      auto identity = runtime::make_attempt_identity(req.order.task, req.order.plan_number,
                                                     req.order.role, req.order.attempt);
      auto attempt = self->spawn(attempt_impl, self->state.cfg);
      self->monitor(attempt);
      self->state.running[identity] = attempt;
      return self->delegate(attempt, std::move(req));
    },
    [](messages::place_attempt&) { return messages::attempt_placement{"local", ""}; },
    [self](messages::cancel_attempt& cancel) {
      auto i = self->state.running.find(cancel.identity);
      if (i != self->state.running.end())
        self->send(i->second, cancel);
    },
  };
}

} // namespace ad::actors

#include "actors/supervisor/supervisor_actor.hpp"

#include <caf/all.hpp>

#include "runtime/policy/supervisor.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {

using namespace ad::messages;

supervisor_actor::behavior_type supervisor(
  supervisor_actor::stateful_pointer<supervisor_state> self, runtime::policy pol,
  runtime::time_zone zone, std::shared_ptr<runtime::trace_writer> trace,
  cooldown_observer observer) {
  self->state.pol = std::move(pol);
  self->state.zone = std::move(zone);
  self->state.trace = std::move(trace);
  self->state.observer = std::move(observer);
  return {
    [self](supervise_failure& msg) -> supervision_decided {
      auto& st = self->state;
      auto out =
        runtime::supervise_with_cooldowns(st.pol, st.zone, st.cooldowns, msg.task, msg.request,
                                          msg.now);
      if (st.trace)
        st.trace->edge_and_decision(
          runtime::trace_kinds::supervisor_failure,
          runtime::supervisor_failure_body(msg.request, msg.task, msg.now),
          runtime::trace_kinds::supervisor_step, runtime::supervisor_step_body(out));
      if (st.observer)
        st.observer(st.cooldowns);
      return {std::move(out.step), std::move(out.changes), std::move(out.events)};
    },
    [self](get_target_cooldowns&) -> target_cooldowns_reply {
      return {self->state.cooldowns};
    },
    [self](quota_batch_taken& msg) {
      if (self->state.trace)
        self->state.trace->edge(runtime::trace_kinds::quota_batch,
                                runtime::json{{"snapshot", runtime::to_json(msg.snapshot)}});
      self->state.cooldowns.apply_snapshot(msg.snapshot, self->state.pol.timeouts.quota_cooldown_s);
      if (self->state.observer)
        self->state.observer(self->state.cooldowns);
    },
  };
}

supervisor_actor spawn_supervisor(caf::actor_system& sys, runtime::policy pol,
                                  runtime::time_zone zone,
                                  std::shared_ptr<runtime::trace_writer> trace,
                                  cooldown_observer observer) {
  return sys.spawn(supervisor, std::move(pol), std::move(zone), std::move(trace),
                   std::move(observer));
}

} // namespace ad::actors

#include "actors/supervisor/supervisor_actor.hpp"

#include <caf/all.hpp>

#include "runtime/policy/supervisor.hpp"
#include "runtime/replay/decision_records.hpp"
#include "runtime/replay/pure_replay.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {

using namespace ad::messages;

namespace {

caf::error bad_request(const runtime::status& st) {
  return caf::make_error(errc::invalid_request, st.message());
}

} // namespace

supervisor_actor::behavior_type supervisor(
  supervisor_actor::stateful_pointer<supervisor_state> self, runtime::policy pol,
  runtime::time_zone zone, std::shared_ptr<runtime::trace_writer> trace) {
  self->state.pol = std::move(pol);
  self->state.zone = std::move(zone);
  self->state.trace = std::move(trace);
  return {
    [self](supervise_failure& msg) -> caf::result<supervision_decided> {
      auto doc = runtime::parse_json(msg.request_json, "supervise_failure.request_json");
      if (!doc)
        return bad_request(doc.error());
      auto req = runtime::supervisor_request_from_json(*doc);
      if (!req)
        return bad_request(req.error());
      auto task = runtime::task_from_json_text(msg.task_state_json, "supervise_failure.task_state");
      if (!task)
        return bad_request(task.error());
      auto& st = self->state;
      auto out = runtime::supervise_with_cooldowns(st.pol, st.zone, st.cooldowns, *task, *req, msg.now);
      int64_t edge = 0;
      if (st.trace) {
        edge = st.trace->edge(runtime::trace_kinds::supervisor_failure,
                              runtime::supervisor_failure_body(msg.request_json,
                                                               msg.task_state_json, msg.now));
        st.trace->decision(runtime::trace_kinds::supervisor_step, edge,
                           runtime::supervisor_step_body(out));
      }
      supervision_decided reply;
      reply.step = std::string(runtime::step_name(out.step));
      reply.step_json = runtime::dump_json(runtime::to_json(out.step));
      reply.changes = std::move(out.changes);
      reply.trace_seq = edge;
      for (const auto& e : out.events)
        reply.events.push_back(runtime::dump_json(runtime::to_json(e)));
      return reply;
    },
    [self](stage_succeeded& msg) -> caf::result<supervision_changes> {
      auto task = runtime::task_from_json_text(msg.task_state_json, "stage_succeeded.task_state");
      if (!task)
        return bad_request(task.error());
      return supervision_changes{runtime::on_attempt_succeeded(msg.task, *task, msg.stage)};
    },
    [](retry_blocked_task& msg) -> caf::result<retry_cleared> {
      auto task = runtime::task_from_json_text(msg.task_state_json, "retry_blocked_task.task_state");
      if (!task)
        return bad_request(task.error());
      auto cleared = runtime::clear_for_retry(msg.task, *task, msg.now);
      retry_cleared reply;
      reply.changes = std::move(cleared.changes);
      if (cleared.handoff) {
        reply.has_handoff = true;
        reply.handoff_id = cleared.handoff->id;
        reply.failed_target = cleared.handoff->failed_target;
        reply.locator = cleared.handoff->locator;
      }
      return reply;
    },
    [self](get_target_cooldowns&) -> target_cooldowns_reply {
      return {runtime::dump_json(runtime::to_json(self->state.cooldowns))};
    },
    [self](quota_batch_taken& msg) {
      auto doc = runtime::parse_json(msg.snapshot_json, "quota_batch_taken");
      if (!doc)
        return;
      auto snap = runtime::probe_snapshot_from_json(*doc);
      if (!snap)
        return;
      if (self->state.trace)
        self->state.trace->edge(runtime::trace_kinds::quota_batch,
                                runtime::json{{"snapshot", *doc}});
      self->state.cooldowns.apply_snapshot(*snap, self->state.pol.timeouts.quota_cooldown_s);
    },
  };
}

supervisor_actor spawn_supervisor(caf::actor_system& sys, runtime::policy pol,
                                  runtime::time_zone zone,
                                  std::shared_ptr<runtime::trace_writer> trace) {
  return sys.spawn(supervisor, std::move(pol), std::move(zone), std::move(trace));
}

} // namespace ad::actors

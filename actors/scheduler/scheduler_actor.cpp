#include "actors/scheduler/scheduler_actor.hpp"

#include "actors/scheduler/scheduler_steps.hpp"
#include "actors/scheduler/task_actor.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::scheduler_actor::stateful_pointer<scheduler_state>;

void request_pass(self_ptr self);

void finish_if_idle(self_ptr self) {
  auto& s = self->state;
  if (s.finished || s.pass_in_flight || !s.running.empty())
    return;
  if (!s.stopping && s.terminal_error.empty() && (!s.survivors.empty() || !s.paused.empty()))
    return;
  s.finished = true;
  auto done = finish_run(s);
  self->send(s.waiter, std::move(done));
  self->quit();
}

void apply(self_ptr self, std::vector<runtime::state_change> changes, std::function<void()> k) {
  if (changes.empty()) {
    k();
    return;
  }
  self->request(self->state.ctx->store, self->state.ctx->state_timeout,
                messages::apply_state_changes{std::move(changes)})
    .then([k](const messages::state_changes_applied&) { k(); },
          [self](caf::error& err) {
            auto& s = self->state;
            s.terminal_error = "state store refused a change: " + self->system().render(err);
            s.pass_in_flight = false;
            finish_if_idle(self);
          });
}

void run_pass(self_ptr self) {
  auto& s = self->state;
  s.pass_in_flight = true;
  s.pass_wanted = false;
  self->request(s.ctx->store, s.ctx->state_timeout, messages::get_state_snapshot{})
    .then(
      [self](const messages::state_snapshot_reply& r) {
        auto& s = self->state;
        auto model = runtime::state_from_json_text(r.state_json, "state snapshot");
        if (!model.is_ok()) {
          s.terminal_error = model.error().message();
          s.pass_in_flight = false;
          finish_if_idle(self);
          return;
        }
        if (s.first_pass) {
          s.first_pass = false;
          auto changes = startup_changes(s, *model);
          apply(self, std::move(changes), [self] { run_pass(self); });
          return;
        }
        auto decided = decide_pass(s, *model);
        apply(self, std::move(decided.changes), [self, decided] {
          auto& s = self->state;
          for (const auto& spec : decided.start) {
            if (s.stopping || !s.terminal_error.empty())
              break;
            auto handle = self->spawn(task_actor_impl, s.ctx, spec,
                                      messages::scheduler_actor{self});
            s.running.emplace(spec.name, handle);
          }
          s.pass_in_flight = false;
          if ((!s.survivors.empty() || !s.paused.empty()) && !s.poll_scheduled) {
            s.poll_scheduled = true;
            self->delayed_send(self, s.ctx->survivor_poll, messages::sch_poll_atom::value);
          }
          if (s.pass_wanted && !s.stopping)
            run_pass(self);
          else
            finish_if_idle(self);
        });
      },
      [self](caf::error& err) {
        auto& s = self->state;
        s.terminal_error = "state store unavailable: " + self->system().render(err);
        s.pass_in_flight = false;
        finish_if_idle(self);
      });
}

void request_pass(self_ptr self) {
  auto& s = self->state;
  if (s.stopping || !s.terminal_error.empty()) {
    finish_if_idle(self);
    return;
  }
  if (s.pass_in_flight) {
    s.pass_wanted = true;
    return;
  }
  run_pass(self);
}

} // namespace

messages::scheduler_actor::behavior_type scheduler_impl(self_ptr self, run_context_ptr ctx,
                                                        messages::run_waiter_actor waiter) {
  self->state.ctx = std::move(ctx);
  self->state.waiter = std::move(waiter);
  self->send(self, messages::sch_pass_atom::value);
  return {
    [self](messages::sch_pass_atom) { request_pass(self); },
    [self](messages::sch_poll_atom) {
      self->state.poll_scheduled = false;
      if (!self->state.survivors.empty() || !self->state.paused.empty())
        request_pass(self);
    },
    [self](messages::task_ended& ended) {
      auto& s = self->state;
      s.running.erase(ended.task);
      note_task_ended(s, ended);
      request_pass(self);
    },
    [self](messages::shutdown_requested&) {
      auto& s = self->state;
      if (s.stopping)
        return;
      s.stopping = true;
      s.interrupted = true;
      for (auto& [name, handle] : s.running)
        self->send(handle, messages::stop_run{"interrupted"});
      finish_if_idle(self);
    },
  };
}

} // namespace ad::actors

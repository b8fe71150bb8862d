#include "actors/scheduler/task_actor.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "actors/scheduler/task_steps.hpp"
#include "actors/scheduler/trace_points.hpp"
#include "runtime/policy/selection.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/attempt_snapshots.hpp"
#include "runtime/run/crash_point.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::task_actor::stateful_pointer<task_actor_state>;

// cause: the trace edge the ending was decided on (0: none).
void end_task(self_ptr self, std::string outcome, std::string reason, int64_t pause_ms = 0,
              int64_t cause = 0) {
  auto& s = self->state;
  trace_task_end(s, outcome, reason, pause_ms, cause);
  self->send(s.scheduler, messages::task_ended{s.spec.name, s.spec.stage, std::move(outcome),
                                               std::move(reason), pause_ms});
  self->quit();
}

// A request answered with an error ends the task "error" (task.error).
void end_on_error(self_ptr self, std::string_view peer, const caf::error& err) {
  auto text = self->system().render(err);
  auto edge = trace_task_error(self->state, peer, text);
  end_task(self, "error", error_end_reason(peer, text), 0, edge);
}

// Makes changes durable, then continues with k (or ends the task "error").
void persist(self_ptr self, std::vector<runtime::state_change> changes, std::function<void()> k) {
  if (changes.empty()) {
    k();
    return;
  }
  self->request(self->state.ctx->store, self->state.ctx->state_timeout,
                messages::apply_state_changes{std::move(changes)})
    .then([k](const messages::state_changes_applied&) { k(); },
          [self](caf::error& err) { end_on_error(self, "state store", err); });
}

// Reloads the task's durable state, then continues with k.
void refresh(self_ptr self, std::function<void()> k) {
  self->request(self->state.ctx->store, self->state.ctx->state_timeout,
                messages::get_task_state{self->state.spec.name})
    .then(
      [self, k](messages::task_state_reply& r) {
        if (r.found)
          self->state.st = std::move(r.state);
        k();
      },
      [self](caf::error& err) { end_on_error(self, "state store", err); });
}

// A stop that came while a request was open ends the task here, before it
// waits or launches.
void end_cancelled(self_ptr self) {
  end_task(self, "cancelled", "stopped by shutdown", 0, self->state.stop_edge);
}

void after_delay(self_ptr self, runtime::millis delay, std::function<void()> k) {
  if (self->state.cancelled) {
    end_cancelled(self);
    return;
  }
  if (delay <= 0) {
    k();
    return;
  }
  self->state.on_wake = std::move(k);
  self->state.timer_pending = true;
  self->delayed_send(self, std::chrono::milliseconds(delay), messages::task_wake_atom::value);
}

void launch(self_ptr self, std::string target_id, std::string prompt,
            std::vector<runtime::state_change> pre, std::string consume_handoff,
            std::string native_session);

void on_failure(self_ptr self, const messages::attempt_result& r) {
  auto& s = self->state;
  auto now = s.ctx->clk->now();
  messages::supervise_failure req{supervisor_request_of(s, r), s.st, now};
  self->request(s.ctx->supervisor, s.ctx->state_timeout, std::move(req))
    .then(
      [self, identity = r.identity](messages::supervision_decided& d) {
        auto& s = self->state;
        auto step = parse_step(d.step, s.ctx->clk->now());
        // The supervisor.failure edge the step was decided on.
        int64_t edge = s.ctx->trace ? s.ctx->trace->noted_cause(identity) : 0;
        persist(self, std::move(d.changes), [self, step, events = std::move(d.events), edge] {
          runtime::crash_point("after-decision");
          emit_tactical_events(self->state, events, step);
          emit_step_event(self->state, step);
          if (step.kind == "block") {
            persist(self, {runtime::clear_active_stage{self->state.spec.name}},
                    [self, step, edge] { end_task(self, "blocked", step.reason, 0, edge); });
            return;
          }
          after_delay(self, step.delay, [self, step] {
            refresh(self, [self, step] {
              launch(self, step.target, step.prompt, {}, "", step.native_session);
            });
          });
        });
      },
      [self](caf::error& err) { end_on_error(self, "supervisor", err); });
}

// The attempt's end on fresh durable state: the supervisor after a failure,
// the stage step after a success.
void settle(self_ptr self, const messages::attempt_result& r) {
  auto& s = self->state;
  if (r.status != "succeeded") {
    trace_attempt_result(s, r, nullptr);
    on_failure(self, r);
    return;
  }
  auto reading = io_of(s).read_after_success(s, r);
  auto edge = trace_attempt_result(s, r, &reading);
  auto step = step_after_success(s.spec, s.st, s.ctx->pol, reading);
  trace_stage_step(s, edge, step);
  bool complete = step.next == runtime::stage_next::complete;
  persist(self, std::move(step.changes), [self, step, complete, edge] {
    auto& s = self->state;
    if (complete)
      io_of(s).remove_attempt_logs(s);
    end_task(self, std::string(runtime::to_string(step.next)), step.reason, step.pause, edge);
  });
}

void on_result(self_ptr self, messages::attempt_result r) {
  runtime::crash_point("after-attempt-end");
  auto& s = self->state;
  s.attempt_running = false;
  emit_attempt_ended(s, r);
  s.last_locator = r.locator_path;
  if (s.cancelled) {
    auto edge = trace_attempt_result(s, r, nullptr);
    persist(self, {runtime::clear_active_stage{s.spec.name}},
            [self, edge] { end_task(self, "cancelled", "stopped by shutdown", 0, edge); });
    return;
  }
  // The write set after the attempt, durable before the supervisor reads
  // the task's history (SPEC section 7).
  s.write_set_after = io_of(s).current_write_set(s);
  auto after = runtime::write_set_change(s.spec.name, s.identity, runtime::snapshot_phase::after,
                                         s.write_set_after);
  persist(self, {std::move(after)}, [self, r] { refresh(self, [self, r] { settle(self, r); }); });
}

void launch(self_ptr self, std::string target_id, std::string prompt,
            std::vector<runtime::state_change> pre, std::string consume_handoff,
            std::string native_session) {
  auto& s = self->state;
  if (s.cancelled) {
    end_cancelled(self);
    return;
  }
  const auto* target = s.ctx->pol.find_target(target_id);
  if (!target) {
    persist(self, {runtime::set_blocked{s.spec.name, {"unknown target " + target_id, ""}}},
            [self, target_id] { end_task(self, "blocked", "unknown target " + target_id); });
    return;
  }
  // A first selection arrives in `pre`, durable with the launch: the
  // attempt is built from it (launch settings depend on its candidates).
  for (const auto& change : pre)
    if (const auto* d = std::get_if<runtime::record_decision>(&change))
      if (d->decision.stage == s.spec.stage)
        s.st.decisions[d->decision.stage] = d->decision;
  auto launch_edge = trace_launch_inputs(s, target_id, prompt, native_session, consume_handoff);
  int64_t attempt = ++s.spec.last_attempt;
  if (s.spec.stage == "review")
    io_of(s).capture_review_baseline(s);
  auto req = make_start_attempt(s, *target, attempt, std::move(prompt), std::move(native_session),
                                consume_handoff);
  pre.push_back(runtime::record_attempt_started{s.spec.name, s.spec.stage, s.spec.plan_number,
                                                s.spec.stage, attempt, "", consume_handoff});
  pre.push_back(io_of(s).snapshot_before(
    s, runtime::make_attempt_identity(s.spec.name, s.spec.plan_number, s.spec.stage, attempt)));
  s.target = target_id;
  persist(self, std::move(pre), [self, req, launch_edge] {
    runtime::crash_point("before-launch");
    auto& s = self->state;
    s.identity = runtime::make_attempt_identity(req.task, req.plan_number, req.role, req.attempt);
    s.attempt_number = req.attempt;
    s.attempt_model = req.model;
    s.attempt_running = true;
    emit_attempt_began(s, req);
    trace_attempt_launch(s, req, launch_edge);
    self->request(s.ctx->host, s.ctx->attempt_timeout, req)
      .then([self](messages::attempt_result& r) { on_result(self, std::move(r)); },
            [self](caf::error& err) {
              self->state.attempt_running = false;
              end_on_error(self, "attempt", err);
            });
  });
}

// The supervisor's shared quota cool-downs (a target out of quota is skipped
// by every task), then continues with k; without an answer, with none.
void read_cooldowns(self_ptr self, std::function<void()> k) {
  self->request(self->state.ctx->supervisor, self->state.ctx->state_timeout,
                messages::get_target_cooldowns{})
    .then(
      [self, k](messages::target_cooldowns_reply& r) {
        self->state.cooldowns = std::move(r.cooldowns);
        k();
      },
      [k](caf::error&) { k(); });
}

void begin(self_ptr self) {
  read_cooldowns(self, [self] { refresh(self, [self] {
    auto& s = self->state;
    // A quota-reset wait made durable before a restart still holds.
    auto now = s.ctx->clk->now();
    auto step = decide_begin_traced(s, now);
    if (step.reset_until > 0) {
      emit_step_event(s, step.reset_wait);
      after_delay(self, step.reset_until - now, [self] { begin(self); });
      return;
    }
    auto& choice = step.choice;
    if (choice.wait_until > now) {
      emit_step_event(s, cooldown_wait(choice.wait_until, now, choice.wait_reason));
      after_delay(self, choice.wait_until - now, [self] { begin(self); });
      return;
    }
    if (!choice.blocked.empty()) {
      persist(self, std::move(choice.changes), [self, why = choice.blocked] {
        end_task(self, "blocked", why, 0, self->state.begin_edge);
      });
      return;
    }
    emit_task_started(s);
    launch(self, choice.target, choice.prompt, std::move(choice.changes), choice.consume_handoff,
           "");
  }); });
}

} // namespace

messages::task_actor::behavior_type task_actor_impl(self_ptr self, run_context_ptr ctx,
                                                    task_spec spec,
                                                    messages::scheduler_actor scheduler) {
  self->state.ctx = std::move(ctx);
  self->state.spec = std::move(spec);
  self->state.scheduler = std::move(scheduler);
  self->send(self, messages::task_wake_atom::value);
  self->state.on_wake = [self] { begin(self); };
  return {
    [self](messages::task_wake_atom) {
      if (std::exchange(self->state.timer_pending, false))
        trace_task_wake(self->state);
      auto k = std::move(self->state.on_wake);
      self->state.on_wake = nullptr;
      if (k)
        k();
    },
    [self](messages::stop_run&) {
      auto& s = self->state;
      s.cancelled = true;
      auto edge = trace_task_stop(s);
      s.stop_edge = edge;
      if (s.attempt_running) {
        trace_attempt_cancel(s, edge);
        self->send(s.ctx->host, messages::cancel_attempt{s.identity});
        return;
      }
      // Not running an attempt (pausing or waiting on state): end now.
      if (s.on_wake) {
        s.on_wake = nullptr;
        s.timer_pending = false;
        end_task(self, "cancelled", "stopped by shutdown", 0, edge);
      }
    },
  };
}

} // namespace ad::actors

#include "actors/scheduler/scheduler_actor.hpp"

#include <algorithm>

#include "actors/scheduler/claim_notes.hpp"
#include "actors/scheduler/quota_batch.hpp"
#include "actors/scheduler/scheduler_steps.hpp"
#include "actors/scheduler/task_actor.hpp"
#include "actors/scheduler/trace_points.hpp"
#include "runtime/run/crash_point.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::scheduler_actor::stateful_pointer<scheduler_state>;

void request_pass(self_ptr self);

// Every message the scheduler handles reads the clock once, and its steps
// use that reading; when tracing, the message enters the trace as
// scheduler.inbound in the order the actor handles it.
void inbound(self_ptr self, std::string_view message,
             const std::function<runtime::json()>& detail = {}) {
  auto& s = self->state;
  s.now = s.ctx->clk->now();
  s.inbound_seq = trace_scheduler_inbound(*s.ctx, message, s.now, detail);
}

runtime::json error_detail(self_ptr self, const caf::error& err) {
  return runtime::json{{"error", self->system().render(err)}};
}

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
    .then(
      [self, k](const messages::state_changes_applied& r) {
        inbound(self, "applied", [&r] { return runtime::json{{"seq", r.seq}}; });
        self->state.applied_seq = std::max(self->state.applied_seq, r.seq);
        k();
      },
      [self](caf::error& err) {
        inbound(self, "applied", [&] { return error_detail(self, err); });
        auto& s = self->state;
        s.terminal_error = "state store refused a change: " + self->system().render(err);
        s.pass_in_flight = false;
        finish_if_idle(self);
      });
}

void run_pass(self_ptr self);

// The admission quota batch (SPEC section 5): runs the planned probes once on
// the detached prober, tells the supervisor, and hands the snapshot to the
// admitted workers; without probes (or when they fail) starts them as they are.
void with_admission_quota(self_ptr self, const std::vector<runtime::planned_probe>& probes,
                          std::vector<task_spec> start,
                          std::function<void(std::vector<task_spec>)> k) {
  auto& s = self->state;
  if (probes.empty() || start.empty()) {
    k(std::move(start));
    return;
  }
  if (!s.prober)
    s.prober = s.io->start_quota_prober(self);
  auto now = s.now;
  auto id = "admission-" + std::to_string(now) + "-" + std::to_string(++s.quota_batches);
  self->request(s.prober, std::chrono::seconds(120),
                messages::run_quota_probes{probes, s.ctx->workspace, id, now})
    .then(
      [self, start, k](const messages::quota_probes_done& done) mutable {
        inbound(self, "quota",
                [&] { return runtime::json{{"snapshot", runtime::to_json(done.snapshot)}}; });
        self->send(self->state.ctx->supervisor, messages::quota_batch_taken{done.snapshot});
        attach_admission_quota(start, done.snapshot);
        k(std::move(start));
      },
      [self, start, k](caf::error& err) mutable {
        inbound(self, "quota", [&] { return error_detail(self, err); });
        k(std::move(start));
      });
}

// The pass proper, over the state mirror.
void pass_over_mirror(self_ptr self) {
  auto& s = self->state;
  if (s.mirror_seq < s.applied_seq) {
    // Our own changes are not in the mirror yet: their publication comes
    // first, and runs the pass.
    s.pass_in_flight = false;
    s.pass_deferred = true;
    return;
  }
  if (s.first_pass) {
    s.first_pass = false;
    auto changes = startup_changes(s, s.mirror);
    bool handoff = std::any_of(changes.begin(), changes.end(), [](const auto& c) {
      return std::holds_alternative<runtime::set_retry_handoff>(c);
    });
    apply(self, std::move(changes), [self, handoff] {
      if (handoff)
        runtime::crash_point("after-handoff");
      run_pass(self);
    });
    return;
  }
  auto decided = decide_pass(s, s.mirror);
  auto probes = admission_probe_plan(*s.ctx, decided.start, s.mirror, s.now);
  auto changes = std::move(decided.changes);
  decided.changes.clear();
  apply(self, std::move(changes), [self, decided, probes] {
    // Only now that the pass's changes are durable: its effects, then the
    // closing of finished groups, durable in turn before any start.
    after_pass_durable(self->state, decided);
    auto closing = close_groups(self->state, decided.closing);
    apply(self, std::move(closing), [self, decided, probes] {
    with_admission_quota(self, probes, decided.start, [self, decided](std::vector<task_spec> start) {
    auto& s = self->state;
    // Adopted attempts first: their tasks are followed here from now on.
    for (const auto& spec : decided.adopt) {
      if (s.stopping || !s.terminal_error.empty())
        break;
      auto handle = s.io->start_task(self, s.ctx, spec);
      s.running.emplace(spec.name, handle);
      s.touched.insert(spec.name);
    }
    for (const auto& spec : start) {
      if (s.stopping || !s.terminal_error.empty())
        break;
      auto handle = s.io->start_task(self, s.ctx, spec);
      s.running.emplace(spec.name, handle);
      s.touched.insert(spec.name); // now running here: re-examined next pass
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
    });
  });
}

void run_pass(self_ptr self) {
  auto& s = self->state;
  s.pass_in_flight = true;
  s.pass_wanted = false;
  if (s.subscribed) {
    pass_over_mirror(self);
    return;
  }
  // Once: the state as of now, and from then on every durable entry.
  self->request(s.ctx->store, s.ctx->state_timeout, messages::subscribe_state_changes{})
    .then(
      [self](messages::state_snapshot_reply& r) {
        inbound(self, "snapshot", [&r] {
          return runtime::json{{"seq", r.seq}, {"state", runtime::state_to_json(r.state)}};
        });
        auto& s = self->state;
        s.mirror = std::move(r.state);
        s.mirror_seq = r.seq;
        s.subscribed = true;
        pass_over_mirror(self);
      },
      [self](caf::error& err) {
        inbound(self, "snapshot", [&] { return error_detail(self, err); });
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
  const auto& c = *self->state.ctx;
  self->state.io = c.scheduler_io_factory ? c.scheduler_io_factory(c) : make_file_scheduler_io(c);
  self->send(self, messages::sch_pass_atom::value);
  return {
    [self](messages::sch_pass_atom) {
      inbound(self, "pass");
      request_pass(self);
    },
    [self](messages::sch_poll_atom) {
      inbound(self, "poll", [self] {
        return runtime::json{{"survivors", self->state.survivors.size()},
                             {"paused", self->state.paused.size()}};
      });
      self->state.poll_scheduled = false;
      if (!self->state.survivors.empty() || !self->state.paused.empty())
        request_pass(self);
    },
    [self](messages::task_ended& ended) {
      inbound(self, "task_ended", [&ended] {
        return runtime::json{{"task", ended.task},
                             {"stage", ended.stage},
                             {"outcome", ended.outcome},
                             {"reason", ended.reason},
                             {"pause_ms", ended.pause_ms}};
      });
      auto& s = self->state;
      s.running.erase(ended.task);
      note_task_ended(s, ended);
      request_pass(self);
    },
    [self](messages::state_changes_published& p) {
      inbound(self, "published", [&p] {
        return runtime::json{{"seq", p.seq}, {"changes", runtime::changes_body(p.changes)}};
      });
      auto& s = self->state;
      note_state_published(s, p);
      if (s.pass_deferred && s.mirror_seq >= s.applied_seq) {
        s.pass_deferred = false;
        request_pass(self);
      }
    },
    [self](messages::claim_violation_noted& v) {
      inbound(self, "claim_violation", [&v] { return claim_note_json(v); });
      auto& s = self->state;
      if (auto stop = note_claim_violation(s, v))
        self->send(*stop, messages::stop_run{v.reason});
      if (!v.stop_task.empty())
        request_pass(self); // the block is durable: the task is seen blocked
    },
    [self](messages::violating_attempt_ended& e) {
      inbound(self, "violation_ended", [&e] { return violation_ended_json(e); });
      if (note_violating_attempt_ended(self->state, e))
        request_pass(self);
    },
    [self](messages::shutdown_requested&) {
      inbound(self, "shutdown");
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

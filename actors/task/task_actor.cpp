#include "actors/task/task_actor.hpp"

#include <chrono>
#include <utility>

#include <spdlog/spdlog.h>

#include "runtime/core/overload.hpp"
#include "runtime/run/crash_point.hpp"
#include "runtime/run/task_files.hpp"
#include "runtime/trace/trace_kinds.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::task_actor::stateful_pointer<task_actor_state>;
namespace ev = runtime::task_ev;
namespace cmd = runtime::task_cmd;

const runtime::task_files& files_of(const task_actor_state& s) {
  return s.ctx->io ? *s.ctx->io : runtime::real_task_files();
}

void carry_out(self_ptr self, runtime::task_command c, runtime::millis now);

// Feeds one event to the machine at one clock reading, records both sides
// when tracing, and carries out the commands; reads answered at once are
// fed next, in order.
void feed(self_ptr self, runtime::task_event e) {
  auto& s = self->state;
  s.answered.push_back(std::move(e));
  if (s.feeding)
    return;
  s.feeding = true;
  while (!s.answered.empty() && s.machine && !s.machine->ended()) {
    auto next = std::move(s.answered.front());
    s.answered.pop_front();
    auto now = s.ctx->clk->now();
    runtime::json body;
    const auto& trace = s.ctx->trace;
    if (trace) {
      body = runtime::to_json(next);
      body["task"] = s.machine->spec().name;
      body["now"] = now;
      if (std::holds_alternative<ev::begun>(next))
        body["spec"] = runtime::to_json(s.machine->spec());
    }
    auto commands = s.machine->step(now, next);
    if (trace)
      trace->edge_and_decision(runtime::trace_kinds::task_event, body,
                               runtime::trace_kinds::task_commands,
                               runtime::json{{"task", s.machine->spec().name},
                                             {"commands", runtime::commands_to_json(commands)}});
    for (auto& c : commands)
      carry_out(self, std::move(c), now);
  }
  s.feeding = false;
}

void fail(self_ptr self, runtime::task_peer peer, const caf::error& err) {
  feed(self, ev::request_failed{peer, self->system().render(err)});
}

// An attempt has finished once it has ended and the run's claim watcher has
// judged its writes: a block for a write outside the claim is durable
// before the machine takes its next step (docs/claims.md). A watcher that
// does not answer delays the result by at most the state timeout.
void attempt_finished(self_ptr self, messages::attempt_result r) {
  const auto& ctx = *self->state.ctx;
  if (!ctx.claims) {
    feed(self, ev::attempt_finished{std::move(r)});
    return;
  }
  auto identity = r.identity;
  self->request(ctx.claims, ctx.state_timeout, messages::attempt_watch_judged{std::move(identity)})
    .then([self, r](const messages::attempt_watch_done&) { feed(self, ev::attempt_finished{r}); },
          [self, r](caf::error& err) {
            spdlog::warn("claims: the verdicts on {} are not known: {}", r.identity,
                         self->system().render(err));
            feed(self, ev::attempt_finished{r});
          });
}

void carry_out(self_ptr self, runtime::task_command c, runtime::millis now) {
  auto& s = self->state;
  const auto& ctx = *s.ctx;
  const auto& spec = s.machine->spec();
  using runtime::task_peer;
  std::visit(
    runtime::overload{
      [&](cmd::read_cooldowns&) {
        self->request(ctx.supervisor, ctx.state_timeout, messages::get_target_cooldowns{})
          .then(
            [self](messages::target_cooldowns_reply& r) {
              feed(self, ev::cooldowns_read{std::move(r.cooldowns)});
            },
            [self](caf::error& err) { fail(self, task_peer::supervisor, err); });
      },
      [&](cmd::read_task_state&) {
        self->request(ctx.store, ctx.state_timeout, messages::get_task_state{spec.name})
          .then(
            [self](messages::task_state_reply& r) {
              feed(self, ev::task_state_read{r.found, std::move(r.state)});
            },
            [self](caf::error& err) { fail(self, task_peer::state_store, err); });
      },
      [&](cmd::read_spend&) {
        self->request(ctx.store, ctx.state_timeout, messages::get_task_spend{spec.name})
          .then(
            [self](messages::task_spend_reply& r) {
              feed(self, ev::spend_read{std::move(r.task), std::move(r.run)});
            },
            [self](caf::error& err) { fail(self, task_peer::state_store, err); });
      },
      [&](cmd::make_durable& x) {
        self->request(ctx.store, ctx.state_timeout, messages::apply_state_changes{std::move(x.changes)})
          .then([self](const messages::state_changes_applied&) { feed(self, ev::durable{}); },
                [self](caf::error& err) { fail(self, task_peer::state_store, err); });
      },
      [&](cmd::read_for_launch& x) {
        s.answered.push_back(ev::launch_read{files_of(s).read_for_launch(s.task_ctx, spec, x)});
      },
      [&](cmd::start_attempt& x) {
        self->request(ctx.host, ctx.attempt_timeout, std::move(x.order))
          .then(
            [self](messages::attempt_result& r) { attempt_finished(self, std::move(r)); },
            [self](caf::error& err) { fail(self, task_peer::attempt, err); });
      },
      [&](cmd::adopt_attempt& x) {
        messages::adopt_attempt req{std::move(x.order), std::move(x.locator),
                                    static_cast<int32_t>(x.keeper_pid),
                                    std::move(x.keeper_start_token)};
        self->request(ctx.host, ctx.attempt_timeout, std::move(req))
          .then(
            [self](messages::attempt_result& r) { attempt_finished(self, std::move(r)); },
            [self](caf::error& err) { fail(self, task_peer::attempt, err); });
      },
      [&](cmd::place_attempt& x) {
        self->request(ctx.host, ctx.state_timeout,
                      messages::place_attempt{std::move(x.identity), std::move(x.task),
                                              std::move(x.adapter)})
          .then(
            [self](messages::attempt_placement& p) {
              feed(self, ev::placed{std::move(p.node), std::move(p.waiting_reason)});
            },
            [self](caf::error& err) { fail(self, task_peer::attempt, err); });
      },
      [&](cmd::cancel_attempt& x) { self->send(ctx.host, messages::cancel_attempt{x.identity}); },
      [&](cmd::read_after_attempt& x) {
        s.answered.push_back(ev::attempt_read{files_of(s).read_after_attempt(s.task_ctx, spec, x)});
      },
      [&](cmd::read_named_files& x) {
        s.answered.push_back(ev::named_files_read{files_of(s).named_files(x.query)});
      },
      [&](cmd::ask_supervisor& x) {
        messages::supervise_failure req{std::move(x.request), std::move(x.state), now};
        self->request(ctx.supervisor, ctx.state_timeout, std::move(req))
          .then(
            [self](messages::supervision_decided& d) {
              feed(self, ev::supervisor_decided{std::move(d.step), std::move(d.changes),
                                                std::move(d.events)});
            },
            [self](caf::error& err) { fail(self, task_peer::supervisor, err); });
      },
      [&](cmd::wake_at& x) {
        self->delayed_send(self, std::chrono::milliseconds(std::max<int64_t>(0, x.at - now)),
                           messages::task_wake_atom::value);
      },
      [&](cmd::checkpoint& x) { runtime::crash_point(x.name, x.role); },
      [&](cmd::remove_attempt_logs&) { files_of(s).remove_attempt_logs(s.task_ctx, spec); },
      [&](cmd::show& x) {
        if (ctx.out)
          self->send(ctx.out, std::move(x.event));
      },
      [&](cmd::note& x) { spdlog::info("{}", x.text); },
      [&](cmd::end_task& x) {
        self->send(s.scheduler, messages::task_ended{spec.name, spec.stage_name(), x.outcome,
                                                     x.reason, x.pause});
        self->quit();
      },
    },
    c);
}

} // namespace

runtime::task_context task_context_of(const run_context& ctx) {
  runtime::task_context t;
  t.pol = &ctx.pol;
  t.zone = &ctx.zone;
  t.workspace = ctx.workspace;
  t.workspace_id = ctx.workspace_id;
  t.task_root = ctx.task_root;
  t.runs_dir = ctx.runs_dir;
  t.cli_caps = ctx.cli_caps;
  t.timing = ctx.timing;
  t.place_on_nodes = ctx.place_on_nodes;
  return t;
}

messages::task_actor::behavior_type task_actor_impl(self_ptr self, run_context_ptr ctx,
                                                    task_spec spec,
                                                    messages::scheduler_actor scheduler) {
  auto& s = self->state;
  s.ctx = std::move(ctx);
  s.task_ctx = task_context_of(*s.ctx);
  s.scheduler = std::move(scheduler);
  s.machine = std::make_unique<runtime::task_machine>(s.task_ctx, std::move(spec));
  feed(self, ev::begun{});
  return {
    [self](messages::task_wake_atom) { feed(self, ev::woke{}); },
    [self](messages::stop_run&) { feed(self, ev::stop{}); },
  };
}

} // namespace ad::actors

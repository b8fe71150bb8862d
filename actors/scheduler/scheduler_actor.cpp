#include "actors/scheduler/scheduler_actor.hpp"

#include <algorithm>
#include <chrono>

#include "runtime/core/overload.hpp"
#include "runtime/records/scheduler_records.hpp"
#include "runtime/run/crash_point.hpp"
#include "runtime/trace/trace_kinds.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::scheduler_actor::stateful_pointer<scheduler_state>;
namespace ev = runtime::sched_ev;
namespace cmd = runtime::sched_cmd;

void carry_out(self_ptr self, runtime::scheduler_command c);

// Feeds one event to the machine at the clock reading of the message being
// handled, records both sides when tracing, and carries out the commands;
// reads answered at once are fed next, in order, at the same reading.
void feed(self_ptr self, runtime::scheduler_event e) {
  auto& s = self->state;
  s.answered.push_back(std::move(e));
  if (s.feeding)
    return;
  s.feeding = true;
  s.now = s.ctx->clk->now();
  while (!s.answered.empty() && !s.machine->finished()) {
    auto next = std::move(s.answered.front());
    s.answered.pop_front();
    // Recorded as it came in: the step moves a snapshot's state out of it.
    runtime::json body;
    if (s.ctx->trace) {
      body = runtime::to_json(next);
      body["now"] = s.now;
    }
    auto commands = s.machine->step(s.now, std::move(next));
    if (const auto& trace = s.ctx->trace) {
      trace->edge_and_decision(runtime::trace_kinds::scheduler_event, body,
                               runtime::trace_kinds::scheduler_commands,
                               runtime::json{{"commands", runtime::commands_to_json(commands)}});
    }
    for (auto& c : commands)
      carry_out(self, std::move(c));
  }
  s.answered.clear();
  s.feeding = false;
}

void fail(self_ptr self, runtime::scheduler_peer peer, const caf::error& err) {
  feed(self, ev::request_failed{peer, self->system().render(err)});
}

void carry_out(self_ptr self, runtime::scheduler_command c) {
  auto& s = self->state;
  const auto& ctx = *s.ctx;
  auto& io = *s.io;
  using runtime::scheduler_peer;
  std::visit(
    runtime::overload{
      [&](cmd::subscribe_state&) {
        self->request(ctx.store, ctx.state_timeout, messages::subscribe_state_changes{})
          .then(
            [self](messages::state_snapshot_reply& r) {
              feed(self, ev::state_snapshot{r.seq, std::move(r.state)});
            },
            [self](caf::error& err) { fail(self, scheduler_peer::state_store, err); });
      },
      [&](cmd::make_durable& x) {
        self->request(ctx.store, ctx.state_timeout,
                      messages::apply_state_changes{std::move(x.changes)})
          .then(
            [self](const messages::state_changes_applied& r) {
              feed(self, ev::state_applied{r.seq});
            },
            [self](caf::error& err) { fail(self, scheduler_peer::state_store, err); });
      },
      [&](cmd::probe_work_logs& x) {
        s.answered.push_back(ev::work_logs_probed{io.probe_work_logs(x.tasks)});
      },
      [&](cmd::read_active_stages& x) {
        s.answered.push_back(ev::active_stages_read{io.read_active_stages(x.state)});
      },
      [&](cmd::refresh_scan& x) {
        auto read = io.refresh_scan(x.also);
        if (read)
          s.answered.push_back(ev::scan_read{std::move(*read)});
        else
          s.answered.push_back(ev::scan_failed{read.error().message()});
      },
      [&](cmd::find_archives& x) {
        s.answered.push_back(ev::archives_found{io.archived_task_folders(x.tasks)});
      },
      [&](cmd::archive_work_logs& x) {
        ev::work_logs_archived moved;
        for (const auto& group : x.groups)
          moved.moved[group] = io.archive_work_log(group);
        s.answered.push_back(std::move(moved));
      },
      [&](cmd::remove_attempt_logs& x) { io.remove_attempt_logs(x.task); },
      [&](cmd::run_quota_probes& x) {
        if (!s.prober)
          s.prober = io.start_quota_prober(self);
        self->request(s.prober, std::chrono::seconds(120),
                      messages::run_quota_probes{std::move(x.plan), ctx.workspace,
                                                 std::move(x.id), s.now})
          .then(
            [self](messages::quota_probes_done& done) {
              feed(self, ev::quota_probed{std::move(done.snapshot)});
            },
            [self](caf::error& err) { fail(self, scheduler_peer::quota_prober, err); });
      },
      [&](cmd::tell_supervisor& x) {
        self->send(ctx.supervisor, messages::quota_batch_taken{std::move(x.snapshot)});
      },
      [&](cmd::start_task& x) {
        auto name = x.spec.name;
        s.tasks.insert_or_assign(std::move(name), io.start_task(self, s.ctx, x.spec));
      },
      [&](cmd::stop_task& x) {
        if (auto t = s.tasks.find(x.task); t != s.tasks.end())
          self->send(t->second, messages::stop_run{std::move(x.reason)});
      },
      [&](cmd::wake_at& x) {
        self->delayed_send(self, std::chrono::milliseconds(std::max<int64_t>(0, x.at - s.now)),
                           messages::sch_poll_atom::value);
      },
      [&](cmd::checkpoint& x) { runtime::crash_point(x.name); },
      [&](cmd::show& x) {
        if (ctx.out)
          self->send(ctx.out, std::move(x.event));
      },
      [&](cmd::finish_run& x) {
        self->send(s.waiter, messages::run_finished{x.exit_code, std::move(x.summary),
                                                    std::move(x.details)});
        self->quit();
      },
    },
    c);
}

} // namespace

runtime::scheduler_context scheduler_context_of(const run_context& ctx) {
  runtime::scheduler_context c;
  c.pol = &ctx.pol;
  c.zone = &ctx.zone;
  c.task_root = ctx.task_root;
  c.task_group = ctx.task_group;
  c.max_parallel = ctx.max_parallel;
  c.retry_blocked = ctx.retry_blocked;
  c.poll_every = ctx.elsewhere_poll.count();
  return c;
}

messages::scheduler_actor::behavior_type scheduler_impl(self_ptr self, run_context_ptr ctx,
                                                        messages::run_waiter_actor waiter) {
  auto& s = self->state;
  s.ctx = std::move(ctx);
  s.waiter = std::move(waiter);
  const auto& c = *s.ctx;
  s.io = c.scheduler_io_factory ? c.scheduler_io_factory(c) : make_file_scheduler_io(c);
  s.machine = std::make_unique<runtime::scheduler_machine>(scheduler_context_of(c));
  // The first pass runs as the actor's first message.
  self->send(self, messages::sch_pass_atom::value);
  return {
    [self](messages::sch_pass_atom) { feed(self, ev::begun{}); },
    [self](messages::sch_poll_atom) { feed(self, ev::poll{}); },
    [self](messages::task_ended& e) {
      self->state.tasks.erase(e.task);
      feed(self, ev::task_ended{std::move(e.task), std::move(e.stage), std::move(e.outcome),
                                std::move(e.reason), e.pause_ms});
    },
    [self](messages::state_changes_published& p) {
      feed(self, ev::state_published{p.seq, std::move(p.changes)});
    },
    [self](messages::claim_violation_noted& v) {
      feed(self, ev::claim_violation{std::move(v.live), std::move(v.task), std::move(v.stop_task),
                                     std::move(v.reason)});
    },
    [self](messages::violating_attempt_ended& e) {
      feed(self, ev::violation_ended{std::move(e.attempt)});
    },
    [self](messages::shutdown_requested&) { feed(self, ev::shutdown{}); },
  };
}

} // namespace ad::actors

#include "actors/claims/claim_watcher.hpp"

#include <filesystem>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "runtime/claims/observed_changes.hpp"
#include "runtime/claims/violation_outcome.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::claim_watcher_actor::stateful_pointer<claim_watcher_state>;
using attempt_map = std::map<std::string, runtime::watched_attempt>;

// Bounds one drain of a backlog (each call reads at most max_events_per_drain).
constexpr int max_drains = 64;

void open_watch(claim_watcher_state& s) {
  auto scope = runtime::claim_scope::make(
    {s.cfg.workspace, s.cfg.state_root,
     std::vector<std::filesystem::path>(s.cfg.exempt.begin(), s.cfg.exempt.end())});
  if (!scope) {
    s.note = "no claim checks: " + scope.error().message();
    spdlog::error("claims: {}", s.note);
    return;
  }
  s.scope = *scope;
  auto options = s.cfg.watch;
  options.mode = s.cfg.policy.watch == runtime::claim_watch_mode::snapshots
                   ? runtime::watch_mode::snapshots_only
                   : runtime::watch_mode::fanotify_when_permitted;
  auto watch = runtime::write_watch::open(*s.scope, options);
  if (watch) {
    s.watch.emplace(std::move(*watch));
    spdlog::info("claims: watching {} with fanotify", s.cfg.workspace);
    return;
  }
  s.note = watch.error().message();
  spdlog::info("claims: watching {} with snapshots ({})", s.cfg.workspace, s.note);
}

// Once no judgement is in flight: the violating attempts' ends go to the
// scheduler, and the task sides waiting for verdicts are answered (those
// whose writes no longer settle).
void flush_ended(self_ptr self) {
  auto& s = self->state;
  if (s.in_flight > 0)
    return;
  for (auto& attempt : s.ended)
    if (s.listener)
      self->send(s.listener,
                 messages::violating_attempt_ended{s.cfg.clock->now(), std::move(attempt)});
  s.ended.clear();
  std::erase_if(s.awaiting, [&s](claim_watcher_state::awaiting_verdicts& a) {
    if (s.monitor.settling_until(a.until))
      return false;
    a.rp.deliver(messages::attempt_watch_done{});
    return true;
  });
}

// The violation's effects after its record is durable (or refused).
void show_and_note(self_ptr self, const runtime::violation_outcome& o) {
  auto& s = self->state;
  if (s.cfg.out)
    self->send(s.cfg.out, o.event);
  for (const auto& r : o.rows)
    if (auto row = runtime::append_work_log(r.log, r.row, *s.cfg.clock); !row)
      spdlog::warn("claims: work log: {}", row.error().message());
  if (s.listener)
    self->send(s.listener, messages::claim_violation_noted{o.event.time, o.event.task,
                                                           o.event.identity, o.event.path, o.live,
                                                           o.stop_task, o.block_reason});
}

void carry_out(self_ptr self, const std::vector<runtime::claim_violation>& found,
               const attempt_map& attempts) {
  auto& s = self->state;
  for (const auto& v : found) {
    runtime::violation_input in;
    in.violation = &v;
    in.attempts = &attempts;
    in.live = s.monitor.live_after(v);
    in.action = s.cfg.policy.on_violation;
    in.workspace = s.cfg.workspace;
    in.now = s.cfg.clock->now();
    auto outcome = runtime::decide_violation(in);
    spdlog::info("claims: {} {}: {}", outcome.event.task.empty() ? "-" : outcome.event.task,
                 outcome.event.identity, outcome.event.reason);
    ++s.in_flight;
    auto changes = outcome.changes;
    self->request(s.cfg.store, s.cfg.store_timeout, messages::apply_state_changes{changes})
      .then(
        [self, outcome](const messages::state_changes_applied&) {
          show_and_note(self, outcome);
          --self->state.in_flight;
          flush_ended(self);
        },
        [self, outcome](caf::error& err) {
          spdlog::error("claims: the violation of {} is not durable: {}", outcome.event.path,
                        self->system().render(err));
          show_and_note(self, outcome);
          --self->state.in_flight;
          flush_ended(self);
        });
  }
}

// Judges a window once the claims held now are known (for other_task).
void judge(self_ptr self, runtime::pending_judgement window) {
  auto& s = self->state;
  if (window.changes.empty() || window.attempts.empty())
    return; // no attempt ran: nobody to hold to a claim
  ++s.in_flight;
  attempt_map attempts = s.monitor.attempts();
  self->request(s.cfg.store, s.cfg.store_timeout, messages::get_claims{})
    .then(
      [self, window, attempts](const messages::claims_reply& r) {
        runtime::claim_map claims;
        for (const auto& c : r.claims)
          if (!c.exclusive)
            claims[c.owner] = c.paths;
        carry_out(self, self->state.monitor.judge(window, claims), attempts);
        --self->state.in_flight;
        flush_ended(self);
      },
      [self, window, attempts](caf::error& err) {
        spdlog::warn("claims: claims unknown, judged without them: {}",
                     self->system().render(err));
        carry_out(self, self->state.monitor.judge(window, {}), attempts);
        --self->state.in_flight;
        flush_ended(self);
      });
}

// fanotify: everything queued now.
std::vector<runtime::write_event> drain_queue(claim_watcher_state& s) {
  std::vector<runtime::write_event> events;
  if (!s.watch)
    return events;
  for (int i = 0; i < max_drains; ++i) {
    auto got = s.watch->drain();
    if (got.empty())
      break;
    events.insert(events.end(), std::make_move_iterator(got.begin()),
                  std::make_move_iterator(got.end()));
  }
  bool idle = !s.monitor.any_running();
  if (runtime::events_lost(events))
    for (const auto& e : events)
      if (e.what == runtime::write_kind::lost)
        spdlog::log(idle ? spdlog::level::info : spdlog::level::warn,
                    "claims: fanotify lost events, writes were not checked: {}", e.detail);
  return events;
}

// fanotify: judged against the attempts around now.
void drain(self_ptr self) {
  auto events = drain_queue(self->state);
  if (!events.empty() || self->state.monitor.settling())
    judge(self, self->state.monitor.from_events(events, self->state.cfg.clock->now()));
}

void keep_ticking(self_ptr self) {
  auto& s = self->state;
  if (!s.watch || s.ticking)
    return;
  s.ticking = true;
  self->delayed_send(self, s.cfg.tick, messages::claims_tick_atom::value);
}

} // namespace

messages::claim_watcher_actor::behavior_type claim_watcher_impl(self_ptr self,
                                                                claim_watcher_config cfg) {
  self->state.cfg = std::move(cfg);
  runtime::claim_monitor_options options;
  options.settle = self->state.cfg.settle.count();
  options.path_exists = [](const std::string& path) {
    std::error_code ec; // unreadable (not ENOENT): judged as if there
    return std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found;
  };
  self->state.monitor = runtime::claim_monitor(std::move(options));
  open_watch(self->state);
  keep_ticking(self);
  return {
    [self](messages::attempt_watch_begin& b) -> messages::attempt_watch_ready {
      auto& s = self->state;
      if (!s.scope)
        return {};
      runtime::watched_attempt a{b.task, b.identity, b.marker, b.write_paths, b.started_at,
                                 runtime::find_attempt_locator(s.cfg.runs_dir, b.identity)};
      // What was queued until now is the agent's only when its marker says so.
      auto queued = drain_queue(s);
      for (auto& window : s.monitor.begin_after(a, queued, s.cfg.clock->now()))
        judge(self, std::move(window));
      if (s.watch) {
        if (b.agent_pid > 0 && !s.watch->remember_attempt(b.agent_pid, b.marker))
          spdlog::info("claims: agent {} of {} exited before it was named", b.agent_pid,
                       b.identity);
        keep_ticking(self);
        return {};
      }
      auto snap = runtime::take_snapshot(*s.scope, s.cfg.limits);
      if (!snap) {
        spdlog::warn("claims: {} is not checked: {}", b.identity, snap.error().message());
        return {};
      }
      s.before[b.identity] = std::move(*snap);
      return {};
    },
    [self](messages::attempt_watch_agent& a) {
      auto& s = self->state;
      auto known = s.monitor.attempts().find(a.identity);
      if (!s.watch || a.agent_pid <= 0 || known == s.monitor.attempts().end())
        return;
      if (!s.watch->remember_attempt(a.agent_pid, known->second.marker))
        spdlog::info("claims: agent {} of {} exited before it was named", a.agent_pid, a.identity);
    },
    [self](messages::attempt_watch_end& e) {
      auto& s = self->state;
      if (!s.scope)
        return;
      drain(self); // its own last writes, while it still counts as running
      auto end = s.monitor.end(e.identity, e.ended_at);
      if (end.held_admission)
        s.ended.push_back(e.identity);
      if (auto before = s.before.find(e.identity); before != s.before.end()) {
        auto after = runtime::take_snapshot(*s.scope, s.cfg.limits);
        if (after)
          judge(self, s.monitor.from_diff(e.identity, runtime::diff(before->second, *after)));
        else
          spdlog::warn("claims: {} is not checked: {}", e.identity, after.error().message());
        s.before.erase(before);
      }
      s.monitor.prune(s.cfg.clock->now());
      flush_ended(self);
    },
    [self](messages::attempt_watch_judged&) -> caf::result<messages::attempt_watch_done> {
      auto& s = self->state;
      // Under warn the task's next step depends on no verdict.
      if (!s.scope || s.cfg.policy.on_violation != runtime::violation_action::block)
        return messages::attempt_watch_done{};
      auto rp = self->make_response_promise<messages::attempt_watch_done>();
      s.awaiting.push_back({s.cfg.clock->now(), rp});
      flush_ended(self);
      return rp;
    },
    [self](messages::claims_tick_atom) {
      auto& s = self->state;
      s.ticking = false;
      drain(self);
      s.monitor.prune(s.cfg.clock->now());
      flush_ended(self);
      keep_ticking(self);
    },
    [self](messages::claim_listener_set& l) { self->state.listener = std::move(l.listener); },
    [self](const messages::claim_watch_query&) {
      const auto& s = self->state;
      int64_t running = 0;
      for (const auto& [id, a] : s.monitor.attempts())
        running += s.monitor.running(id) ? 1 : 0;
      return messages::claim_watch_info{s.watch ? "fanotify" : "snapshots", s.note, running};
    },
  };
}

} // namespace ad::actors

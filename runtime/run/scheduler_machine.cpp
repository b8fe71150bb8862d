#include "runtime/core/overload.hpp"
#include "runtime/run/scheduler_machine.hpp"

#include <algorithm>
#include <filesystem>

#include "runtime/policy/supervisor.hpp"
#include "runtime/run/admission_quota.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/run/task_spec_of.hpp"
#include "runtime/state/reconcile.hpp"
#include "runtime/state/spend.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace {

run_event task_run_event(run_event_kind kind, millis now, std::string task, std::string stage,
                         std::string reason) {
  run_event e;
  e.kind = kind;
  e.time = now;
  e.task = std::move(task);
  e.stage = std::move(stage);
  e.reason = std::move(reason);
  return e;
}

run_event finished_event(millis now, std::string task, std::string stage, std::string outcome,
                         std::string reason) {
  auto e = task_run_event(run_event_kind::task_finished, now, std::move(task), std::move(stage),
                          std::move(reason));
  e.outcome = std::move(outcome);
  return e;
}

bool in_flight(scheduler_phase p) {
  return p != scheduler_phase::idle && p != scheduler_phase::deferred &&
         p != scheduler_phase::finished;
}

// Adds one task of the state `from`, with its attempt counters, to part.
void add_task_part(state_model& part, const state_model& from, const std::string& name,
                   const task_state& st) {
  part.tasks.emplace(name, st);
  for (const auto& counter : task_attempt_counters(from, name))
    part.attempt_counters.insert(counter);
}

} // namespace

std::string_view to_string(scheduler_peer peer) {
  return peer == scheduler_peer::state_store ? "state store" : "quota prober";
}

std::string_view to_string(scheduler_phase phase) {
  switch (phase) {
    case scheduler_phase::idle: return "idle";
    case scheduler_phase::subscribing: return "subscribing";
    case scheduler_phase::deferred: return "deferred";
    case scheduler_phase::probing_work_logs: return "probing_work_logs";
    case scheduler_phase::reading_stages: return "reading_stages";
    case scheduler_phase::startup_durable: return "startup_durable";
    case scheduler_phase::reading_elsewhere: return "reading_elsewhere";
    case scheduler_phase::scanning: return "scanning";
    case scheduler_phase::finding_archives: return "finding_archives";
    case scheduler_phase::pass_durable: return "pass_durable";
    case scheduler_phase::archiving: return "archiving";
    case scheduler_phase::closing_durable: return "closing_durable";
    case scheduler_phase::probing_quota: return "probing_quota";
    case scheduler_phase::finished: return "finished";
  }
  return "idle";
}

std::string_view event_name(const scheduler_event& e) {
  static constexpr std::string_view names[] = {
    "begun",          "state_snapshot", "state_published",  "state_applied",
    "request_failed", "work_logs_probed", "active_stages_read", "scan_read",
    "scan_failed",    "archives_found", "work_logs_archived", "quota_probed",
    "task_ended",     "claim_violation", "violation_ended",  "poll",
    "shutdown"};
  static_assert(std::size(names) == std::variant_size_v<scheduler_event>);
  return names[e.index()];
}

std::string_view command_name(const scheduler_command& c) {
  static constexpr std::string_view names[] = {
    "subscribe_state",  "make_durable",   "probe_work_logs", "read_active_stages",
    "refresh_scan",     "find_archives",  "archive_work_logs", "remove_attempt_logs",
    "run_quota_probes", "tell_supervisor", "start_task",     "stop_task",
    "wake_at",          "checkpoint",     "show",            "finish_run"};
  static_assert(std::size(names) == std::variant_size_v<scheduler_command>);
  return names[c.index()];
}

std::string_view status_word(admission_kind kind) {
  switch (kind) {
    case admission_kind::admit: return task_status_pending;
    case admission_kind::running_here:
    case admission_kind::running_elsewhere: return task_status_running;
    case admission_kind::wait: return task_status_waiting;
    case admission_kind::blocked: return task_status_blocked;
    case admission_kind::complete: return task_status_complete;
  }
  return task_status_waiting;
}

std::string_view wait_word(const admission_entry& entry) {
  if (entry.kind == admission_kind::running_elsewhere)
    return wait_elsewhere;
  if (entry.kind != admission_kind::wait)
    return "";
  switch (entry.cause) {
    case wait_cause::predecessor_live:
    case wait_cause::predecessor_missing: return wait_dependency;
    case wait_cause::claim_conflict:
    case wait_cause::exclusive_claim:
    case wait_cause::violation_pending: return wait_claim;
    case wait_cause::capacity: return wait_capacity;
    default: return "";
  }
}

scheduler_machine::scheduler_machine(scheduler_context ctx)
    : ctx_(std::move(ctx)), scan_(ctx_.task_root) {}

std::vector<scheduler_command> scheduler_machine::step(millis now, scheduler_event event) {
  out_t out;
  if (finished())
    return out;
  using P = scheduler_phase;
  std::visit(
    overload{
      [&](const sched_ev::begun&) { want_pass(now, out); },
      [&](sched_ev::state_snapshot& e) {
        if (phase_ != P::subscribing)
          return;
        mirror_ = std::move(e.state);
        mirror_seq_ = e.seq;
        subscribed_ = true;
        over_mirror(now, out);
      },
      [&](const sched_ev::state_published& e) { published(now, e, out); },
      [&](const sched_ev::state_applied& e) {
        if (phase_ != P::startup_durable && phase_ != P::pass_durable &&
            phase_ != P::closing_durable)
          return;
        applied_seq_ = std::max(applied_seq_, e.seq);
        after_durable(now, out);
      },
      [&](const sched_ev::request_failed& e) {
        if (e.peer == scheduler_peer::quota_prober) {
          if (phase_ == P::probing_quota)
            start_all(now, out); // the admitted tasks start without the batch
          return;
        }
        if (phase_ == P::subscribing)
          fail(now, "state store unavailable: " + e.error, out);
        else if (phase_ == P::startup_durable || phase_ == P::pass_durable ||
                 phase_ == P::closing_durable)
          fail(now, "state store refused a change: " + e.error, out);
      },
      [&](const sched_ev::work_logs_probed& e) {
        if (phase_ != P::probing_work_logs)
          return;
        pass_.changes = work_log_unblock_changes(
          mirror_.tasks,
          [&](const std::string& t) {
            auto it = e.writable.find(t);
            return it != e.writable.end() && it->second;
          },
          now);
        startup_stages(now, out);
      },
      [&](const sched_ev::active_stages_read& e) {
        if (phase_ == P::reading_stages)
          startup_read(now, e.readings, out);
        else if (phase_ == P::reading_elsewhere)
          elsewhere_read(now, e.readings, out);
      },
      [&](sched_ev::scan_read& e) {
        if (phase_ != P::scanning)
          return;
        pass_.in.full = e.reading.full;
        pass_.in.touched.insert(pass_.in.touched.end(), e.reading.changed.begin(),
                                e.reading.changed.end());
        scan_.apply(std::move(e.reading));
        scanned(now, out);
      },
      [&](const sched_ev::scan_failed& e) {
        if (phase_ != P::scanning)
          return;
        // Admissions stop; the changes for tasks running elsewhere still go.
        terminal_error_ = "workspace scan failed: " + e.error;
        pass_.start.clear();
        pass_.adopt.clear();
        persist(std::move(pass_.changes), P::pass_durable, now, out);
      },
      [&](const sched_ev::archives_found& e) {
        if (phase_ != P::finding_archives)
          return;
        pass_.archives = e.folders;
        plan(now, out);
      },
      [&](const sched_ev::work_logs_archived& e) {
        if (phase_ == P::archiving)
          groups_archived(now, e.moved, out);
      },
      [&](const sched_ev::quota_probed& e) {
        if (phase_ != P::probing_quota)
          return;
        out.push_back(sched_cmd::tell_supervisor{e.snapshot});
        attach_admission_quota(pass_.start, e.snapshot);
        start_all(now, out);
      },
      [&](const sched_ev::task_ended& e) { task_ended(now, e, out); },
      [&](const sched_ev::claim_violation& e) {
        for (const auto& l : e.live) {
          if (std::find(live_violations_.begin(), live_violations_.end(), l) ==
              live_violations_.end()) {
            live_violations_.push_back(l);
            violations_changed_ = true;
          }
        }
        if (!e.task.empty())
          touched_.insert(e.task);
        if (e.stop_task.empty())
          return;
        // The block is durable: the task is seen blocked by the next pass.
        touched_.insert(e.stop_task);
        if (running_.count(e.stop_task))
          out.push_back(sched_cmd::stop_task{e.stop_task, e.reason});
        want_pass(now, out);
      },
      [&](const sched_ev::violation_ended& e) {
        auto gone = std::erase_if(live_violations_,
                                  [&](const live_violation& l) { return l.attempt == e.attempt; });
        if (gone == 0)
          return;
        violations_changed_ = true;
        want_pass(now, out);
      },
      [&](const sched_ev::poll&) {
        poll_scheduled_ = false;
        if (!elsewhere_.empty() || !paused_.empty())
          want_pass(now, out);
      },
      [&](const sched_ev::shutdown&) {
        if (stopping_)
          return;
        stopping_ = true;
        interrupted_ = true;
        for (const auto& name : running_)
          out.push_back(sched_cmd::stop_task{name, "interrupted"});
        finish_if_idle(now, out);
      },
    },
    event);
  return out;
}

// ---- passes ----------------------------------------------------------------

void scheduler_machine::want_pass(millis now, out_t& out) {
  if (stopped()) {
    finish_if_idle(now, out);
    return;
  }
  if (in_flight(phase_)) {
    pass_wanted_ = true;
    return;
  }
  start_pass(now, out);
}

void scheduler_machine::start_pass(millis now, out_t& out) {
  pass_wanted_ = false;
  pass_ = pass_state{};
  if (!subscribed_) {
    // Once: the state as of now, and from then on every durable entry.
    phase_ = scheduler_phase::subscribing;
    out.push_back(sched_cmd::subscribe_state{});
    return;
  }
  over_mirror(now, out);
}

void scheduler_machine::over_mirror(millis now, out_t& out) {
  if (mirror_seq_ < applied_seq_) {
    // Our own changes are not in the mirror yet: their publication comes
    // first, and runs the pass.
    phase_ = scheduler_phase::deferred;
    return;
  }
  if (first_pass_) {
    first_pass_ = false;
    startup(now, out);
    return;
  }
  if (elsewhere_.empty()) {
    expire_and_scan(now, out);
    return;
  }
  // Tasks running elsewhere whose agent ended are cleared; they resume.
  state_model only;
  for (const auto& [name, d] : elsewhere_)
    if (auto it = mirror_.tasks.find(name); it != mirror_.tasks.end())
      add_task_part(only, mirror_, name, it->second);
  phase_ = scheduler_phase::reading_elsewhere;
  out.push_back(sched_cmd::read_active_stages{std::move(only)});
}

void scheduler_machine::startup(millis now, out_t& out) {
  if (ctx_.retry_blocked) {
    pass_.changes = retry_blocked_changes(mirror_.tasks, now);
    startup_stages(now, out);
    return;
  }
  // A block by an unwritable work log lifts once the log is writable.
  std::vector<std::string> by_work_log;
  for (const auto& [name, st] : mirror_.tasks)
    if (blocked_by_work_log(st))
      by_work_log.push_back(name);
  if (by_work_log.empty()) {
    startup_stages(now, out);
    return;
  }
  phase_ = scheduler_phase::probing_work_logs;
  out.push_back(sched_cmd::probe_work_logs{std::move(by_work_log)});
}

void scheduler_machine::startup_stages(millis, out_t& out) {
  // Only the tasks with an active stage, and their counters: a copy of the
  // whole state would cost more than the reading at thousands of tasks.
  state_model active;
  for (const auto& [name, st] : mirror_.tasks)
    if (!st.active_stage.empty())
      add_task_part(active, mirror_, name, st);
  phase_ = scheduler_phase::reading_stages;
  out.push_back(sched_cmd::read_active_stages{std::move(active)});
}

void scheduler_machine::startup_read(millis now, const std::vector<active_stage_reading>& readings,
                                     out_t& out) {
  auto review = decide_active_stages(readings, ctx_.pol);
  elsewhere_ = std::move(review.live);
  adopting_ = std::move(review.adopt);
  pass_.changes.insert(pass_.changes.end(), review.changes.begin(), review.changes.end());
  pass_.handoff = std::any_of(pass_.changes.begin(), pass_.changes.end(), [](const auto& c) {
    return std::holds_alternative<set_retry_handoff>(c);
  });
  persist(std::move(pass_.changes), scheduler_phase::startup_durable, now, out);
}

void scheduler_machine::elsewhere_read(millis now,
                                       const std::vector<active_stage_reading>& readings,
                                       out_t& out) {
  auto review = decide_active_stages(readings, ctx_.pol);
  for (const auto& [name, d] : elsewhere_)
    if (!review.live.count(name) || review.live.at(name) != d)
      touched_.insert(name);
  elsewhere_ = std::move(review.live);
  pass_.changes = std::move(review.changes);
  // One running elsewhere whose keeper wrote its record since: adopted now.
  for (auto& a : review.adopt)
    adopting_.push_back(std::move(a));
  expire_and_scan(now, out);
}

void scheduler_machine::expire_and_scan(millis now, out_t& out) {
  for (auto it = paused_.begin(); it != paused_.end();) {
    if (it->second <= now) {
      touched_.insert(it->first);
      it = paused_.erase(it);
    } else {
      ++it;
    }
  }
  phase_ = scheduler_phase::scanning;
  out.push_back(sched_cmd::refresh_scan{std::move(ended_dirs_)});
  ended_dirs_.clear();
}

bool scheduler_machine::live_or_scanned(const std::string& task) const {
  return running_.count(task) || elsewhere_.count(task) ||
         std::any_of(adopting_.begin(), adopting_.end(),
                     [&](const auto& a) { return a.task == task; }) ||
         scan_.find(task);
}

std::set<std::string> scheduler_machine::scopes_to_check(
  bool full, const std::vector<std::string>& touched) const {
  std::set<std::string> out;
  if (full) {
    for (const auto& [scope, record] : mirror_.orchestrations)
      out.insert(scope);
  } else {
    for (const auto& t : touched)
      out.insert(task_group(t));
  }
  if (!ctx_.task_group.empty())
    return out.count(ctx_.task_group) ? std::set<std::string>{ctx_.task_group}
                                      : std::set<std::string>{};
  return out;
}

planner_input scheduler_machine::planner_in() const {
  planner_input in;
  in.scanner = &scan_;
  in.state = &mirror_;
  in.pol = ctx_.pol;
  in.max_parallel = ctx_.max_parallel;
  for (const auto& name : running_)
    in.live[name] = {live_where::here, ""};
  for (const auto& [name, until] : paused_)
    in.live[name] = {live_where::here, "paused after an unchanged review"};
  for (const auto& [name, detail] : elsewhere_)
    in.live[name] = {live_where::elsewhere, detail};
  for (const auto& a : adopting_)
    in.live[a.task] = {live_where::here, "adopted from its keeper"};
  return in;
}

// The scan is read: the archive folders the pass needs are asked for, if
// any (vanished tasks of the scopes it reconciles, first sightings).
void scheduler_machine::scanned(millis now, out_t& out) {
  auto& in = pass_.in;
  auto full = in.full;
  auto touched = std::move(in.touched);
  in = planner_in();
  in.full = full;
  in.touched.assign(touched_.begin(), touched_.end());
  in.touched.insert(in.touched.end(), touched.begin(), touched.end());
  touched_.clear();
  in.claims_changed = claims_changed_;
  claims_changed_ = false;
  // A violating attempt runs only while its task does: entries of a task
  // that ended (its attempt's end may still be on the way) go now.
  auto ended = std::erase_if(live_violations_, [this](const live_violation& v) {
    return !running_.count(v.task) && !elsewhere_.count(v.task);
  });
  in.violations = live_violations_;
  in.violations_changed = violations_changed_ || ended > 0;
  violations_changed_ = false;

  std::set<std::string> need;
  for (const auto& scope : scopes_to_check(in.full, in.touched)) {
    auto found = mirror_.orchestrations.find(scope);
    if (found == mirror_.orchestrations.end() ||
        found->second.status == orchestration_status::complete)
      continue;
    for (const auto& [task, rec] : found->second.tasks)
      if (rec.status == orchestration_task_status::active && !live_or_scanned(task))
        need.insert(task);
  }
  for (auto& name : planner_.first_sightings(in))
    need.insert(std::move(name));
  if (need.empty()) {
    plan(now, out);
    return;
  }
  phase_ = scheduler_phase::finding_archives;
  out.push_back(sched_cmd::find_archives{{need.begin(), need.end()}});
}

bool scheduler_machine::group_busy(const std::string& scope) const {
  const auto& tasks = scan_.tasks();
  auto it = tasks.lower_bound(scope);
  if (it != tasks.end() && (it->first == scope || it->first.starts_with(scope + "/")))
    return true;
  auto of_scope = [&](const std::string& name) { return task_group(name) == scope; };
  return std::any_of(running_.begin(), running_.end(), of_scope) ||
         std::any_of(elsewhere_.begin(), elsewhere_.end(),
                     [&](const auto& s) { return of_scope(s.first); }) ||
         std::any_of(adopting_.begin(), adopting_.end(),
                     [&](const auto& a) { return of_scope(a.task); });
}

// The groups whose observed tasks are all complete and none runs: each is
// read now, and closed (its work log moved, then its record marked) only
// once the changes of the pass that decided it are durable.
std::vector<group_reading> scheduler_machine::groups_to_close(
  const state_model& model, const std::set<std::string>& scopes) const {
  std::vector<group_reading> out;
  for (const auto& scope : scopes) {
    auto found = model.orchestrations.find(scope);
    if (found == model.orchestrations.end())
      continue;
    const auto& record = found->second;
    if (record.status == orchestration_status::complete || record.tasks.empty())
      continue;
    auto group = read_group(scope, record, group_busy(scope));
    if (group_closes(group))
      out.push_back(std::move(group));
  }
  return out;
}

void scheduler_machine::plan(millis now, out_t& out) {
  auto& in = pass_.in;
  auto scopes = scopes_to_check(in.full, in.touched);
  // Orchestration reconciliation of tasks that vanished from agent-task/.
  // Its effects (the completed tasks' attempt logs go, their completion is
  // shown) wait until its changes are durable.
  auto before_reconcile = pass_.changes.size();
  for (const auto& scope : scopes) {
    auto found = mirror_.orchestrations.find(scope);
    if (found == mirror_.orchestrations.end())
      continue;
    const auto& record = found->second;
    if (record.status == orchestration_status::complete)
      continue;
    orchestration_record vanished;
    std::set<std::string> live;
    std::map<std::string, std::vector<std::string>> archives;
    for (const auto& [task, rec] : record.tasks) {
      if (rec.status != orchestration_task_status::active)
        continue;
      if (live_or_scanned(task)) {
        live.insert(task);
        continue;
      }
      vanished.tasks.emplace(task, rec);
      if (auto a = pass_.archives.find(task); a != pass_.archives.end())
        archives[task] = a->second;
    }
    if (vanished.tasks.empty())
      continue;
    auto r = reconcile_orchestration(scope, vanished, live, archives);
    pass_.changes.insert(pass_.changes.end(), r.changes.begin(), r.changes.end());
    for (const auto& [task, archive] : r.completed) {
      pass_.changes.push_back(clear_active_stage{task});
      pass_.completed.emplace_back(task, archive);
    }
    for (const auto& [task, why] : r.errors)
      run_errors_.insert("orchestration[" + task + "]=" + why);
  }
  // A group closes on the state the reconciliation leaves: a restart that
  // completes a group's last tasks from the archive closes it after this
  // pass's changes are durable.
  if (pass_.changes.size() == before_reconcile) {
    pass_.closing = groups_to_close(mirror_, scopes);
  } else {
    // Closing reads only the orchestration records: copy those, not every
    // task's state (the changes naming tasks fail here and are ignored).
    state_model reconciled;
    reconciled.orchestrations = mirror_.orchestrations;
    for (auto c = pass_.changes.begin() + static_cast<std::ptrdiff_t>(before_reconcile);
         c != pass_.changes.end(); ++c)
      (void) apply_change(reconciled, *c);
    pass_.closing = groups_to_close(reconciled, scopes);
  }

  in.archives = &pass_.archives;
  auto planned = planner_.plan(in);
  pass_.changes.insert(pass_.changes.end(), std::make_move_iterator(planned.changes.begin()),
                       std::make_move_iterator(planned.changes.end()));

  for (const auto& a : adopting_)
    if (!running_.count(a.task))
      pass_.adopt.push_back(spec_of_adoption(a, scan_.find(a.task), mirror_, ctx_.task_root));
  adopting_.clear();
  const auto& entries = planner_.entries();
  for (const auto& name : planned.admitted) {
    if (failed_tasks_.count(name) || running_.count(name))
      continue;
    const auto* t = scan_.find(name);
    auto e = entries.find(name);
    if (t == nullptr || e == entries.end())
      continue;
    pass_.start.push_back(spec_of_admission(*t, e->second, mirror_));
  }

  // What changed for people: waits and blocks, then the scan's lines.
  const auto changed = reasons_.changes(planned.examined);
  // Room for all the step gives (lines, removals, starts): ~1 KB commands, never moved.
  out.reserve(out.size() + changed.size() + 2 * pass_.completed.size() + pass_.adopt.size() +
              pass_.start.size() + 8);
  for (const auto* entry : changed) {
    const auto& e = *entry;
    auto stage = std::string(to_string(e.stage));
    if (e.kind == admission_kind::blocked) {
      // A task that ended blocked showed its reason then; the pass that
      // next sees it blocked for that reason adds nothing.
      auto shown = block_shown_.find(e.task);
      bool same = shown != block_shown_.end() && shown->second == e.reason;
      if (shown != block_shown_.end())
        block_shown_.erase(shown);
      if (!same)
        show(task_run_event(run_event_kind::task_blocked, now, e.task, stage, e.reason), out);
    } else if (e.kind == admission_kind::wait || e.kind == admission_kind::running_elsewhere) {
      auto waiting = task_run_event(run_event_kind::task_waiting, now, e.task, stage, e.reason);
      waiting.wait = wait_word(e);
      show(std::move(waiting), out);
    }
  }
  // The first pass lists every task; later ones the tasks whose line changed.
  run_event scanned_event;
  scanned_event.kind = run_event_kind::tasks_scanned;
  scanned_event.time = now;
  auto line = [&](const admission_entry& e) {
    report_task_entry l{e.task, std::string(to_string(e.stage)), std::string(status_word(e.kind)),
                        e.reason, std::string(wait_word(e))};
    auto key = l.stage + '|' + l.status + '|' + l.reason;
    auto [it, inserted] = shown_.try_emplace(e.task, key);
    if (!inserted && it->second == key && !in.full)
      return;
    it->second = std::move(key);
    scanned_event.tasks.push_back(std::move(l));
  };
  if (in.full) {
    for (const auto* v : scan_.ordered())
      if (auto e = entries.find(v->name); e != entries.end())
        line(e->second);
  } else {
    for (const auto& e : planned.examined)
      line(e);
  }
  for (const auto& name : planned.dropped)
    shown_.erase(name);
  if (!scanned_event.tasks.empty() || in.full)
    show(std::move(scanned_event), out);

  pass_.probes = admission_probe_plan(*ctx_.pol, *ctx_.zone, pass_.start, mirror_, now);
  persist(std::move(pass_.changes), scheduler_phase::pass_durable, now, out);
}

void scheduler_machine::persist(std::vector<state_change> changes, scheduler_phase next,
                                millis now, out_t& out) {
  pass_.changes.clear();
  phase_ = next;
  if (changes.empty()) {
    after_durable(now, out);
    return;
  }
  out.push_back(sched_cmd::make_durable{std::move(changes)});
}

// What the changes asked for last justify, now that they are durable.
void scheduler_machine::after_durable(millis now, out_t& out) {
  switch (phase_) {
    case scheduler_phase::startup_durable:
      if (pass_.handoff)
        out.push_back(sched_cmd::checkpoint{"after-handoff"});
      start_pass(now, out);
      return;
    case scheduler_phase::pass_durable:
      pass_is_durable(now, out);
      return;
    case scheduler_phase::closing_durable:
      admit(now, out);
      return;
    default:
      return;
  }
}

void scheduler_machine::pass_is_durable(millis now, out_t& out) {
  for (const auto& [task, archive] : pass_.completed) {
    out.push_back(sched_cmd::remove_attempt_logs{task});
    ++completed_;
    show(finished_event(now, task, "", "complete", "archived at " + archive), out);
  }
  if (pass_.closing.empty()) {
    groups_archived(now, {}, out);
    return;
  }
  std::vector<std::string> groups;
  for (const auto& g : pass_.closing)
    groups.push_back(g.scope);
  phase_ = scheduler_phase::archiving;
  out.push_back(sched_cmd::archive_work_logs{std::move(groups)});
}

void scheduler_machine::groups_archived(millis now,
                                        const std::map<std::string, work_log_archive_outcome>& moved,
                                        out_t& out) {
  std::vector<state_change> changes;
  for (auto& group : pass_.closing) {
    auto m = moved.find(group.scope);
    if (m != moved.end())
      group.archived = m->second;
    group.archived.attempted = true;
    auto closed = decide_group_close(group);
    changes.insert(changes.end(), closed.changes.begin(), closed.changes.end());
    if (!closed.error.empty())
      run_errors_.insert(closed.error);
  }
  persist(std::move(changes), scheduler_phase::closing_durable, now, out);
}

// The admission quota batch (SPEC section 5): the planned probes run once,
// the supervisor is told, and the admitted workers get the snapshot;
// without probes (or when they fail) they start as they are.
void scheduler_machine::admit(millis now, out_t& out) {
  if (pass_.probes.empty() || pass_.start.empty()) {
    start_all(now, out);
    return;
  }
  auto id = "admission-" + std::to_string(now) + "-" + std::to_string(++quota_batches_);
  phase_ = scheduler_phase::probing_quota;
  out.push_back(sched_cmd::run_quota_probes{std::move(pass_.probes), std::move(id)});
}

void scheduler_machine::start_all(millis now, out_t& out) {
  // Adopted attempts first: their tasks are followed here from now on.
  for (auto* specs : {&pass_.adopt, &pass_.start}) {
    for (auto& spec : *specs) {
      if (stopped())
        break;
      running_.insert(spec.name);
      touched_.insert(spec.name); // now running here: re-examined next pass
      out.push_back(sched_cmd::start_task{std::move(spec)});
    }
  }
  pass_ = pass_state{};
  phase_ = scheduler_phase::idle;
  if ((!elsewhere_.empty() || !paused_.empty()) && !poll_scheduled_) {
    poll_scheduled_ = true;
    out.push_back(sched_cmd::wake_at{now + ctx_.poll_every});
  }
  if (pass_wanted_ && !stopping_)
    start_pass(now, out);
  else
    finish_if_idle(now, out);
}

void scheduler_machine::fail(millis now, std::string error, out_t& out) {
  terminal_error_ = std::move(error);
  pass_ = pass_state{};
  phase_ = scheduler_phase::idle;
  finish_if_idle(now, out);
}

// ---- what arrives between passes -------------------------------------------

void scheduler_machine::task_ended(millis now, const sched_ev::task_ended& e, out_t& out) {
  running_.erase(e.task);
  // Its folder, its dependents and the capacity waiters are looked at again.
  touched_.insert(e.task);
  ended_dirs_.push_back((std::filesystem::path(ctx_.task_root) / e.task).string());
  if (e.outcome == "complete") {
    ++completed_;
    reasons_.forget(e.task);
    show(finished_event(now, e.task, e.stage, "complete", e.reason), out);
  } else if (e.outcome == "advance") {
    show(finished_event(now, e.task, e.stage, "stage-done", e.reason), out);
  } else if (e.outcome == "pause") {
    paused_[e.task] = now + e.pause;
    auto waiting = task_run_event(run_event_kind::task_waiting, now, e.task, e.stage, e.reason);
    waiting.wait = wait_pause;
    waiting.until = now + e.pause;
    show(std::move(waiting), out);
  } else if (e.outcome == "blocked") {
    block_shown_[e.task] = e.reason;
    show(task_run_event(run_event_kind::task_blocked, now, e.task, e.stage, e.reason), out);
  } else if (e.outcome == "error") {
    failed_tasks_[e.task] = e.reason;
    show(task_run_event(run_event_kind::task_failed, now, e.task, e.stage, e.reason), out);
  }
  want_pass(now, out);
}

// A publication of the state store: applied to the mirror; the tasks it
// names are re-examined by the next pass (claims changed: claim waiters too).
void scheduler_machine::published(millis now, const sched_ev::state_published& p, out_t& out) {
  if (p.seq > mirror_seq_) {
    for (const auto& c : p.changes) {
      (void) apply_change(mirror_, c);
      std::visit(
        [&](const auto& x) {
          if constexpr (requires { x.task; })
            touched_.insert(x.task);
          if constexpr (requires { x.owner; }) {
            touched_.insert(x.owner);
            claims_changed_ = true;
          }
        },
        c);
    }
    mirror_seq_ = p.seq;
  }
  if (phase_ == scheduler_phase::deferred && mirror_seq_ >= applied_seq_) {
    phase_ = scheduler_phase::idle;
    want_pass(now, out);
  }
}

// ---- the end ---------------------------------------------------------------

void scheduler_machine::finish_if_idle(millis now, out_t& out) {
  if (finished() || in_flight(phase_) || !running_.empty())
    return;
  if (!stopped() && (!elsewhere_.empty() || !paused_.empty()))
    return;
  // Failed tasks and run errors, in name order.
  std::map<std::string, std::string> failed = failed_tasks_;
  for (const auto& e : run_errors_)
    failed.emplace(e, "");
  std::vector<std::string> errors;
  for (const auto& [key, why] : failed)
    errors.push_back(why.empty() ? key : key + ": " + why);
  int recorded_complete = 0; // tasks the orchestration records hold as complete
  for (const auto& [scope, record] : mirror_.orchestrations)
    if (ctx_.task_group.empty() || scope == ctx_.task_group)
      for (const auto& [task, rec] : record.tasks)
        recorded_complete += rec.status == orchestration_task_status::complete;
  auto completed = std::max(completed_, recorded_complete);
  auto last = planner_.snapshot();
  auto obs = observe_run_end(last, !ctx_.task_group.empty(), completed, errors);
  obs.interrupted = interrupted_;
  obs.terminal_error = terminal_error_;
  auto exit = compute_run_exit(obs);
  std::map<std::string, int64_t> counts;
  for (const auto& e : last.admission.entries)
    ++counts[std::string(status_word(e.kind))];
  counts[std::string(task_status_complete)] += completed;
  run_event summary;
  summary.kind = run_event_kind::summary;
  summary.time = now;
  for (const auto& [status, n] : counts)
    summary.counts.push_back({status, n});
  summary.exit_code = exit.code;
  summary.reason = exit.summary;
  summary.usage = spend_totals_of(mirror_).run;
  show(std::move(summary), out);
  out.push_back(sched_cmd::finish_run{exit.code, exit.summary, exit.details});
  phase_ = scheduler_phase::finished;
}

void scheduler_machine::show(run_event e, out_t& out) {
  out.push_back(sched_cmd::show{std::move(e)});
}

} // namespace ad::runtime

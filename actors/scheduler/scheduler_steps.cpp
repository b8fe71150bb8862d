#include "actors/scheduler/scheduler_steps.hpp"
#include "actors/scheduler/trace_points.hpp"

#include <caf/send.hpp>

#include <algorithm>

#include "runtime/policy/supervisor.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/state/reconcile.hpp"
#include "runtime/workspace/task_name.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::actors {

namespace {

template <class Event>
void emit(const run_context& ctx, Event ev) {
  if (ctx.out)
    caf::anon_send(ctx.out, std::move(ev));
}

task_spec spec_of(const runtime::scanned_task& t, const runtime::admission_entry& e,
                  const runtime::state_model& model) {
  task_spec spec;
  spec.name = t.name;
  // Only worker, self-check and review stages are admitted.
  auto stage = runtime::parse_run_stage(runtime::to_string(e.stage));
  spec.stage = stage.is_ok() ? *stage : runtime::task_stage::worker;
  spec.task_dir = t.directory.string();
  if (t.plan)
    spec.plan = t.plan->string();
  else if (t.recovery_plan_log)
    spec.plan = t.recovery_plan_log->string();
  // Without an active CODE_REVIEW (a recovery folder) the review prompt
  // names the task folder.
  spec.review = t.review ? t.review->string() : t.directory.string();
  spec.lane = runtime::lane_of(t);
  spec.grade = t.grade > 0 ? t.grade : 1;
  spec.plan_number = runtime::plan_number_of(t);
  spec.work_unit_id = runtime::work_unit_of(t);
  spec.write_paths = t.write_set.paths;
  auto c = model.attempt_counters.find(runtime::attempt_key{t.name, spec.plan_number, spec.stage_name()});
  spec.last_attempt = c == model.attempt_counters.end() ? 0 : c->second;
  return spec;
}

// The task spec of an attempt adopted from its keeper: from the scan when
// the task is still in agent-task/, else (a review archived it while no
// dispatcher ran) from the durable state and the attempt's locator.
task_spec spec_of_adoption(const scheduler_state& s, const runtime::attempt_adoption& a,
                           const runtime::state_model& model) {
  task_spec spec;
  spec.name = a.task;
  auto stage = runtime::parse_run_stage(a.stage);
  spec.stage = stage.is_ok() ? *stage : runtime::task_stage::worker;
  const auto& k = a.attempt;
  const runtime::task_state* st = nullptr;
  if (auto it = model.tasks.find(a.task); it != model.tasks.end())
    st = &it->second;
  if (const auto* t = s.io->scan().find(a.task)) {
    spec.task_dir = t->directory.string();
    spec.plan = t->plan ? t->plan->string()
                        : t->recovery_plan_log ? t->recovery_plan_log->string() : std::string();
    spec.review = t->review ? t->review->string() : t->directory.string();
    spec.lane = runtime::lane_of(*t);
    spec.grade = t->grade > 0 ? t->grade : 1;
    spec.work_unit_id = runtime::work_unit_of(*t);
    spec.write_paths = t->write_set.paths;
  } else {
    spec.plan = k.plan_path;
    spec.review = k.review_path;
    spec.task_dir = !k.plan_path.empty()
                      ? std::filesystem::path(k.plan_path).parent_path().string()
                      : (std::filesystem::path(s.ctx->task_root) / a.task).string();
    if (st) {
      spec.work_unit_id = st->work_unit_id;
      if (auto d = st->decisions.find(a.stage); d != st->decisions.end()) {
        spec.lane = d->second.lane;
        spec.grade = d->second.grade > 0 ? d->second.grade : 1;
      }
    }
    if (auto c = model.claims.find(a.task); c != model.claims.end())
      spec.write_paths.assign(c->second.paths.begin(), c->second.paths.end());
  }
  spec.plan_number = k.plan_number;
  spec.last_attempt = k.attempt;
  spec.adopting = true;
  spec.adopted = {a.locator, k.keeper_pid, k.keeper_start_token, k.cli, k.model, k.node};
  return spec;
}

bool is_live_or_scanned(const scheduler_state& s, const std::string& task) {
  return s.running.count(task) || s.survivors.count(task) ||
         std::any_of(s.adopting.begin(), s.adopting.end(),
                     [&](const auto& a) { return a.task == task; }) ||
         s.io->scan().find(task);
}

// Orchestration scopes a pass looks at: every scope on a full pass, else the
// groups of the tasks touched since the last pass.
std::set<std::string> scopes_to_check(const scheduler_state& s, const runtime::state_model& model,
                                      bool full, const std::vector<std::string>& touched) {
  std::set<std::string> out;
  if (full) {
    for (const auto& [scope, record] : model.orchestrations)
      out.insert(scope);
  } else {
    for (const auto& t : touched)
      out.insert(runtime::task_group(t));
  }
  if (!s.ctx->task_group.empty())
    return out.count(s.ctx->task_group) ? std::set<std::string>{s.ctx->task_group}
                                        : std::set<std::string>{};
  return out;
}

// Orchestration reconciliation of tasks that vanished from agent-task/.
// Its effects (the completed tasks' attempt logs go, their completion is
// shown) wait until its changes are durable: they are listed in `done`.
void reconcile(scheduler_state& s, const runtime::state_model& model,
               const std::set<std::string>& scopes, std::vector<runtime::state_change>& changes,
               std::vector<std::pair<std::string, std::string>>& done,
               std::vector<std::string>& errors) {
  for (const auto& scope : scopes) {
    auto found = model.orchestrations.find(scope);
    if (found == model.orchestrations.end())
      continue;
    const auto& record = found->second;
    if (record.status == runtime::orchestration_status::complete)
      continue;
    runtime::reconcile_input in{scope, {}, {}, {}};
    for (const auto& [task, rec] : record.tasks) {
      if (rec.status != runtime::orchestration_task_status::active)
        continue;
      if (is_live_or_scanned(s, task)) {
        in.live.insert(task);
        continue;
      }
      in.record.tasks.emplace(task, rec);
      for (const auto& p : s.io->archived_task_folders(task))
        in.archives[task].push_back(p.string());
    }
    if (in.record.tasks.empty())
      continue;
    auto out = runtime::reconcile_orchestration(scope, in.record, in.live, in.archives);
    trace_reconcile(*s.ctx, in, out);
    changes.insert(changes.end(), out.changes.begin(), out.changes.end());
    for (const auto& [task, archive] : out.completed) {
      changes.push_back(runtime::clear_active_stage{task});
      done.emplace_back(task, archive);
    }
    for (const auto& [task, why] : out.errors)
      errors.push_back("orchestration[" + task + "]=" + why);
  }
}

bool scope_busy(const scheduler_state& s, const std::string& scope) {
  const auto& tasks = s.io->scan().tasks();
  auto it = tasks.lower_bound(scope);
  if (it != tasks.end() && (it->first == scope || it->first.starts_with(scope + "/")))
    return true;
  for (const auto& [name, h] : s.running)
    if (runtime::task_group(name) == scope)
      return true;
  for (const auto& [name, d] : s.survivors)
    if (runtime::task_group(name) == scope)
      return true;
  for (const auto& a : s.adopting)
    if (runtime::task_group(a.task) == scope)
      return true;
  return false;
}

// The groups whose observed tasks are all complete and none runs: each is
// read now, and closed (its work log moved, then its record marked) only
// once the changes of the pass that decided it are durable.
std::vector<runtime::group_reading> groups_to_close(const scheduler_state& s,
                                                    const runtime::state_model& model,
                                                    const std::set<std::string>& scopes) {
  std::vector<runtime::group_reading> out;
  for (const auto& scope : scopes) {
    auto found = model.orchestrations.find(scope);
    if (found == model.orchestrations.end())
      continue;
    const auto& record = found->second;
    if (record.status == runtime::orchestration_status::complete || record.tasks.empty())
      continue;
    auto group = runtime::read_group(scope, record, scope_busy(s, scope));
    if (runtime::group_closes(group))
      out.push_back(std::move(group));
  }
  return out;
}

void emit_reasons(scheduler_state& s, const runtime::admission_plan& examined) {
  auto now = s.now;
  for (const auto& e : s.reasons.changes(examined)) {
    auto stage = std::string(runtime::to_string(e.stage));
    if (e.kind == runtime::admission_kind::blocked) {
      // A task that ended blocked showed its reason then; the pass that
      // next sees it blocked for that reason adds nothing.
      auto shown = s.block_shown.find(e.task);
      bool same = shown != s.block_shown.end() && shown->second == e.reason;
      if (shown != s.block_shown.end())
        s.block_shown.erase(shown);
      if (!same)
        emit(*s.ctx, messages::task_blocked{now, e.task, stage, e.reason});
    }
    else if (e.kind == runtime::admission_kind::wait ||
             e.kind == runtime::admission_kind::running_elsewhere)
      emit(*s.ctx, messages::task_waiting{now, e.task, stage, e.reason});
  }
}

std::string status_of(runtime::admission_kind k) {
  switch (k) {
    case runtime::admission_kind::admit: return "pending";
    case runtime::admission_kind::running_here:
    case runtime::admission_kind::running_elsewhere: return "running";
    case runtime::admission_kind::wait: return "waiting";
    case runtime::admission_kind::blocked: return "blocked";
    case runtime::admission_kind::complete: return "complete";
  }
  return "waiting";
}

} // namespace

std::vector<runtime::state_change> startup_changes(scheduler_state& s,
                                                   const runtime::state_model& model) {
  std::vector<runtime::state_change> changes;
  auto now = s.now;
  if (s.ctx->retry_blocked) {
    changes = runtime::retry_blocked_changes(model.tasks, now);
    trace_retry_blocked(*s.ctx, model.tasks, now, changes);
  } else {
    // A block by an unwritable work log lifts once the log is writable.
    std::vector<std::string> by_work_log;
    for (const auto& [name, st] : model.tasks)
      if (runtime::blocked_by_work_log(st))
        by_work_log.push_back(name);
    if (!by_work_log.empty()) {
      auto writable = s.io->probe_work_logs(by_work_log);
      trace_work_logs(*s.ctx, writable);
      changes = runtime::work_log_unblock_changes(
        model.tasks, [&](const std::string& t) { return writable.count(t) && writable.at(t); },
        now);
    }
  }
  auto review = review_active_stages_traced(*s.ctx, s.io->read_active_stages(model));
  s.survivors = std::move(review.live);
  s.cleared = std::move(review.cleared);
  s.adopting = std::move(review.adopt);
  changes.insert(changes.end(), review.changes.begin(), review.changes.end());
  trace_scheduler(*s.ctx, runtime::trace_kinds::scheduler_startup, s.inbound_seq, changes, {});
  return changes;
}

pass_decision decide_pass(scheduler_state& s, const runtime::state_model& model) {
  pass_decision out;
  const auto& ctx = *s.ctx;
  auto now = s.now;
  // Survivors that ended are cleared; their task resumes.
  if (!s.survivors.empty()) {
    runtime::state_model only;
    for (const auto& [name, d] : s.survivors)
      if (auto it = model.tasks.find(name); it != model.tasks.end())
        only.tasks.emplace(name, it->second);
    only.attempt_counters = model.attempt_counters;
    auto review = review_active_stages_traced(ctx, s.io->read_active_stages(only));
    for (const auto& [name, d] : s.survivors)
      if (!review.live.count(name) || review.live.at(name) != d)
        s.touched.insert(name);
    s.survivors = std::move(review.live);
    out.changes = std::move(review.changes);
    // A survivor whose keeper wrote its record since: adopted now.
    for (auto& a : review.adopt)
      s.adopting.push_back(std::move(a));
  }
  for (auto it = s.paused.begin(); it != s.paused.end();) {
    if (it->second <= now) {
      s.touched.insert(it->first);
      it = s.paused.erase(it);
    } else {
      ++it;
    }
  }

  auto refreshed = s.io->refresh_scan(s.ended_dirs);
  s.ended_dirs.clear();
  trace_scan(ctx, refreshed, s.io->scan());
  if (!refreshed.is_ok()) {
    s.terminal_error = "workspace scan failed: " + refreshed.error().message();
    return out;
  }
  runtime::planner_input in;
  in.full = refreshed->full;
  in.touched.assign(s.touched.begin(), s.touched.end());
  in.touched.insert(in.touched.end(), refreshed->changed.begin(), refreshed->changed.end());
  s.touched.clear();
  in.claims_changed = s.claims_changed;
  s.claims_changed = false;
  // A violating attempt runs only while its task does: entries of a task
  // that ended (its attempt's end may still be on the way) go now.
  auto ended = std::erase_if(s.live_violations, [&s](const runtime::live_violation& v) {
    return !s.running.count(v.task) && !s.survivors.count(v.task);
  });
  in.violations = s.live_violations;
  in.violations_changed = s.violations_changed || ended > 0;
  s.violations_changed = false;

  std::vector<std::string> errors;
  auto scopes = scopes_to_check(s, model, in.full, in.touched);
  auto before_reconcile = out.changes.size();
  reconcile(s, model, scopes, out.changes, out.completed, errors);
  // A group closes on the state the reconciliation leaves: a restart that
  // completes a group's last tasks from the archive closes it after this
  // pass's changes are durable.
  if (out.changes.size() == before_reconcile) {
    out.closing = groups_to_close(s, model, scopes);
  } else {
    // Closing reads only the orchestration records: copy those, not every
    // task's state (the changes naming tasks fail here and are ignored).
    runtime::state_model reconciled;
    reconciled.orchestrations = model.orchestrations;
    for (auto c = out.changes.begin() + static_cast<std::ptrdiff_t>(before_reconcile);
         c != out.changes.end(); ++c)
      (void) runtime::apply_change(reconciled, *c);
    out.closing = groups_to_close(s, reconciled, scopes);
  }

  in.scanner = &s.io->scan();
  in.archived_folders = [&s](const std::string& task) {
    return s.io->archived_task_folders(task);
  };
  in.state = &model;
  in.pol = &ctx.pol;
  in.max_parallel = ctx.max_parallel;
  for (const auto& [name, h] : s.running)
    in.live[name] = {runtime::live_where::here, ""};
  for (const auto& [name, until] : s.paused)
    in.live[name] = {runtime::live_where::here, "paused after an unchanged review"};
  for (const auto& [name, detail] : s.survivors)
    in.live[name] = {runtime::live_where::elsewhere, detail};
  for (const auto& a : s.adopting)
    in.live[a.task] = {runtime::live_where::here, "adopted from its keeper"};
  auto planned = s.planner.plan(in);
  trace_admission(ctx, planned);
  out.changes.insert(out.changes.end(), std::make_move_iterator(planned.changes.begin()),
                     std::make_move_iterator(planned.changes.end()));
  for (const auto& e : errors)
    s.failed_here.emplace(e, "");

  for (const auto& a : s.adopting)
    if (!s.running.count(a.task))
      out.adopt.push_back(spec_of_adoption(s, a, model));
  s.adopting.clear();
  const auto& entries = s.planner.entries();
  for (const auto& name : planned.admitted) {
    if (s.failed_here.count(name) || s.running.count(name))
      continue;
    const auto* t = s.io->scan().find(name);
    auto e = entries.find(name);
    if (t == nullptr || e == entries.end())
      continue;
    out.start.push_back(spec_of(*t, e->second, model));
  }
  runtime::admission_plan examined;
  examined.entries = planned.examined;
  emit_reasons(s, examined);

  // The first pass lists every task; later ones the tasks whose line changed.
  messages::tasks_scanned scanned{now, {}};
  auto show = [&](const runtime::admission_entry& e) {
    messages::task_status_entry line{e.task, std::string(runtime::to_string(e.stage)),
                                      status_of(e.kind), e.reason};
    auto key = line.stage + '|' + line.status + '|' + line.reason;
    auto [it, inserted] = s.shown.try_emplace(e.task, key);
    if (!inserted && it->second == key && !in.full)
      return;
    it->second = std::move(key);
    scanned.tasks.push_back(std::move(line));
  };
  if (in.full) {
    for (const auto& v : s.io->scan().ordered())
      if (auto e = entries.find(v->name); e != entries.end())
        show(e->second);
  } else {
    for (const auto& e : planned.examined)
      show(e);
  }
  for (const auto& name : planned.dropped)
    s.shown.erase(name);
  if (!scanned.tasks.empty() || in.full)
    emit(ctx, std::move(scanned));
  trace_scheduler(ctx, runtime::trace_kinds::scheduler_pass, s.inbound_seq, out.changes, out.start,
                  out.adopt);
  return out;
}

void after_pass_durable(scheduler_state& s, const pass_decision& pass) {
  for (const auto& [task, archive] : pass.completed) {
    s.io->remove_attempt_logs(task);
    ++s.completed;
    emit(*s.ctx, messages::task_finished{s.now, task, "", "complete", "archived at " + archive});
  }
}

std::vector<runtime::state_change> close_groups(scheduler_state& s,
                                                std::vector<runtime::group_reading> closing) {
  std::vector<runtime::state_change> changes;
  for (auto& group : closing) {
    auto moved = s.io->archive_work_log(group.scope);
    auto& a = group.archived;
    a.attempted = true;
    a.ok = moved.ok;
    a.not_found = moved.not_found;
    a.error = moved.error;
    auto closed = runtime::decide_group_close(group);
    trace_group_close(*s.ctx, group, closed);
    changes.insert(changes.end(), closed.changes.begin(), closed.changes.end());
    if (!closed.error.empty())
      s.failed_here.emplace(closed.error, "");
  }
  return changes;
}

void note_state_published(scheduler_state& s, const messages::state_changes_published& p) {
  if (p.seq <= s.mirror_seq)
    return;
  for (const auto& c : p.changes) {
    (void) runtime::apply_change(s.mirror, c);
    std::visit(
      [&](const auto& x) {
        if constexpr (requires { x.task; })
          s.touched.insert(x.task);
        if constexpr (requires { x.owner; }) {
          s.touched.insert(x.owner);
          s.claims_changed = true;
        }
      },
      c);
  }
  s.mirror_seq = p.seq;
}

void note_task_ended(scheduler_state& s, const messages::task_ended& ended) {
  auto now = s.now;
  // Its folder, its dependents and the capacity waiters are looked at again.
  s.touched.insert(ended.task);
  s.ended_dirs.push_back(std::filesystem::path(s.ctx->task_root) / ended.task);
  if (ended.outcome == "complete") {
    ++s.completed;
    s.reasons.forget(ended.task);
    emit(*s.ctx, messages::task_finished{now, ended.task, ended.stage, "complete", ended.reason});
  } else if (ended.outcome == "advance") {
    emit(*s.ctx, messages::task_finished{now, ended.task, ended.stage, "stage-done", ended.reason});
  } else if (ended.outcome == "pause") {
    s.paused[ended.task] = now + ended.pause_ms;
    emit(*s.ctx, messages::task_waiting{now, ended.task, ended.stage, ended.reason});
  } else if (ended.outcome == "blocked") {
    s.block_shown[ended.task] = ended.reason;
    emit(*s.ctx, messages::task_blocked{now, ended.task, ended.stage, ended.reason});
  } else if (ended.outcome == "error") {
    s.failed_here[ended.task] = ended.reason;
    emit(*s.ctx, messages::task_failed{now, ended.task, ended.stage, ended.reason});
  }
}

messages::run_finished finish_run(scheduler_state& s) {
  std::vector<std::string> errors;
  for (const auto& [task, why] : s.failed_here)
    errors.push_back(why.empty() ? task : task + ": " + why);
  int recorded_complete = 0; // tasks the orchestration records hold as complete
  for (const auto& [scope, record] : s.mirror.orchestrations)
    if (s.ctx->task_group.empty() || scope == s.ctx->task_group)
      for (const auto& [task, rec] : record.tasks)
        recorded_complete += rec.status == runtime::orchestration_task_status::complete;
  auto last = s.planner.snapshot();
  auto obs = runtime::observe_run_end(last, !s.ctx->task_group.empty(),
                                      std::max(s.completed, recorded_complete), errors);
  obs.interrupted = s.interrupted;
  obs.terminal_error = s.terminal_error;
  auto exit = runtime::compute_run_exit(obs);
  trace_run_exit(*s.ctx, obs, exit);
  std::map<std::string, int64_t> counts;
  for (const auto& e : last.admission.entries)
    ++counts[status_of(e.kind)];
  counts["complete"] += std::max(s.completed, recorded_complete);
  messages::run_summary summary{s.now, {}, exit.code, exit.summary};
  for (const auto& [status, n] : counts)
    summary.counts.push_back({status, n});
  emit(*s.ctx, std::move(summary));
  return {exit.code, exit.summary, exit.details};
}

} // namespace ad::actors

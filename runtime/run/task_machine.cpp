#include "runtime/run/task_machine.hpp"

#include <algorithm>
#include <filesystem>

#include "runtime/core/json.hpp"
#include "runtime/policy/launch_settings.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/run/admission_quota.hpp"
#include "runtime/run/attempt_snapshots.hpp"
#include "runtime/run/active_probe.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

std::string_view to_string(task_peer peer) {
  switch (peer) {
    case task_peer::state_store: return "state store";
    case task_peer::supervisor: return "supervisor";
    case task_peer::attempt: return "attempt";
  }
  return "unknown";
}

std::string_view to_string(task_phase phase) {
  switch (phase) {
    case task_phase::begin_cooldowns: return "begin_cooldowns";
    case task_phase::begin_state: return "begin_state";
    case task_phase::begin_blocking: return "begin_blocking";
    case task_phase::begin_wait_persisting: return "begin_wait_persisting";
    case task_phase::begin_waiting: return "begin_waiting";
    case task_phase::launch_state: return "launch_state";
    case task_phase::launch_spending: return "launch_spending";
    case task_phase::launch_reading: return "launch_reading";
    case task_phase::launch_persisting: return "launch_persisting";
    case task_phase::launch_cancelling: return "launch_cancelling";
    case task_phase::launch_blocking: return "launch_blocking";
    case task_phase::running: return "running";
    case task_phase::after_reading: return "after_reading";
    case task_phase::after_naming: return "after_naming";
    case task_phase::after_persisting: return "after_persisting";
    case task_phase::after_state: return "after_state";
    case task_phase::cancel_persisting: return "cancel_persisting";
    case task_phase::step_persisting: return "step_persisting";
    case task_phase::supervising: return "supervising";
    case task_phase::decision_persisting: return "decision_persisting";
    case task_phase::block_persisting: return "block_persisting";
    case task_phase::launch_waiting: return "launch_waiting";
    case task_phase::placing: return "placing";
    case task_phase::placing_waiting: return "placing_waiting";
    case task_phase::ended: return "ended";
  }
  return "unknown";
}

namespace {

const std::string stopped_reason = "stopped by shutdown";
// How soon a task asks again for a node when none had room (distributed mode).
constexpr millis placing_retry_ms = 200;

task_paths paths_of(const task_spec& spec, const task_context& ctx) {
  return {ctx.workspace, spec.task_dir, spec.plan, spec.review};
}

// The supervisor's step as what the task does next: a launch (target,
// prompt, native session, delay) or a block, with the reason shown.
struct step_plan {
  std::string kind; // step_name()
  std::string target;
  std::string prompt;
  std::string native_session;
  millis until = 0; // launch not before (0: now)
  std::string reason;
  bool block = false;
};

step_plan plan_of(const next_step& step, millis now) {
  step_plan out;
  out.kind = std::string(step_name(step));
  std::visit(
    [&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, block_step>) {
        out.block = true;
        out.reason = x.reason;
      } else if constexpr (std::is_same_v<T, wait_until>) {
        out.target = x.target;
        out.prompt = x.prompt;
        out.reason = x.reason;
        out.until = std::max(now, x.until);
      } else {
        out.target = x.target;
        out.prompt = x.prompt;
        out.until = now + std::max<millis>(0, x.delay);
        if constexpr (std::is_same_v<T, resume_native>)
          out.native_session = x.session;
        if constexpr (std::is_same_v<T, failover_step> || std::is_same_v<T, promote_step>)
          if (x.package.kind == package_kind::native)
            out.native_session = x.package.native_session_path;
      }
    },
    step);
  return out;
}

// The target choice of a stage at its start: a target with the decision
// records to make durable, a wait while every candidate cools down, or a
// block.
struct target_choice {
  std::vector<state_change> changes;
  std::string target;
  std::string prompt;
  std::string consume_handoff;
  std::string blocked;
  millis wait_until = 0;
  std::string wait_target; // the cooling target free first
  std::string wait_reason;
};

target_choice choose_target(const task_context& ctx, const task_spec& spec, const task_state& st,
                            const target_cooldowns& cooldowns, millis now) {
  target_choice out;
  const auto& pol = *ctx.pol;
  const auto stage = spec.stage_name();
  out.prompt = stage_prompt(pol, stage, paths_of(spec, ctx), st);
  if (spec.stage == task_stage::worker && st.handoff) {
    // The admission batch is the handoff's fresh quota snapshot.
    auto fresh = spec.has_admission_quota ? spec.admission_quota : quota_snapshot{now, {}};
    auto d = select_for_handoff(pol, *ctx.zone, st, *st.handoff, fresh, cooldowns, now);
    if (!d.is_ok()) {
      out.blocked = d.error().message();
      out.changes.push_back(set_blocked{spec.name, {out.blocked, ""}});
      return out;
    }
    out.target = d->selected_target;
    out.consume_handoff = st.handoff->id;
    out.changes.push_back(record_decision{spec.name, *d});
    return out;
  }
  if (auto it = st.decisions.find(stage); it != st.decisions.end()) {
    auto ok = revalidate_decision(it->second, pol, *ctx.zone, st.work_unit_id);
    if (ok.is_ok()) {
      out.target = it->second->selected_target;
      return out;
    }
    out.blocked = "persisted decision no longer valid: " + ok.message();
    out.changes.push_back(block_invalid_decision(spec.name, it->second, ok));
    return out;
  }
  selection_request req;
  req.work_unit_id = st.work_unit_id.empty() ? spec.work_unit_id : st.work_unit_id;
  req.stage = stage;
  req.lane = spec.lane;
  req.grade = std::clamp(spec.grade, 1, 10);
  req.now = now;
  req.used_targets = used_targets(st, stage);
  req.cooldowns = &cooldowns;
  quota_snapshot merged;
  if (spec.has_admission_quota) {
    merged = merge_quota(spec.admission_quota, st.quota ? &*st.quota : nullptr);
    req.quota = &merged;
    out.changes.push_back(set_quota_snapshot{spec.name, merged});
  } else if (st.quota) {
    req.quota = &*st.quota;
  }
  if (spec.stage == task_stage::selfcheck && st.completing_decision)
    req.pinned_target = (*st.completing_decision)->selected_target;
  auto d = select_target(pol, *ctx.zone, req);
  if (!d.is_ok()) {
    // Targets that only cool down are waited for, not given up on.
    if (auto first = cooldown_wait_of(pol, *ctx.zone, req); first.until > now) {
      out.wait_until = first.until;
      out.wait_target = first.target;
      out.wait_reason = d.error().message();
      // The wait is durable (status shows it; a restart keeps it), the
      // quota snapshot is not: the choice is made again after the wait.
      out.changes = {record_cooldown_wait(spec.name, stage, first.target, first.until)};
      return out;
    }
    out.blocked = d.error().message();
    out.changes.push_back(set_blocked{spec.name, {out.blocked, ""}});
    return out;
  }
  out.target = d->selected_target;
  out.changes.push_back(record_decision{spec.name, *d});
  return out;
}

attempt_order make_order(const task_context& ctx, const task_spec& spec, const task_state& st,
                         const policy_target& target, int64_t attempt, std::string prompt,
                         std::string native_session, const std::string& last_locator,
                         const std::string& handoff_id) {
  const auto stage = spec.stage_name();
  attempt_order o;
  o.task = spec.name;
  o.plan_number = spec.plan_number;
  o.role = stage;
  o.attempt = attempt;
  o.workspace = ctx.workspace;
  o.workspace_id = ctx.workspace_id;
  o.runs_dir = ctx.runs_dir;
  o.adapter = target.adapter;
  o.model = target.model;
  o.effort = target.reasoning_effort;
  o.prompt = std::move(prompt);
  if (!native_session.empty())
    o.resumed_from_locator = last_locator;
  o.native_session_file = std::move(native_session);
  o.provider = target.provider;
  if (auto caps = ctx.cli_caps.find(target.adapter); caps != ctx.cli_caps.end())
    o.caps = {caps->second.detected, caps->second.version, caps->second.pi_approve,
              caps->second.pi_session_id};
  o.plan_path = spec.plan;
  o.review_path = spec.review;
  o.write_paths = spec.write_paths;
  o.command_template = target.argv;
  o.retry_handoff_id = handoff_id;
  const route_decision* decision = nullptr;
  if (auto d = st.decisions.find(stage); d != st.decisions.end()) {
    decision = &d->second.get();
    o.has_selector_evidence = true;
    o.selector_evidence = d->second;
  }
  auto settings = launch_settings_for(*ctx.pol, target, decision, stage);
  o.env_additions = std::move(settings.env_additions);
  o.progress = {settings.progress.network_wait_ms, settings.progress.retrying_ms,
                settings.progress.failover_available};
  auto budget = st.failure_budgets.find(stage);
  o.stage_budget = budget == st.failure_budgets.end() ? 0 : budget->second;
  o.timing = ctx.timing;
  o.keep_alive = ctx.pol->processes.keep_alive;
  if (target.adapter == "command" && target.usage_reader != usage_format::none)
    o.usage_reader = std::string{to_string(target.usage_reader)};
  if (const auto* prices = ctx.pol->find_prices(target.id)) {
    o.has_prices = true;
    o.prices = *prices;
  }
  return o;
}

supervisor_request request_of(const task_context& ctx, const task_spec& spec,
                              const attempt_result& r, const attempt_reading& reading) {
  supervisor_request req;
  auto& f = req.failure;
  f.task = spec.name;
  f.stage = spec.stage_name();
  f.failure_class = r.failure_class.empty() ? "generic-error" : r.failure_class;
  f.evidence = r.evidence;
  f.evidence_origin = r.evidence_origin;
  if (!r.evidence.empty())
    f.diagnostics.push_back(r.evidence);
  f.attempt_id = r.identity;
  f.locator = r.locator_path;
  fs::path dir = r.attempt_dir;
  f.raw_log = (dir / "stream.log").string();
  f.normalized_output = (dir / "normalized-output.log").string();
  f.native_session_path = r.native_session_path;
  if (r.has_reset_at)
    f.reset_at = r.reset_at;
  if (!reading.stream_tail.empty())
    f.stream_tail.push_back(reading.stream_tail);
  req.paths = paths_of(spec, ctx);
  req.lane = spec.lane;
  req.grade = spec.grade;
  req.write_set_now = reading.write_set;
  req.named_files = reading.named_files;
  return req;
}

} // namespace

stage_step step_after_success(const task_spec& spec, const task_state& st, const policy& pol,
                              const attempt_reading& reading, const seen_sources& review_seen,
                              const std::string& review_signature) {
  switch (spec.stage) {
    case task_stage::worker:
      return after_worker_success(spec.name, st, pol, reading.runtime_identity);
    case task_stage::selfcheck:
      return after_selfcheck_success(spec.name, st, pol, reading.checklist);
    default: {
      review_reading review;
      review.observed = reading.review_observed;
      review.after = reading.review;
      review.before = review_seen;
      review.signature_before = review_signature;
      review.signature_after = reading.review_signature;
      return after_review_reading(spec.name, spec.task_dir, st, pol, review);
    }
  }
}

task_machine::task_machine(const task_context& ctx, task_spec spec)
    : ctx_(&ctx), spec_(std::move(spec)) {}

run_event task_machine::event(run_event_kind kind, millis now) const {
  run_event e;
  e.kind = kind;
  e.time = now;
  e.task = spec_.name;
  return e;
}

void task_machine::show(run_event e, out_t& out) {
  out.push_back(task_cmd::show{std::move(e)});
}

void task_machine::persist(millis now, std::vector<state_change> changes, task_phase next,
                           out_t& out) {
  phase_ = next;
  if (changes.empty()) {
    on_durable(now, out); // nothing to wait for
    return;
  }
  out.push_back(task_cmd::make_durable{std::move(changes)});
}

void task_machine::end(std::string outcome, std::string reason, millis pause, out_t& out) {
  phase_ = task_phase::ended;
  out.push_back(task_cmd::end_task{std::move(outcome), std::move(reason), pause});
}

void task_machine::begin(out_t& out) {
  phase_ = task_phase::begin_cooldowns;
  out.push_back(task_cmd::read_cooldowns{});
}

void task_machine::wait_then(millis now, millis until, task_phase waiting, out_t& out) {
  if (cancelled_) {
    end("cancelled", stopped_reason, 0, out);
    return;
  }
  phase_ = waiting;
  out.push_back(task_cmd::wake_at{std::max(now, until)});
}

void task_machine::decide_begin(millis now, out_t& out) {
  const auto stage = spec_.stage_name();
  // A quota-reset wait made durable before a restart still holds.
  if (auto until = pending_reset_wait(st_, stage, now); until > 0) {
    auto e = event(run_event_kind::supervisor_wait, now);
    e.role = stage;
    if (auto d = st_.decisions.find(stage); d != st_.decisions.end())
      e.target = d->second->selected_target;
    e.until = until;
    e.reason = "waiting for the quota of " + (e.target.empty() ? "the target" : e.target) +
               " to reset: until " + format_utc_iso(until) + " (recorded before a restart)";
    show(std::move(e), out);
    wait_then(now, until, task_phase::begin_waiting, out);
    return;
  }
  // So does a cool-down wait: the targets' cool-downs themselves live in
  // the supervisor's memory and are gone after a restart.
  if (auto cooling = pending_cooldown_wait(st_, stage, now);
      cooling && cooling->until != cooldown_until_) {
    auto e = event(run_event_kind::supervisor_wait, now);
    e.role = stage;
    e.target = cooling->target;
    e.until = cooling->until;
    e.wait = wait_cool_down;
    e.reason = "waiting for " + cooling->target + " to cool down: until " +
               format_utc_iso(cooling->until) + " (recorded before a restart)";
    show(std::move(e), out);
    wait_then(now, cooling->until, task_phase::begin_waiting, out);
    return;
  }
  auto choice = choose_target(*ctx_, spec_, st_, cooldowns_, now);
  if (choice.wait_until > now) {
    auto e = event(run_event_kind::supervisor_wait, now);
    e.role = stage;
    e.target = choice.wait_target;
    e.until = choice.wait_until;
    e.wait = wait_cool_down;
    e.reason = "every target cools down: waiting until " + format_utc_iso(choice.wait_until) +
               " (" + choice.wait_reason + ")";
    show(std::move(e), out);
    cooldown_until_ = choice.wait_until;
    persist(now, std::move(choice.changes), task_phase::begin_wait_persisting, out);
    return;
  }
  if (!choice.blocked.empty()) {
    end_reason_ = choice.blocked;
    persist(now, std::move(choice.changes), task_phase::begin_blocking, out);
    return;
  }
  if (!started_shown_) {
    started_shown_ = true;
    auto e = event(run_event_kind::task_started, now);
    e.stage = stage;
    show(std::move(e), out);
  }
  launch(now, choice.target, choice.prompt, std::move(choice.changes), choice.consume_handoff, "",
         out);
}

void task_machine::adopt(millis now, out_t& out) {
  const auto stage = spec_.stage_name();
  const auto& a = spec_.adopted;
  // The attempt's target: the stage's decision, else the policy's target
  // of the attempt's adapter and model, else one made up of them (the
  // attempt runs whatever the policy says now; it is followed, not judged).
  const policy_target* target = nullptr;
  if (auto d = st_.decisions.find(stage); d != st_.decisions.end())
    target = ctx_->pol->find_target(d->second->selected_target);
  if (!target)
    for (const auto& t : ctx_->pol->targets)
      if (t.adapter == a.cli && t.model == a.model) {
        target = &t;
        break;
      }
  policy_target made;
  if (!target) {
    made.id = a.cli + ":" + a.model;
    made.adapter = a.cli;
    made.model = a.model;
    target = &made;
  }
  order_ = make_order(*ctx_, spec_, st_, *target, spec_.last_attempt, "", "", "", "");
  order_.node = a.node;
  target_ = target->id;
  identity_ = make_attempt_identity(spec_.name, spec_.plan_number, stage, spec_.last_attempt);
  auto e = event(run_event_kind::task_started, now);
  e.stage = stage;
  show(std::move(e), out);
  started_shown_ = true;
  auto began = event(run_event_kind::attempt_started, now);
  began.role = stage;
  began.target = target_;
  began.cli = order_.adapter;
  began.model = order_.model;
  began.attempt = order_.attempt;
  began.identity = identity_;
  began.locator = a.locator;
  began.node = a.node;
  began.reason = a.node.empty()
                   ? "adopted from its keeper (pid " + std::to_string(a.keeper_pid) +
                       "): the agent outlived the dispatcher that started it"
                   : "adopted through node " + a.node +
                       ": the agent outlived the coordinator that started it";
  show(std::move(began), out);
  phase_ = task_phase::running;
  out.push_back(task_cmd::adopt_attempt{order_, a.locator, a.keeper_pid, a.keeper_start_token});
}

void task_machine::launch(millis now, std::string target, std::string prompt,
                          std::vector<state_change> pre, std::string handoff,
                          std::string native_session, out_t& out) {
  if (cancelled_) {
    end("cancelled", stopped_reason, 0, out);
    return;
  }
  if (!ctx_->pol->find_target(target)) {
    end_reason_ = "unknown target " + target;
    persist(now, {set_blocked{spec_.name, {end_reason_, ""}}}, task_phase::launch_blocking, out);
    return;
  }
  launch_ = {std::move(target), std::move(prompt), std::move(pre), std::move(handoff),
             std::move(native_session)};
  if (ctx_->pol->limits.empty()) {
    read_for_launch(out);
    return;
  }
  phase_ = task_phase::launch_spending;
  out.push_back(task_cmd::read_spend{});
}

void task_machine::read_for_launch(out_t& out) {
  phase_ = task_phase::launch_reading;
  out.push_back(task_cmd::read_for_launch{spec_.stage == task_stage::review});
}

// The run's ceiling first (reached, it starts nothing more anywhere), then
// the task's. A block drops the launch's own changes (a first decision is
// made again after --retry-blocked).
void task_machine::launch_within_limits(millis now, const task_ev::spend_read& spent, out_t& out) {
  if (cancelled_) {
    end("cancelled", stopped_reason, 0, out);
    return;
  }
  for (auto [scope, usage] : {std::pair{limit_scope::run, &spent.run},
                              std::pair{limit_scope::task, &spent.task}}) {
    auto check = check_ceiling(ctx_->pol->limits, scope, *usage);
    if (!check.may_start) {
      end_reason_ = check.reason;
      std::vector<state_change> block{clear_active_stage{spec_.name},
                                      set_blocked{spec_.name, {check.reason, check.setting}}};
      persist(now, std::move(block), task_phase::launch_blocking, out);
      return;
    }
    if (check.cost_unknown && !cost_unknown_noted_) {
      cost_unknown_noted_ = true;
      out.push_back(task_cmd::note{
        "warning: " + spec_.name + ": the " + std::string(to_string(scope)) +
        " cost ceiling cannot see tokens spent without a known cost (" + usage_summary(*usage) +
        "); set prices for their targets in the policy (\"prices\")"});
    }
  }
  read_for_launch(out);
}

void task_machine::launch_after_reading(millis now, const launch_reading& reading, out_t& out) {
  const auto stage = spec_.stage_name();
  // A first selection arrives in `pre`, durable with the launch: the
  // attempt is built from it (launch settings depend on its candidates).
  for (const auto& change : launch_.pre)
    if (const auto* d = std::get_if<record_decision>(&change))
      if (d->decision->stage == stage)
        st_.decisions[stage] = d->decision;
  if (spec_.stage == task_stage::review) {
    review_seen_ = reading.review_seen;
    review_signature_ = reading.review_signature;
  }
  int64_t attempt = ++spec_.last_attempt;
  const auto* target = ctx_->pol->find_target(launch_.target);
  order_ = make_order(*ctx_, spec_, st_, *target, attempt, launch_.prompt, launch_.native_session,
                      last_locator_, launch_.handoff);
  target_ = launch_.target;
  identity_ = make_attempt_identity(spec_.name, spec_.plan_number, stage, attempt);
  auto pre = std::move(launch_.pre);
  pre.push_back(record_attempt_started{spec_.name, stage, spec_.plan_number, stage, attempt, "",
                                       launch_.handoff});
  pre.push_back(write_set_change(spec_.name, identity_, snapshot_phase::before, reading.write_set));
  persist(now, std::move(pre), task_phase::launch_persisting, out);
}

void task_machine::start_placed(millis now, const std::string& node, out_t& out) {
  order_.node = node;
  auto e = event(run_event_kind::attempt_started, now);
  e.role = order_.role;
  e.target = target_;
  e.cli = order_.adapter;
  e.model = order_.model;
  e.attempt = order_.attempt;
  e.identity = identity_;
  e.node = node;
  show(std::move(e), out);
  phase_ = task_phase::running;
  out.push_back(task_cmd::start_attempt{order_});
}

// Distributed mode: the host's answer names a node, or why none fits now;
// then the task shows the reason once and asks again shortly. The start is
// durable already, so a stop while placing clears the stage.
void task_machine::on_placed(millis now, const task_ev::placed& p, out_t& out) {
  if (cancelled_) {
    persist(now, {clear_active_stage{spec_.name}}, task_phase::launch_cancelling, out);
    return;
  }
  if (!p.node.empty()) {
    placing_reason_.clear();
    start_placed(now, p.node, out);
    return;
  }
  if (p.waiting_reason != placing_reason_) {
    placing_reason_ = p.waiting_reason;
    auto e = event(run_event_kind::task_waiting, now);
    e.stage = spec_.stage_name();
    e.reason = p.waiting_reason;
    e.wait = wait_node;
    show(std::move(e), out);
  }
  phase_ = task_phase::placing_waiting;
  out.push_back(task_cmd::wake_at{now + placing_retry_ms});
}

void task_machine::attempt_ended(millis now, const attempt_result& r, out_t& out) {
  out.push_back(task_cmd::checkpoint{"after-attempt-end", spec_.stage_name()});
  result_ = r;
  last_locator_ = r.locator_path;
  auto e = event(run_event_kind::attempt_finished, now);
  e.role = spec_.stage_name();
  e.target = target_;
  e.identity = r.identity;
  e.attempt_status = cancelled_ ? "cancelled" : r.status;
  e.exit_code = r.exit_code;
  e.failure_class = r.failure_class;
  e.evidence = r.evidence.substr(0, 300);
  e.locator = r.locator_path;
  e.usage = r.usage;
  show(std::move(e), out);
  if (cancelled_) {
    std::vector<state_change> changes{clear_active_stage{spec_.name}};
    add_spend(changes);
    persist(now, std::move(changes), task_phase::cancel_persisting, out);
    return;
  }
  // The write set after the attempt and what the next step reads: the
  // stage's reading after a success, the stream tail after a failure.
  phase_ = task_phase::after_reading;
  out.push_back(task_cmd::read_after_attempt{r.status == "succeeded", r.locator_path,
                                             (fs::path(r.attempt_dir) / "stream.log").string()});
}

void task_machine::add_spend(std::vector<state_change>& changes) const {
  if (!result_.usage.empty())
    changes.push_back(record_attempt_usage{result_.identity, spec_.name, target_, result_.usage});
}

std::vector<state_change> task_machine::end_changes() const {
  std::vector<state_change> changes{
    write_set_change(spec_.name, identity_, snapshot_phase::after, reading_.write_set)};
  add_spend(changes);
  return changes;
}

void task_machine::after_reading(millis now, attempt_reading reading, out_t& out) {
  reading_ = std::move(reading);
  if (result_.status != "succeeded") {
    // What is known about the files the failure's message names, for the
    // supervisor's intervention context.
    named_path_query q;
    std::vector<std::string> diagnostics;
    if (!result_.evidence.empty())
      diagnostics.push_back(result_.evidence);
    std::vector<std::string> tail;
    if (!reading_.stream_tail.empty())
      tail.push_back(reading_.stream_tail);
    q.paths_as_written = tactical_named_paths(
      ctx_->pol->tactical_patterns, tactical_input{result_.evidence, diagnostics, tail});
    if (!q.paths_as_written.empty()) {
      q.workspace = ctx_->workspace;
      q.task_root = ctx_->task_root;
      q.task = spec_.name;
      q.plan_number = spec_.plan_number;
      q.write_paths = spec_.write_paths;
      q.runs_dir = ctx_->runs_dir;
      q.now = now;
      phase_ = task_phase::after_naming;
      out.push_back(task_cmd::read_named_files{std::move(q)});
      return;
    }
  }
  // The write set after the attempt, durable before the supervisor reads
  // the task's history (SPEC section 7), and what the attempt spent.
  persist(now, end_changes(), task_phase::after_persisting, out);
}

void task_machine::settle(millis now, out_t& out) {
  if (result_.status == "succeeded") {
    stage_step_ = step_after_success(spec_, st_, *ctx_->pol, reading_, review_seen_,
                                     review_signature_);
    auto changes = std::move(stage_step_.changes);
    stage_step_.changes.clear();
    persist(now, std::move(changes), task_phase::step_persisting, out);
    return;
  }
  phase_ = task_phase::supervising;
  out.push_back(task_cmd::ask_supervisor{request_of(*ctx_, spec_, result_, reading_), st_});
}

void task_machine::on_supervised(millis now, task_ev::supervisor_decided d, out_t& out) {
  auto changes = std::move(d.changes);
  decided_ = std::move(d);
  persist(now, std::move(changes), task_phase::decision_persisting, out);
}

void task_machine::after_decision(millis now, out_t& out) {
  out.push_back(task_cmd::checkpoint{"after-decision", ""});
  auto plan = plan_of(decided_.step, now);
  const auto stage = spec_.stage_name();
  for (const auto& ev : decided_.events) {
    // Every diagnostic goes to the debug log; a match is also a run event.
    out.push_back(task_cmd::note{"tactical " + spec_.name + " " + stage + ": " +
                                 dump_json(to_json(ev))});
    if (ev.kind != "matched")
      continue;
    auto e = event(run_event_kind::tactical_match, now);
    e.role = stage;
    e.target = target_;
    e.pattern_ids = ev.pattern_ids;
    e.action = plan.kind + (plan.target.empty() ? "" : " on " + plan.target);
    show(std::move(e), out);
  }
  if (plan.kind == "failover" || plan.kind == "promote") {
    auto e = event(plan.kind == "failover" ? run_event_kind::failover : run_event_kind::promotion,
                   now);
    e.role = stage;
    e.from_target = target_;
    e.to_target = plan.target;
    e.reason = plan.reason;
    show(std::move(e), out);
  } else if (plan.kind == "wait_until") {
    auto e = event(run_event_kind::supervisor_wait, now);
    e.role = stage;
    e.target = plan.target;
    e.until = plan.until;
    e.wait = wait_quota_reset;
    e.reason = plan.reason;
    show(std::move(e), out);
  } else if (!plan.block) { // a blocked task's end is shown once, by the scheduler
    auto e = event(run_event_kind::task_failed, now);
    e.stage = stage;
    e.reason = plan.kind + " on " + plan.target;
    show(std::move(e), out);
  }
  if (plan.block) {
    end_reason_ = plan.reason;
    persist(now, {clear_active_stage{spec_.name}}, task_phase::block_persisting, out);
    return;
  }
  launch_ = {plan.target, plan.prompt, {}, "", plan.native_session};
  if (plan.until > now) {
    wait_then(now, plan.until, task_phase::launch_waiting, out);
    return;
  }
  if (cancelled_) {
    end("cancelled", stopped_reason, 0, out);
    return;
  }
  phase_ = task_phase::launch_state;
  out.push_back(task_cmd::read_task_state{});
}

void task_machine::on_durable(millis now, out_t& out) {
  switch (phase_) {
    case task_phase::begin_wait_persisting:
      out.push_back(task_cmd::checkpoint{"cooldown-wait-durable", ""});
      wait_then(now, cooldown_until_, task_phase::begin_waiting, out);
      break;
    case task_phase::begin_blocking:
    case task_phase::launch_blocking:
    case task_phase::block_persisting:
      end("blocked", end_reason_, 0, out);
      break;
    case task_phase::launch_persisting: {
      if (cancelled_) {
        // Stopped while the start was made durable: no agent starts.
        persist(now, {clear_active_stage{spec_.name}}, task_phase::launch_cancelling, out);
        break;
      }
      out.push_back(task_cmd::checkpoint{"before-launch", ""});
      if (ctx_->place_on_nodes) {
        phase_ = task_phase::placing;
        out.push_back(task_cmd::place_attempt{identity_, spec_.name, order_.adapter});
        break;
      }
      start_placed(now, "", out);
      break;
    }
    case task_phase::launch_cancelling:
    case task_phase::cancel_persisting:
      end("cancelled", stopped_reason, 0, out);
      break;
    case task_phase::after_persisting:
      phase_ = task_phase::after_state;
      out.push_back(task_cmd::read_task_state{});
      break;
    case task_phase::step_persisting:
      if (stage_step_.next == stage_next::complete)
        out.push_back(task_cmd::remove_attempt_logs{});
      end(std::string(to_string(stage_step_.next)), stage_step_.reason, stage_step_.pause, out);
      break;
    case task_phase::decision_persisting:
      after_decision(now, out);
      break;
    default:
      break;
  }
}

std::vector<task_command> task_machine::step(millis now, const task_event& event) {
  out_t out;
  if (phase_ == task_phase::ended)
    return out;
  std::visit(
    [&](const auto& ev) {
      using T = std::decay_t<decltype(ev)>;
      if constexpr (std::is_same_v<T, task_ev::begun>) {
        if (phase_ == task_phase::begin_cooldowns)
          begin(out);
      } else if constexpr (std::is_same_v<T, task_ev::cooldowns_read>) {
        if (phase_ != task_phase::begin_cooldowns)
          return;
        cooldowns_ = ev.cooldowns;
        phase_ = task_phase::begin_state;
        out.push_back(task_cmd::read_task_state{});
      } else if constexpr (std::is_same_v<T, task_ev::task_state_read>) {
        if (ev.found)
          st_ = ev.state;
        if (phase_ == task_phase::begin_state) {
          if (spec_.adopting)
            adopt(now, out);
          else
            decide_begin(now, out);
        } else if (phase_ == task_phase::launch_state) {
          auto l = std::move(launch_);
          launch(now, std::move(l.target), std::move(l.prompt), {}, "",
                 std::move(l.native_session), out);
        } else if (phase_ == task_phase::after_state) {
          settle(now, out);
        }
      } else if constexpr (std::is_same_v<T, task_ev::durable>) {
        on_durable(now, out);
      } else if constexpr (std::is_same_v<T, task_ev::launch_read>) {
        if (phase_ == task_phase::launch_reading)
          launch_after_reading(now, ev.reading, out);
      } else if constexpr (std::is_same_v<T, task_ev::attempt_finished>) {
        if (phase_ == task_phase::running)
          attempt_ended(now, ev.result, out);
      } else if constexpr (std::is_same_v<T, task_ev::attempt_read>) {
        if (phase_ == task_phase::after_reading)
          after_reading(now, ev.reading, out);
      } else if constexpr (std::is_same_v<T, task_ev::named_files_read>) {
        if (phase_ != task_phase::after_naming)
          return;
        reading_.named_files = ev.files;
        persist(now, end_changes(), task_phase::after_persisting, out);
      } else if constexpr (std::is_same_v<T, task_ev::supervisor_decided>) {
        if (phase_ == task_phase::supervising)
          on_supervised(now, ev, out);
      } else if constexpr (std::is_same_v<T, task_ev::placed>) {
        if (phase_ == task_phase::placing)
          on_placed(now, ev, out);
      } else if constexpr (std::is_same_v<T, task_ev::spend_read>) {
        if (phase_ == task_phase::launch_spending)
          launch_within_limits(now, ev, out);
      } else if constexpr (std::is_same_v<T, task_ev::woke>) {
        if (phase_ == task_phase::placing_waiting) {
          phase_ = task_phase::placing;
          out.push_back(task_cmd::place_attempt{identity_, spec_.name, order_.adapter});
        } else if (phase_ == task_phase::begin_waiting) {
          begin(out);
        } else if (phase_ == task_phase::launch_waiting) {
          phase_ = task_phase::launch_state;
          out.push_back(task_cmd::read_task_state{});
        }
      } else if constexpr (std::is_same_v<T, task_ev::stop>) {
        if (cancelled_)
          return;
        cancelled_ = true;
        if (phase_ == task_phase::running)
          out.push_back(task_cmd::cancel_attempt{identity_});
        else if (phase_ == task_phase::begin_waiting || phase_ == task_phase::launch_waiting)
          end("cancelled", stopped_reason, 0, out);
        else if (phase_ == task_phase::placing_waiting)
          persist(now, {clear_active_stage{spec_.name}}, task_phase::launch_cancelling, out);
        // Otherwise a request is open: the task ends before its next wait or
        // launch, once the answer is handled.
      } else if constexpr (std::is_same_v<T, task_ev::request_failed>) {
        if (phase_ == task_phase::begin_cooldowns && ev.peer == task_peer::supervisor) {
          // Without the shared cool-downs the task chooses with none.
          phase_ = task_phase::begin_state;
          out.push_back(task_cmd::read_task_state{});
          return;
        }
        end("error", std::string(to_string(ev.peer)) + ": " + ev.error, 0, out);
      }
    },
    event);
  return out;
}

} // namespace ad::runtime

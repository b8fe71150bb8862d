#include "actors/scheduler/task_steps.hpp"

#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/attempt/attempt_files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/launch_settings.hpp"
#include "runtime/policy/selection.hpp"
#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/tactical.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/admission_quota.hpp"
#include "runtime/run/attempt_snapshots.hpp"
#include "runtime/schedule/review_observe.hpp"
#include "runtime/schedule/review_progress.hpp"
#include "runtime/schedule/task_view.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/workspace/checklist.hpp"

namespace ad::actors {

namespace fs = std::filesystem;

namespace {

runtime::task_paths paths_of(const task_spec& spec, const run_context& ctx) {
  return {ctx.workspace, spec.task_dir, spec.plan, spec.review};
}

std::string progress_signature_of(const task_spec& spec) {
  auto snap = runtime::snapshot_review_progress(spec.task_dir, spec.write_paths);
  return snap.is_ok() ? runtime::progress_signature(*snap) : std::string("unreadable");
}

template <class Event>
void emit(const run_context& ctx, Event ev) {
  if (ctx.out)
    caf::anon_send(ctx.out, std::move(ev));
}

} // namespace

parsed_step parse_step(const runtime::next_step& step, runtime::millis now) {
  parsed_step out;
  out.kind = std::string(runtime::step_name(step));
  std::visit(
    [&](const auto& x) {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, runtime::block_step>) {
        out.reason = x.reason;
      } else if constexpr (std::is_same_v<T, runtime::wait_until>) {
        out.target = x.target;
        out.prompt = x.prompt;
        out.reason = x.reason;
        out.delay = std::max<runtime::millis>(0, x.until - now);
      } else {
        out.target = x.target;
        out.prompt = x.prompt;
        out.delay = x.delay;
        if constexpr (std::is_same_v<T, runtime::resume_native>)
          out.native_session = x.session;
        if constexpr (std::is_same_v<T, runtime::failover_step> ||
                      std::is_same_v<T, runtime::promote_step>)
          if (x.package.kind == runtime::package_kind::native)
            out.native_session = x.package.native_session_path;
      }
    },
    step);
  return out;
}

parsed_step resumed_reset_wait(const task_actor_state& s, runtime::millis until,
                               runtime::millis now) {
  parsed_step out;
  out.kind = "wait_until";
  if (auto d = s.st.decisions.find(s.spec.stage); d != s.st.decisions.end())
    out.target = d->second.selected_target;
  out.delay = until - now;
  out.reason = "waiting for the quota of " + (out.target.empty() ? "the target" : out.target) +
               " to reset: until " + runtime::format_utc_iso(until) + " (recorded before a restart)";
  return out;
}

begin_step decide_begin(const task_actor_state& s, runtime::millis now) {
  begin_step out;
  if (auto until = runtime::pending_reset_wait(s.st, s.spec.stage, now); until > 0) {
    out.reset_until = until;
    out.reset_wait = resumed_reset_wait(s, until, now);
    return out;
  }
  out.choice = choose_target(s);
  return out;
}

parsed_step cooldown_wait(runtime::millis until, runtime::millis now, const std::string& why) {
  parsed_step out;
  out.kind = "wait_until";
  out.delay = until - now;
  out.reason = "every target cools down: waiting until " + runtime::format_utc_iso(until) + " (" +
               why + ")";
  return out;
}

runtime::supervisor_request supervisor_request_of(const task_actor_state& s,
                                                  const messages::attempt_result& r) {
  const auto& spec = s.spec;
  const auto& ctx = *s.ctx;
  const auto& write_set_now = s.write_set_after;
  runtime::supervisor_request req;
  auto& f = req.failure;
  f.task = spec.name;
  f.stage = spec.stage;
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
  auto tail = runtime::log_tail(f.raw_log);
  if (!tail.empty())
    f.stream_tail.push_back(tail);
  req.paths = paths_of(spec, ctx);
  req.lane = spec.lane;
  req.grade = spec.grade;
  req.write_set_now = write_set_now;
  runtime::named_path_query named;
  named.paths_as_written = runtime::tactical_named_paths(
    ctx.pol.tactical_patterns, runtime::tactical_input{f.evidence, f.diagnostics, f.stream_tail});
  if (!named.paths_as_written.empty()) {
    named.workspace = ctx.workspace;
    named.task_root = ctx.task_root;
    named.task = spec.name;
    named.plan_number = spec.plan_number;
    named.write_paths = spec.write_paths;
    named.runs_dir = ctx.runs_dir;
    named.now = ctx.clk->now();
    req.named_files = io_of(s).named_files(named);
  }
  return req;
}

target_choice choose_target(const task_actor_state& s) {
  target_choice out;
  const auto& ctx = *s.ctx;
  const auto& spec = s.spec;
  const auto& st = s.st;
  auto now = ctx.clk->now();
  out.prompt = runtime::stage_prompt(ctx.pol, spec.stage, paths_of(spec, ctx), st);
  if (spec.stage == "worker" && st.handoff) {
    // The admission batch is the handoff's fresh quota snapshot.
    auto fresh = spec.has_admission_quota ? spec.admission_quota : runtime::quota_snapshot{now, {}};
    auto d = runtime::select_for_handoff(ctx.pol, ctx.zone, st, *st.handoff, fresh, s.cooldowns, now);
    if (!d.is_ok()) {
      out.blocked = d.error().message();
      out.changes.push_back(runtime::set_blocked{spec.name, {out.blocked, ""}});
      return out;
    }
    out.target = d->selected_target;
    out.consume_handoff = st.handoff->id;
    out.changes.push_back(runtime::record_decision{spec.name, *d});
    return out;
  }
  if (auto it = st.decisions.find(spec.stage); it != st.decisions.end()) {
    auto ok = runtime::revalidate_decision(it->second, ctx.pol, ctx.zone, st.work_unit_id);
    if (ok.is_ok()) {
      out.target = it->second.selected_target;
      return out;
    }
    out.blocked = "persisted decision no longer valid: " + ok.message();
    out.changes.push_back(runtime::block_invalid_decision(spec.name, it->second, ok));
    return out;
  }
  runtime::selection_request req;
  req.work_unit_id = st.work_unit_id.empty() ? spec.work_unit_id : st.work_unit_id;
  req.stage = spec.stage;
  req.lane = spec.lane;
  req.grade = std::clamp(spec.grade, 1, 10);
  req.now = now;
  req.used_targets = runtime::used_targets(st, spec.stage);
  req.cooldowns = &s.cooldowns;
  runtime::quota_snapshot merged;
  if (spec.has_admission_quota) {
    merged = runtime::merge_quota(spec.admission_quota, st.quota ? &*st.quota : nullptr);
    req.quota = &merged;
    out.changes.push_back(runtime::set_quota_snapshot{spec.name, merged});
  } else if (st.quota) {
    req.quota = &*st.quota;
  }
  if (spec.stage == "selfcheck" && st.completing_decision)
    req.pinned_target = st.completing_decision->selected_target;
  auto d = runtime::select_target(ctx.pol, ctx.zone, req);
  if (!d.is_ok()) {
    // Targets that only cool down are waited for, not given up on.
    if (auto until = runtime::cooldown_wait_until(ctx.pol, ctx.zone, req); until > now) {
      out.wait_until = until;
      out.wait_reason = d.error().message();
      out.changes.clear();
      return out;
    }
    out.blocked = d.error().message();
    out.changes.push_back(runtime::set_blocked{spec.name, {out.blocked, ""}});
    return out;
  }
  out.target = d->selected_target;
  out.changes.push_back(runtime::record_decision{spec.name, *d});
  return out;
}

messages::start_attempt make_start_attempt(const task_actor_state& s,
                                           const runtime::policy_target& target, int64_t attempt,
                                           std::string prompt, std::string native_session,
                                           const std::string& handoff_id) {
  const auto& ctx = *s.ctx;
  messages::start_attempt req;
  req.task = s.spec.name;
  req.plan_number = s.spec.plan_number;
  req.role = s.spec.stage;
  req.attempt = attempt;
  req.workspace = ctx.workspace;
  req.workspace_id = ctx.workspace_id;
  req.runs_dir = ctx.runs_dir;
  req.adapter = target.adapter;
  req.model = target.model;
  req.effort = target.reasoning_effort;
  req.prompt = std::move(prompt);
  if (!native_session.empty())
    req.resumed_from_locator = s.last_locator;
  req.native_session_file = std::move(native_session);
  req.provider = target.provider;
  if (auto caps = ctx.cli_caps.find(target.adapter); caps != ctx.cli_caps.end())
    req.caps = {caps->second.detected, caps->second.version, caps->second.pi_approve,
                caps->second.pi_session_id};
  req.plan_path = s.spec.plan;
  req.review_path = s.spec.review;
  req.command_template = target.argv;
  req.retry_handoff_id = handoff_id;
  const runtime::route_decision* decision = nullptr;
  if (auto d = s.st.decisions.find(s.spec.stage); d != s.st.decisions.end()) {
    decision = &d->second;
    req.has_selector_evidence = true;
    req.selector_evidence = d->second;
  }
  auto settings = runtime::launch_settings_for(ctx.pol, target, decision, s.spec.stage);
  req.env_additions = std::move(settings.env_additions);
  req.progress = {settings.progress.network_wait_ms, settings.progress.retrying_ms,
                  settings.progress.failover_available};
  auto budget = s.st.failure_budgets.find(s.spec.stage);
  req.stage_budget = budget == s.st.failure_budgets.end() ? 0 : budget->second;
  for (const auto& p : ctx.pol.failure_patterns)
    req.failure_patterns.push_back({p.failure_class, p.regexes});
  req.timing = ctx.timing;
  req.record_classification = ctx.trace != nullptr;
  return req;
}

void capture_review_baseline(task_actor_state& s) {
  s.review_seen.clear();
  auto obs = runtime::observe_review(s.ctx->task_root, s.spec.name);
  if (obs.is_ok())
    s.review_seen = runtime::collect_seen_sources(*obs);
  s.review_signature = progress_signature_of(s.spec);
}

success_reading read_after_success(const task_actor_state& s, const messages::attempt_result& r) {
  const auto& spec = s.spec;
  success_reading reading;
  if (spec.stage == "worker") {
    if (auto loc = runtime::read_locator_file(r.locator_path); loc.is_ok())
      reading.runtime_identity = {loc->cli, loc->model};
  } else if (spec.stage == "selfcheck") {
    reading.checklist = runtime::read_checklist_file(spec.review);
  } else {
    auto obs = runtime::observe_review(s.ctx->task_root, spec.name);
    reading.review.observed = obs.is_ok();
    if (obs.is_ok())
      reading.review.after = std::move(*obs);
    reading.review.before = s.review_seen;
    reading.review.signature_before = s.review_signature;
    reading.review.signature_after = progress_signature_of(spec);
  }
  return reading;
}

namespace {

class files_io final : public task_io {
public:
  void capture_review_baseline(task_actor_state& s) const override {
    actors::capture_review_baseline(s);
  }
  success_reading read_after_success(const task_actor_state& s,
                                     const messages::attempt_result& r) const override {
    return actors::read_after_success(s, r);
  }
  std::vector<runtime::file_snapshot> current_write_set(const task_actor_state& s) const override {
    return runtime::current_write_set(s.spec.write_paths);
  }
  runtime::state_change snapshot_before(const task_actor_state& s,
                                        const std::string& identity) const override {
    return runtime::snapshot_write_set(s.spec.name, identity, runtime::snapshot_phase::before,
                                       s.spec.write_paths);
  }
  void remove_attempt_logs(const task_actor_state& s) const override {
    runtime::remove_attempt_logs(s.ctx->runs_dir, s.spec.name);
  }
  std::vector<runtime::named_file> named_files(
    const runtime::named_path_query& query) const override {
    return runtime::gather_named_files(query);
  }
};

} // namespace

const task_io& file_task_io() {
  static const files_io io;
  return io;
}

const task_io& io_of(const task_actor_state& s) {
  return s.ctx->io ? *s.ctx->io : file_task_io();
}

runtime::stage_step step_after_success(const task_spec& spec, const runtime::task_state& st,
                                       const runtime::policy& pol, const success_reading& reading) {
  if (spec.stage == "worker")
    return runtime::after_worker_success(spec.name, st, pol, reading.runtime_identity);
  if (spec.stage == "selfcheck")
    return runtime::after_selfcheck_success(spec.name, st, pol, reading.checklist);
  return runtime::after_review_reading(spec.name, spec.task_dir, st, pol, reading.review);
}

void emit_task_started(const task_actor_state& s) {
  emit(*s.ctx, messages::task_started{s.ctx->clk->now(), s.spec.name, s.spec.stage});
}

void emit_attempt_began(const task_actor_state& s, const messages::start_attempt& req) {
  emit(*s.ctx, messages::attempt_began{s.ctx->clk->now(), req.task, req.role, s.target,
                                       req.adapter, req.model, req.attempt, s.identity, ""});
}

void emit_attempt_ended(const task_actor_state& s, const messages::attempt_result& r) {
  emit(*s.ctx, messages::attempt_ended{s.ctx->clk->now(), s.spec.name, s.spec.stage, s.target,
                                       r.identity, s.cancelled ? "cancelled" : r.status,
                                       r.exit_code, r.failure_class, r.evidence.substr(0, 300),
                                       r.locator_path});
}

void emit_step_event(const task_actor_state& s, const parsed_step& step) {
  auto now = s.ctx->clk->now();
  const auto& name = s.spec.name;
  const auto& stage = s.spec.stage;
  if (step.kind == "failover")
    emit(*s.ctx, messages::failover_done{now, name, stage, s.target, step.target, step.reason});
  else if (step.kind == "promote")
    emit(*s.ctx, messages::promotion_done{now, name, stage, s.target, step.target, step.reason});
  else if (step.kind == "wait_until")
    emit(*s.ctx, messages::supervisor_waiting{now, name, stage, step.target, now + step.delay,
                                              step.reason});
  else if (step.kind != "block") // a blocked task's end is shown once, by the scheduler
    emit(*s.ctx, messages::task_failed{now, name, stage, step.kind + " on " + step.target});
}

void emit_tactical_events(const task_actor_state& s,
                          const std::vector<runtime::tactical_event>& events,
                          const parsed_step& step) {
  for (const auto& e : events) {
    // Every diagnostic ("attempt failed, analysing", "matched", "no tactical
    // pattern matched") goes to the debug log; a match is also a run event.
    spdlog::info("tactical {} {}: {}", s.spec.name, s.spec.stage,
                 runtime::dump_json(runtime::to_json(e)));
    if (e.kind != "matched")
      continue;
    std::string action = step.kind + (step.target.empty() ? "" : " on " + step.target);
    emit(*s.ctx, messages::tactical_matched{s.ctx->clk->now(), s.spec.name, s.spec.stage, s.target,
                                            e.pattern_ids, std::move(action)});
  }
}

} // namespace ad::actors

// The decision function after a failed attempt, the success reset and the
// --retry-blocked clearing.
#include "runtime/policy/supervisor.hpp"

#include <algorithm>

#include "runtime/agents/cli_outcome.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "runtime/core/hash.hpp"
#include "runtime/core/numbers.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

namespace {

std::string counter_key(std::string_view stage, std::string_view kind) {
  return "retry:" + std::string(stage) + ":" + std::string(kind);
}
std::string reset_wait_key(std::string_view stage) { return "reset_waits:" + std::string(stage); }
std::string reset_until_key(std::string_view stage) {
  return "reset_wait_until:" + std::string(stage);
}

std::string cooldown_until_key(std::string_view target) {
  return "cooldown_until:" + std::string(target);
}
std::string cooldown_wait_prefix(std::string_view stage) {
  return "cooldown_wait:" + std::string(stage) + ":";
}

int64_t counter(const task_state& t, const std::string& key) {
  auto it = t.counters.find(key);
  return it == t.counters.end() ? 0 : it->second;
}

// Everything one decision needs, gathered once.
class deciding {
public:
  deciding(const policy& pol, const time_zone& zone, const task_state& task,
           const target_cooldowns& cooldowns, const supervisor_request& req, millis now)
      : pol_(pol), zone_(zone), task_(task), req_(req), f_(req.failure), now_(now) {
    out_.cooldowns = cooldowns;
    auto it = task.decisions.find(f_.stage);
    if (it != task.decisions.end())
      decision_ = &it->second.get();
    if (decision_ != nullptr)
      target_id_ = decision_->selected_target;
    else if (f_.stage == "review")
      target_id_ = pol.review_target;
    target_ = pol.find_target(target_id_);
    quota_ = task.quota.value_or(quota_snapshot{});
  }

  supervisor_outcome run() {
    const std::string& fc = f_.failure_class;
    if (is_work_log_failure(fc))
      return block(work_log_block_reason(fc, f_.evidence), 0);
    if (fc == launch_refused_class) {
      const policy_target* t = pol_.find_target(target_id_);
      std::string cli = t != nullptr ? t->adapter : std::string("the agent CLI");
      return block(cli + " refused to start (" + f_.evidence + "): "
                     + launch_refusal_fix(cli, f_.evidence),
                   0);
    }

    analyse();

    if (target_ == nullptr)
      return block(f_.stage + " has no decision naming a policy target (selected \"" + target_id_ +
                     "\")",
                   0);

    if (fc == "provider-quota")
      note_quota_exhausted();

    // A quota reset we can wait for, when no other target can take over.
    if (fc == "provider-quota" && !failover_possible()) {
      if (auto w = reset_wait())
        return finish(std::move(*w));
    }

    int64_t failures = budget_count() + 1;
    out_.changes.push_back(record_failure{f_.task, f_.stage});
    if (failures >= pol_.budgets.recovery_failures)
      return block(f_.stage + " recovery failure limit exhausted: " + std::to_string(failures) +
                     "/" + std::to_string(pol_.budgets.recovery_failures) + " locator=" +
                     (f_.locator.empty() ? "-" : f_.locator),
                   failures);

    // A program that could not be started fails the same way every time:
    // another candidate takes over, else the task blocks at once with the
    // fix instead of retrying it with backoff.
    if (fc == launch_failure_class) {
      if (failover_possible())
        return move_to<failover_step>(std::move(*select(route_transition::failover)));
      return block(f_.stage + " could not start " + target_->adapter + " for target " +
                     target_id_ + " (" + f_.evidence + "): install " + target_->adapter +
                     " or put it on the PATH agent-dispatch runs with (`agent-dispatch doctor` "
                     "shows what it finds), then run again with --retry-blocked",
                   failures);
    }

    // A lost worker node says nothing of the agent or its target: the
    // same target runs again, on a node that is there (docs/distributed.md),
    // charged to the recovery budget above like a transport failure.
    if (fc == "node-lost")
      return retry("node-lost", prompt_origin::continuation);

    if (f_.stage == "review" && fc == "review-control-violation")
      return retry("review-control", prompt_origin::from_scratch);

    // A pi model with native resume continues its own session.
    if (target_->adapter == "pi" && target_->native_resume &&
        (fc == "context-limit" || fc == "session-stall") && !f_.native_session_path.empty()) {
      resume_native step;
      step.target = target_id_;
      step.session = f_.native_session_path;
      step.prompt = with_intervention(pol_.prompts.native_resume);
      step.delay = next_delay("pi-recovery");
      return finish(std::move(step));
    }

    if (decision_ != nullptr && decision_->candidates.size() > 1 && is_failover_qualified(fc) &&
        f_.stage != "review") {
      auto next = select(route_transition::failover);
      if (!next) {
        // Candidates that only cool down are waited for: the failover
        // starts when the first of them is free again.
        auto r = selection(route_transition::failover);
        if (auto first = cooldown_wait_of(pol_, zone_, r); first.until > now_) {
          r.now = first.until;
          if (auto later = select_target(pol_, zone_, r)) {
            out_.changes.push_back(
              record_cooldown_wait(f_.task, f_.stage, later->selected_target, first.until));
            return move_to<failover_step>(std::move(*later), first.until - now_);
          }
        }
        return block(f_.stage + " failover failed [no_failover_candidate]: " +
                       next.error().message(),
                     failures);
      }
      return move_to<failover_step>(std::move(*next));
    }

    if (target_->adapter == "pi")
      return retry("pi-recovery", prompt_origin::continuation);
    if (target_->adapter == "codex" && fc == "session-stall")
      return retry("session-stall", prompt_origin::continuation);
    if (fc == "generic-error")
      return retry("generic", prompt_origin::continuation);
    if (!is_promotable(fc))
      return retry("terminal", prompt_origin::continuation);
    if (f_.stage != "worker" || decision_ == nullptr)
      return retry("terminal", prompt_origin::continuation); // review: fixed target; selfcheck: pinned

    auto next = select(route_transition::promotion);
    if (!next)
      return retry("no-promotion", prompt_origin::continuation);
    return move_to<promote_step>(std::move(*next));
  }

private:
  void analyse() {
    tactical_input in{f_.evidence, f_.diagnostics, f_.stream_tail};
    auto a = analyse_tactical(pol_.tactical_patterns, in);
    out_.events = a.events;
    if (!a.matched_ids.empty()) {
      intervention_ =
        build_intervention(a, req_.write_set_now, task_.write_sets, now_, req_.named_files);
      out_.changes.push_back(set_intervention{f_.task, *intervention_});
    } else if (task_.intervention) {
      intervention_ = task_.intervention;
    }
  }

  void note_quota_exhausted() {
    if (f_.reset_at && *f_.reset_at > now_)
      reset_at_ = f_.reset_at;
    out_.cooldowns.mark_exhausted(target_id_, now_, reset_at_, pol_.timeouts.quota_cooldown_s,
                                  "provider-quota on " + f_.task);
    if (auto cooling = out_.cooldowns.active(target_id_, now_))
      out_.changes.push_back(set_counter{f_.task, cooldown_until_key(target_id_), cooling->until});
    quota_.status_by_target[target_id_] = std::string(quota_exhausted_for_work_unit);
    if (quota_.taken_at == 0)
      quota_.taken_at = now_;
    out_.changes.push_back(set_quota_snapshot{f_.task, quota_});
  }

  bool failover_possible() {
    if (decision_ == nullptr || decision_->candidates.size() <= 1 || f_.stage == "review")
      return false;
    return select(route_transition::failover).is_ok();
  }

  std::optional<next_step> reset_wait() {
    if (!reset_at_)
      return std::nullopt;
    int64_t waits = counter(task_, reset_wait_key(f_.stage));
    if (waits >= pol_.budgets.reset_waits)
      return std::nullopt;
    millis cap = now_ + seconds_to_ms(pol_.timeouts.reset_wait_max_s);
    wait_until w;
    w.until = std::min(*reset_at_, cap);
    w.target = target_id_;
    w.reason = "waiting for the quota of " + target_id_ + " to reset: until " +
               format_utc_iso(w.until) +
               (w.until < *reset_at_ ? " (capped; reset at " + format_utc_iso(*reset_at_) + ")" : "");
    w.prompt = continuation_prompt();
    out_.changes.push_back(set_counter{f_.task, reset_wait_key(f_.stage), waits + 1});
    // The end of the wait is durable too: a restarted dispatcher keeps it.
    out_.changes.push_back(set_counter{f_.task, reset_until_key(f_.stage), w.until});
    return next_step{std::move(w)};
  }

  int64_t budget_count() const {
    auto it = task_.failure_budgets.find(f_.stage);
    return it == task_.failure_budgets.end() ? 0 : it->second;
  }

  result<route_decision> select(route_transition t) {
    auto r = selection(t);
    return select_target(pol_, zone_, r);
  }

  selection_request selection(route_transition t) {
    selection_request r;
    r.work_unit_id = task_.work_unit_id;
    r.stage = f_.stage;
    r.lane = decision_->lane.empty() ? req_.lane : decision_->lane;
    r.grade = decision_->grade == 0 ? req_.grade : decision_->grade;
    r.now = now_;
    r.transition = t;
    r.prior = decision_;
    r.used_targets = used_targets(task_, f_.stage);
    r.used_targets.push_back(target_id_);
    r.quota = &quota_;
    r.cooldowns = &out_.cooldowns;
    r.failure_class = f_.failure_class;
    return r;
  }

  std::map<std::string, std::string> vars() const {
    return {{"plan", req_.paths.plan},
            {"review", req_.paths.review},
            {"workspace", req_.paths.workspace},
            {"task_dir", req_.paths.task_dir},
            {"locator", f_.locator},
            {"raw_log", f_.raw_log},
            {"normalized_output", f_.normalized_output}};
  }

  std::string with_intervention(const std::string& tmpl) const {
    std::string p = render_prompt(tmpl, vars());
    if (intervention_ && f_.stage != "review")
      p += "\n\n" + render_intervention(view_intervention(*intervention_, task_.write_sets),
                                        pol_.prompts.intervention);
    return p;
  }

  std::string continuation_prompt() const {
    if (f_.stage == "review")
      return with_intervention(pol_.prompts.review_continuation);
    return with_intervention(pol_.prompts.continuation);
  }

  millis next_delay(const std::string& kind) {
    std::string key = counter_key(f_.stage, kind);
    int64_t n = counter(task_, key);
    out_.changes.push_back(set_counter{f_.task, key, n + 1});
    return backoff_delay(pol_.backoff, n);
  }

  supervisor_outcome retry(const std::string& kind, prompt_origin origin) {
    retry_same r;
    r.target = target_id_;
    r.kind = kind;
    r.origin = origin;
    if (origin == prompt_origin::from_scratch) {
      task_state view = task_;
      view.intervention = intervention_;
      r.prompt = stage_prompt(pol_, f_.stage, req_.paths, view);
    } else {
      r.prompt = continuation_prompt();
    }
    r.delay = next_delay(kind);
    return finish(std::move(r));
  }

  template <class Step>
  supervisor_outcome move_to(route_decision next, millis delay = 0) {
    Step s;
    s.target = next.selected_target;
    s.delay = delay;
    const policy_target* to = pol_.find_target(s.target);
    bool same_pi = target_->adapter == "pi" && to != nullptr && to->adapter == "pi";
    s.package.kind = same_pi ? package_kind::native : package_kind::logical;
    s.package.plan = f_.stage == "worker" ? req_.paths.plan : req_.paths.review;
    s.package.locator = f_.locator;
    s.package.workspace = req_.paths.workspace;
    s.package.raw_log = f_.raw_log;
    s.package.normalized_output = f_.normalized_output;
    s.package.native_session_path = f_.native_session_path;
    if (same_pi && f_.native_session_path.empty())
      return block("failover between local pi sessions needs the native session of " +
                     (f_.locator.empty() ? std::string("the failed attempt") : f_.locator),
                   budget_count() + 1);
    s.prompt = with_intervention(same_pi ? pol_.prompts.native_resume : pol_.prompts.context_package);
    s.decision = next;
    out_.changes.push_back(record_decision{f_.task, std::move(next)});
    return finish(std::move(s));
  }

  supervisor_outcome block(std::string reason, int64_t failures) {
    json ev = {{"role", f_.stage},
               {"failure_class", f_.failure_class},
               {"locator", f_.locator},
               {"selected_target", target_id_},
               {"work_unit_id", task_.work_unit_id},
               {"evidence", f_.evidence},
               {"evidence_origin", f_.evidence_origin},
               {"budget", std::to_string(failures) + "/" +
                            std::to_string(pol_.budgets.recovery_failures)}};
    block_step b{std::move(reason), dump_json(ev)};
    out_.changes.push_back(set_blocked{f_.task, blocked_info{b.reason, b.evidence}});
    return finish(std::move(b));
  }

  supervisor_outcome finish(next_step s) {
    out_.step = std::move(s);
    return std::move(out_);
  }

  const policy& pol_;
  const time_zone& zone_;
  const task_state& task_;
  const supervisor_request& req_;
  const failure_report& f_;
  millis now_;
  supervisor_outcome out_{retry_same{}, {}, {}, {}};
  const route_decision* decision_ = nullptr;
  std::string target_id_;
  const policy_target* target_ = nullptr;
  quota_snapshot quota_;
  std::optional<millis> reset_at_;
  std::optional<intervention_context> intervention_;
};

} // namespace

supervisor_outcome decide_after_failure(const policy& pol, const time_zone& zone,
                                        const task_state& task, const target_cooldowns& cooldowns,
                                        const supervisor_request& req, millis now) {
  return deciding(pol, zone, task, cooldowns, req, now).run();
}

supervisor_outcome supervise_with_cooldowns(const policy& pol, const time_zone& zone,
                                            target_cooldowns& cooldowns, const task_state& task,
                                            const supervisor_request& req, millis now) {
  auto out = decide_after_failure(pol, zone, task, cooldowns, req, now);
  out.cooldowns.expire(now);
  cooldowns = out.cooldowns;
  return out;
}

std::vector<state_change> on_attempt_succeeded(const std::string& task_name, const task_state& task,
                                               std::string_view stage) {
  std::vector<state_change> out{reset_failures{task_name, std::string(stage)}};
  std::string prefix = "retry:" + std::string(stage) + ":";
  for (const auto& [name, value] : task.counters)
    if (value != 0 && (name.rfind(prefix, 0) == 0 || name == reset_wait_key(stage) ||
                       name == reset_until_key(stage) ||
                       name.rfind(cooldown_wait_prefix(stage), 0) == 0))
      out.push_back(set_counter{task_name, name, 0});
  if (task.intervention)
    out.push_back(clear_intervention{task_name});
  return out;
}

millis pending_reset_wait(const task_state& task, std::string_view stage, millis now) {
  int64_t until = counter(task, reset_until_key(stage));
  return until > now ? until : 0;
}

state_change record_cooldown_wait(const std::string& task, std::string_view stage,
                                  const std::string& target, millis until) {
  return set_counter{task, cooldown_wait_prefix(stage) + target, until};
}

std::optional<recorded_cooldown> pending_cooldown_wait(const task_state& task,
                                                       std::string_view stage, millis now) {
  std::optional<recorded_cooldown> out;
  auto prefix = cooldown_wait_prefix(stage);
  for (auto it = task.counters.lower_bound(prefix);
       it != task.counters.end() && it->first.rfind(prefix, 0) == 0; ++it)
    if (it->second > now && (!out || it->second > out->until))
      out = recorded_cooldown{it->first.substr(prefix.size()), it->second, ""};
  return out;
}

std::map<std::string, recorded_cooldown> recorded_cooldowns(const state_model& state, millis now) {
  std::map<std::string, recorded_cooldown> out;
  const std::string prefix = cooldown_until_key("");
  for (const auto& [name, task] : state.tasks)
    for (auto it = task.counters.lower_bound(prefix);
         it != task.counters.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      auto target = it->first.substr(prefix.size());
      if (it->second <= now)
        continue;
      auto& e = out[target];
      if (it->second > e.until)
        e = recorded_cooldown{target, it->second, name};
    }
  return out;
}

retry_clearance clear_for_retry(const std::string& task_name, const task_state& task, millis now) {
  retry_clearance out;
  if (!task.blocked)
    return out;
  out.changes.push_back(clear_blocked{task_name});
  out.changes.push_back(reset_failures{task_name, ""});
  for (const auto& [name, value] : task.counters)
    if (value != 0)
      out.changes.push_back(set_counter{task_name, name, 0});
  auto ev = parse_json(task.blocked->evidence, "blocker evidence");
  auto str = [&](const char* key) -> std::string {
    if (!ev || !ev->is_object() || !ev->contains(key) || !(*ev)[key].is_string())
      return "";
    return (*ev)[key].get<std::string>();
  };
  std::string role = str("role"), failure = str("failure_class"), locator = str("locator"),
              selected = str("selected_target"), work_unit = str("work_unit_id");
  auto worker = task.decisions.find("worker");
  bool qualified = role == "worker" && is_failover_qualified(failure) && !locator.empty() &&
                   !selected.empty() && work_unit == task.work_unit_id &&
                   worker != task.decisions.end() && worker->second->work_unit_id == work_unit;
  if (qualified) {
    retry_handoff h;
    h.id = "handoff-" +
           sha256_hex(task_name + "|" + work_unit + "|" + locator + "|" + std::to_string(now))
             .substr(0, 16);
    h.failed_target = selected;
    h.locator = locator;
    out.changes.push_back(set_retry_handoff{task_name, h});
    out.handoff = h;
  } else if (task.handoff) {
    out.changes.push_back(clear_retry_handoff{task_name});
  }
  return out;
}

state_change block_invalid_decision(const std::string& task_name, const route_decision& d,
                                    const status& why) {
  json decision;
  to_json(decision, d);
  json ev = {{"role", d.stage},
             {"failure_class", "invalid-decision"},
             {"selected_target", d.selected_target},
             {"work_unit_id", d.work_unit_id},
             {"decision", decision}};
  return set_blocked{task_name, blocked_info{why.message(), dump_json(ev)}};
}

result<route_decision> select_for_handoff(const policy& pol, const time_zone& zone,
                                          const task_state& task, const retry_handoff& handoff,
                                          const quota_snapshot& fresh,
                                          const target_cooldowns& cooldowns, millis now) {
  auto it = task.decisions.find("worker");
  if (it == task.decisions.end())
    return status::invalid_argument("retry handoff " + handoff.id + ": no worker decision");
  selection_request r;
  r.work_unit_id = task.work_unit_id;
  r.stage = "worker";
  r.lane = it->second->lane;
  r.grade = it->second->grade;
  r.now = now;
  r.transition = route_transition::failover;
  r.prior = &it->second.get();
  r.used_targets = {handoff.failed_target};
  r.quota = &fresh;
  r.cooldowns = &cooldowns;
  r.failure_class = "retry_handoff";
  return select_target(pol, zone, r);
}

} // namespace ad::runtime

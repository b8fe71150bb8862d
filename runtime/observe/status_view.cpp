#include "runtime/observe/status_view.hpp"

#include <algorithm>

#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/tactical.hpp"
#include "runtime/process/liveness.hpp"
#include "runtime/state/spend.hpp"
#include "runtime/report/run_event.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/workspace/dry_run_render.hpp"

namespace ad::runtime {
namespace {

// The target of `stage`: its current decision, which a completed task no
// longer keeps (complete_orchestration_task) but its route history does;
// for a later stage without one, the worker's that completed; else the
// latest decision.
std::string current_target(const task_state& st, const std::string& stage) {
  if (auto it = st.decisions.find(stage); it != st.decisions.end())
    return it->second->selected_target;
  const auto& history = st.route_history;
  auto latest = std::find_if(history.rbegin(), history.rend(),
                             [&](const shared_decision& d) { return d->stage == stage; });
  if (st.decisions.empty() && latest != history.rend())
    return (*latest)->selected_target;
  if (st.completing_decision && stage != "worker")
    return (*st.completing_decision)->selected_target;
  if (!history.empty())
    return history.back()->selected_target;
  return {};
}

status_dispatcher judge_dispatcher(const state_lock_record& lock) {
  status_dispatcher d;
  d.present = lock.present;
  d.pid = lock.pid;
  d.started_at = lock.started_at;
  d.version = lock.version;
  d.alive = lock.present && lock.pid > 0 &&
            probe_pid(static_cast<int>(lock.pid), lock.start_token) == pid_liveness::alive;
  return d;
}

std::string join_counts(const std::map<std::string, int64_t>& m) {
  std::string out;
  for (const auto& [k, v] : m) {
    if (!out.empty())
      out += ", ";
    out += k + " " + std::to_string(v);
  }
  return out;
}

} // namespace

status_report build_status_report(const status_input& in, const clock& clk) {
  status_report report;
  report.workspace = in.scan->workspace.string();
  report.state_root = in.state_root;
  report.state_exists = in.state->exists;
  report.seq = in.state->seq;
  report.dispatcher = judge_dispatcher(in.state->lock);
  report.warnings = in.scan->warnings;
  for (const auto& w : in.state->warnings)
    report.warnings.push_back(w);
  const auto& model = in.state->state;

  dry_run_input dry;
  dry.scan = in.scan;
  dry.folders = in.folders;
  dry.group = in.group;
  std::map<std::string, std::vector<status_attempt>> live;
  for (const auto& task : in.scan->tasks) {
    const task_state* st = current_task_state(model, task);
    auto activity = task_activity::idle;
    std::string detail;
    if (st && !st->active_stage.empty()) {
      auto probe = probe_active_stage(task.name, *st, model, in.where, clk);
      activity = probe.kind == active_probe_kind::live ? task_activity::live : task_activity::stale;
      detail = probe.reason;
      live[task.name].push_back(status_attempt{
        st->active_stage, probe.kind == active_probe_kind::live ? "live" : "stale", probe.reason,
        probe.locator, probe.locator_status, probe.kept.node});
    }
    dry.progress[task.name] = progress_from_state(st, *in.pol, activity, detail);
  }
  for (const auto& [owner, claim] : model.claims)
    dry.claims[owner] = held_claim{std::vector<std::string>(claim.paths.begin(), claim.paths.end()),
                                   claim.kind == claim_kind::exclusive};
  auto dry_report = plan_dry_run(dry);
  report.summary = dry_report.summary;

  std::map<std::string, const scanned_task*> scanned;
  for (const auto& t : in.scan->tasks)
    scanned[t.name] = &t;
  report.tasks.reserve(dry_report.tasks.size());
  for (const auto& t : dry_report.tasks) {
    status_task row;
    row.name = t.name;
    row.stage = t.stage;
    row.status = std::string(to_string(t.status));
    row.reason = t.reason;
    row.wait = t.wait;
    row.wait_owner = t.wait_owner;
    auto counters = task_attempt_counters(model, t.name);
    auto count_attempts = [&](int64_t plan) {
      for (const auto& [key, count] : counters)
        if (key.plan == plan) {
          row.attempts += count;
          row.attempts_by_role[key.role] += count;
        }
    };
    auto s = scanned.find(t.name);
    if (s == scanned.end()) {
      // Archived, so not in the scan: its plan is the latest the state counted.
      int64_t latest = 0;
      for (const auto& [key, count] : counters)
        latest = std::max(latest, key.plan);
      count_attempts(latest);
    } else {
      count_attempts(plan_number_of(*s->second));
      if (const task_state* st = current_task_state(model, *s->second)) {
        row.target = current_target(*st, t.stage);
        row.budget_used = st->failure_budgets;
        if (st->blocked)
          row.blocked_evidence = st->blocked->evidence;
        row.intervention = st->intervention;
        if (st->handoff)
          row.handoff_id = st->handoff->id;
        row.route.assign(st->route_history.begin(), st->route_history.end());
        row.reset_wait_until = pending_reset_wait(*st, t.stage, clk.now());
        auto cooling = pending_cooldown_wait(*st, t.stage, clk.now());
        if ((row.reset_wait_until > 0 || cooling) &&
            (t.status == dispatch_status::ready || t.status == dispatch_status::waiting)) {
          // The dispatcher holds it until then, whatever the folders allow.
          if (t.status == dispatch_status::ready) {
            row.status = std::string(to_string(dispatch_status::waiting));
            --report.summary.ready;
            ++report.summary.waiting;
          }
          row.wait_owner.clear();
          if (row.reset_wait_until > 0) {
            row.wait = std::string(wait_quota_reset);
            row.wait_target = row.target;
            row.wait_until = row.reset_wait_until;
            row.reason = "waiting for a quota reset until " + format_utc_iso(row.wait_until) +
                         (row.target.empty() ? "" : " (" + row.target + ")");
          } else {
            row.wait = std::string(wait_cool_down);
            row.wait_target = cooling->target;
            row.wait_until = cooling->until;
            row.reason = "waiting for " + cooling->target + " to cool down until " +
                         format_utc_iso(cooling->until);
          }
        }
        row.write_sets = st->write_sets;
      }
    }
    if (auto l = live.find(t.name); l != live.end())
      row.live = l->second;
    report.tasks.push_back(std::move(row));
  }
  report.claim_violations = model.claim_violations;
  report.cooldowns = recorded_cooldowns(model, clk.now());
  auto totals = spend_totals_of(model);
  report.spent = totals.run;
  report.spent_by_target = totals.by_target;
  for (auto& row : report.tasks)
    if (auto s = totals.by_task.find(row.name); s != totals.by_task.end())
      row.spent = s->second;
  return report;
}

std::string describe_claim_violation(const claim_violation_record& v) {
  std::string out = "claim violation: ";
  if (v.task.empty()) {
    out += v.path + " was written outside every claim by one of";
    for (std::size_t i = 0; i < v.candidates.size(); ++i)
      out += (i == 0 ? " " : ", ") + v.candidates[i];
  } else {
    out += v.task + " attempt " + v.attempt + " wrote " + v.path + " outside its claim";
  }
  if (!v.other_task.empty())
    out += " (claimed by " + v.other_task + ")";
  out += "; " + v.attribution + ", " + (v.action.empty() ? std::string("warn") : v.action);
  if (v.at > 0)
    out += ", " + format_utc_iso(v.at);
  return out;
}

std::string render_status_text(const status_report& r, const clock& clk) {
  std::string out = "workspace " + r.workspace + "\nstate " + r.state_root;
  if (!r.state_exists)
    out += " (no durable state yet)";
  else
    out += " (seq " + std::to_string(r.seq) + ")";
  out += "\n";
  if (r.dispatcher.present) {
    out += "dispatcher pid " + std::to_string(r.dispatcher.pid) +
           (r.dispatcher.alive ? " running" : " not running (stale lock record)");
    if (r.dispatcher.alive && r.dispatcher.started_at > 0)
      out += " since " + format_utc_iso(r.dispatcher.started_at);
    out += "\n";
  } else {
    out += "dispatcher none\n";
  }
  (void)clk;
  for (const auto& t : r.tasks) {
    out += t.name + "  stage=" + t.stage + " status=" + t.status;
    out += " attempts=" + std::to_string(t.attempts);
    if (!t.target.empty())
      out += " target=" + t.target;
    if (!t.budget_used.empty())
      out += " budget_used=" + join_counts(t.budget_used);
    out += "\n    " + t.reason + "\n";
    if (!t.spent.empty())
      out += "    spent " + usage_summary(t.spent) + "\n";
    for (const auto& a : t.live)
      out += "    " + a.liveness + " " + a.role + " attempt: " + a.reason +
             (a.node.empty() ? "" : " node=" + a.node) +
             (a.locator.empty() ? "" : " locator=" + a.locator) + "\n";
  }
  // The newest ones; the JSON lines list every record the state keeps.
  constexpr std::size_t shown_violations = 20;
  const auto& violations = r.claim_violations;
  std::size_t skip = violations.size() > shown_violations ? violations.size() - shown_violations : 0;
  if (skip > 0)
    out += std::to_string(skip) + " earlier claim violations not shown\n";
  for (std::size_t i = skip; i < violations.size(); ++i)
    out += describe_claim_violation(violations[i]) + "\n";
  for (const auto& w : r.warnings)
    out += "warning: " + w + "\n";
  for (const auto& [target, c] : r.cooldowns)
    out += "cool-down: " + target + " until " + format_utc_iso(c.until) + " (a quota failure of " +
           c.task + ")\n";
  if (!r.spent.empty()) {
    out += "spent: " + usage_summary(r.spent) + "\n";
    for (const auto& [target, u] : r.spent_by_target)
      out += "    " + (target.empty() ? std::string("(unknown target)") : target) + ": " +
             usage_summary(u) + "\n";
  }
  const auto& s = r.summary;
  out += "summary: " + std::to_string(s.tasks) + " tasks: " + std::to_string(s.ready) + " ready, " +
         std::to_string(s.waiting) + " waiting, " + std::to_string(s.blocked) + " blocked, " +
         std::to_string(s.user_review) + " user-review, " + std::to_string(s.running) +
         " running, " + std::to_string(s.complete) + " complete\n";
  return out;
}

namespace {

// Block evidence, intervention context, handoff, route and per-attempt
// write-set changes of one task row.
void add_supervision(json& j, const status_task& t) {
  j["blocked_evidence"] = nullptr;
  if (!t.blocked_evidence.empty()) {
    auto ev = parse_json(t.blocked_evidence, "blocked evidence");
    j["blocked_evidence"] = ev ? *ev : json(t.blocked_evidence);
  }
  j["intervention"] = nullptr;
  if (t.intervention)
    j["intervention"] = {{"pattern_ids", t.intervention->pattern_ids},
                         {"instruction", t.intervention->instruction},
                         {"existing_files", t.intervention->existing_files},
                         {"touched_files", t.intervention->touched_files},
                         {"created_at", format_utc_iso(t.intervention->created_at)}};
  j["handoff"] = t.handoff_id;
  j["reset_wait_until"] = t.reset_wait_until > 0 ? json(format_utc_iso(t.reset_wait_until)) : json(nullptr);
  json route = json::array();
  for (const auto& d : t.route)
    route.push_back({{"stage", d.stage},
                     {"target", d.selected_target},
                     {"transition", to_string(d.transition)},
                     {"previous_target", d.previous_target}});
  j["route"] = std::move(route);
  json sets = json::object();
  for (const auto& [attempt, snap] : t.write_sets)
    sets[attempt] = to_json(diff_write_set(snap.before, snap.after));
  j["write_set_changes"] = std::move(sets);
}

} // namespace

std::string render_status_json_lines(const status_report& r) {
  std::string out;
  json d = json::object();
  d["event"] = "dispatcher";
  d["workspace"] = r.workspace;
  d["state_root"] = r.state_root;
  d["state_exists"] = r.state_exists;
  d["seq"] = r.seq;
  d["present"] = r.dispatcher.present;
  d["alive"] = r.dispatcher.alive;
  d["pid"] = r.dispatcher.pid;
  d["started_at"] = r.dispatcher.started_at > 0 ? format_utc_iso(r.dispatcher.started_at) : "";
  d["version"] = r.dispatcher.version;
  d["warnings"] = r.warnings;
  out += dump_json(d) + "\n";
  for (const auto& t : r.tasks) {
    json j = json::object();
    j["event"] = "task";
    j["task"] = t.name;
    j["stage"] = t.stage;
    j["status"] = t.status;
    j["reason"] = t.reason;
    j["attempts"] = t.attempts;
    j["attempts_by_role"] = t.attempts_by_role;
    j["target"] = t.target;
    j["budget_used"] = t.budget_used;
    j["usage"] = usage_to_json(t.spent);
    j["wait"] = nullptr;
    if (t.status == "waiting")
      j["wait"] = {{"kind", t.wait.empty() ? "other" : t.wait},
                   {"until", t.wait_until > 0 ? json(format_utc_iso(t.wait_until)) : json(nullptr)},
                   {"target", t.wait_target},
                   {"owner", t.wait_owner}};
    json live = json::array();
    for (const auto& a : t.live) {
      live.push_back({{"role", a.role},
                      {"liveness", a.liveness},
                      {"reason", a.reason},
                      {"locator", a.locator},
                      {"locator_status", a.locator_status}});
      if (!a.node.empty())
        live.back()["node"] = a.node;
    }
    j["live_attempts"] = std::move(live);
    add_supervision(j, t);
    out += dump_json(j) + "\n";
  }
  for (const auto& v : r.claim_violations) {
    json j = json::object();
    j["event"] = "claim_violation";
    j["task"] = v.task;
    j["attempt"] = v.attempt;
    j["path"] = v.path;
    j["other_task"] = v.other_task;
    j["attribution"] = v.attribution;
    j["candidates"] = v.candidates;
    j["action"] = v.action;
    j["time"] = v.at > 0 ? format_utc_iso(v.at) : "";
    out += dump_json(j) + "\n";
  }
  for (const auto& [target, c] : r.cooldowns)
    out += dump_json({{"event", "cooldown"},
                      {"target", target},
                      {"until", format_utc_iso(c.until)},
                      {"task", c.task}}) +
           "\n";
  json s = dry_run_summary_json(r.summary);
  s["usage"] = usage_to_json(r.spent);
  json by_target = json::object();
  for (const auto& [target, u] : r.spent_by_target)
    by_target[target] = usage_to_json(u);
  s["usage_by_target"] = std::move(by_target);
  out += dump_json(s) + "\n";
  return out;
}

} // namespace ad::runtime

#include "runtime/report/dashboard.hpp"

#include <set>

#include "runtime/report/event_render.hpp"

namespace ad::runtime {
namespace {

constexpr std::string_view user_review_stage = "user-review";

json attempt_json(const dashboard_attempt& a, const output_reader& output) {
  json j = {{"identity", a.identity}, {"role", a.role},         {"target", a.target},
            {"node", a.node},         {"attempt", a.attempt},   {"started", api_time(a.started)},
            {"finished", api_time(a.finished)}, {"status", a.status}, {"exit_code", a.exit_code},
            {"failure_class", a.failure_class}, {"evidence", one_line(a.evidence)},
            {"locator", a.locator}};
  auto live = a.status == "running" && output ? output(a.identity, a.locator) : attempt_live{};
  j["output"] = live.output;
  put_usage(j, a.status == "running" ? live.usage : a.usage);
  return j;
}

// The failed attempt of an attempt_finished event, the newest `keep` kept.
void keep_failure(std::deque<dashboard_failure>& failures, const run_event& e, size_t keep) {
  failures.push_back({e.time, e.task, e.identity, e.failure_class, one_line(e.evidence)});
  while (failures.size() > keep)
    failures.pop_front();
}

} // namespace

void put_usage(json& into, const token_usage& u) {
  into["usage"] = usage_to_json(u);
  into["usage_text"] = usage_summary(u);
}

json api_time(millis t) { return t > 0 ? json(format_utc_iso(t)) : json(nullptr); }

std::string token_of(std::string_view file_text) {
  auto first = file_text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return "";
  auto last = file_text.find_last_not_of(" \t\r\n");
  return std::string(file_text.substr(first, last - first + 1));
}

bool bearer_matches(std::string_view header, std::string_view token) {
  constexpr std::string_view scheme = "Bearer ";
  if (token.empty() || !header.starts_with(scheme))
    return false;
  auto given = header.substr(scheme.size());
  unsigned char diff = given.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned char>(token[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

dashboard_model::dashboard_model(dashboard_options options)
    : options_(std::move(options)), board_(options_.board) {}

json dashboard_model::running_json(const std::string& id, const board_attempt& a,
                                   const output_reader& output) const {
  auto live = output ? output(id, a.locator) : attempt_live{a.output, {}};
  json row = {{"task", a.task},
              {"role", a.role},
              {"target", a.target},
              {"node", a.node},
              {"attempt", a.attempt},
              {"identity", id},
              {"started", api_time(a.started)},
              {"locator", a.locator},
              {"output", live.output}};
  put_usage(row, live.usage);
  return row;
}

void dashboard_model::apply_target(const run_event& e) {
  if (e.kind == run_event_kind::attempt_started && !e.target.empty()) {
    // The dispatcher chose it, so nothing holds it back now.
    auto& t = targets_[e.target];
    t.quota.clear();
    t.until = 0;
    t.reason.clear();
  } else if (e.kind == run_event_kind::attempt_finished && !e.target.empty()) {
    auto& t = targets_[e.target];
    ++t.finished;
    t.usage += e.usage;
    if (!e.failure_class.empty()) {
      ++t.failure_counts[e.failure_class];
      keep_failure(t.failures, e, options_.recent_failures);
    }
    if (e.failure_class == provider_quota_class) {
      t.quota = "exhausted";
      t.until = 0;
      t.reason = one_line(e.evidence);
    }
  } else if (e.kind == run_event_kind::supervisor_wait && !e.target.empty() && !e.wait.empty()) {
    auto& t = targets_[e.target];
    t.quota = e.wait;
    t.until = e.until;
    t.reason = one_line(e.reason);
  } else if (e.kind == run_event_kind::failover || e.kind == run_event_kind::promotion) {
    for (const auto* id : {&e.from_target, &e.to_target})
      if (!id->empty())
        targets_[*id];
  }
}

void dashboard_model::apply_node(const run_event& e) {
  if (e.kind == run_event_kind::node_status && !e.node.empty()) {
    auto& n = nodes_[e.node];
    n.slots = e.slots;
    n.slots_in_use = e.slots_in_use;
    n.lease = e.lease;
    n.lease_until = e.until;
    n.problem = one_line(e.reason);
  } else if (e.kind == run_event_kind::attempt_started && !e.node.empty()) {
    auto& n = nodes_[e.node];
    ++n.started;
    n.last_started = e.time;
    node_of_[e.identity] = e.node;
  } else if (e.kind == run_event_kind::attempt_finished) {
    auto it = node_of_.find(e.identity);
    if (it == node_of_.end())
      return;
    auto& n = nodes_[it->second];
    node_of_.erase(it);
    ++n.finished;
    if (!e.failure_class.empty()) {
      ++n.failed;
      keep_failure(n.failures, e, options_.recent_failures);
    }
  }
}

void dashboard_model::apply(const run_event& e) {
  board_.apply(e);
  apply_target(e);
  apply_node(e);
  if (e.kind == run_event_kind::summary)
    run_spent_ = e.usage;
  if (e.kind == run_event_kind::tasks_scanned) {
    for (const auto& t : e.tasks)
      stage_[t.task] = t.stage;
    return;
  }
  if (e.task.empty())
    return;
  if (!e.stage.empty())
    stage_[e.task] = e.stage;
  if (e.kind == run_event_kind::attempt_started) {
    dashboard_attempt a;
    a.identity = e.identity;
    a.role = e.role;
    a.target = e.target;
    a.node = e.node;
    a.attempt = e.attempt;
    a.started = e.time;
    a.locator = e.locator;
    attempts_[e.task].push_back(std::move(a));
  } else if (e.kind == run_event_kind::attempt_finished) {
    for (auto& a : attempts_[e.task]) {
      if (a.identity != e.identity || a.finished != 0)
        continue;
      a.finished = e.time;
      a.status = e.attempt_status.empty() ? "finished" : e.attempt_status;
      a.exit_code = e.exit_code;
      a.failure_class = e.failure_class;
      a.evidence = e.evidence;
      a.usage = e.usage;
      if (!e.locator.empty())
        a.locator = e.locator;
    }
    spent_ += e.usage;
    task_spent_[e.task] += e.usage;
  }
  auto& events = events_[e.task];
  events.push_back(run_event_json(e));
  while (events.size() > options_.task_events)
    events.pop_front();
}

json dashboard_model::state(millis now, const output_reader& output) const {
  json j = json::object();
  j["source"] = "run";
  j["time"] = api_time(now);
  json counts = json::object();
  for (auto status : {task_status_running, task_status_pending, task_status_waiting,
                      task_status_blocked, task_status_failed, task_status_complete})
    counts[std::string(status)] = 0;
  json tasks = json::array();
  for (const auto& [task, status] : board_.task_statuses()) {
    counts[status] = counts.value(status, 0) + 1;
    auto stage = stage_.find(task);
    tasks.push_back({{"task", task},
                     {"status", status},
                     {"stage", stage == stage_.end() ? "" : stage->second}});
  }
  j["counts"] = std::move(counts);
  j["tasks"] = std::move(tasks);

  json running = json::array();
  for (const auto& [id, a] : board_.running())
    running.push_back(running_json(id, a, output));
  j["running"] = std::move(running);

  std::map<std::string, json> by_kind;
  for (const auto& [task, w] : board_.waits()) {
    auto& list = by_kind[w.kind.empty() ? "other" : w.kind];
    if (list.is_null())
      list = json::array();
    list.push_back({{"task", task},
                    {"until", api_time(w.until)},
                    {"target", w.target},
                    {"reason", one_line(w.reason)}});
  }
  json waits = json::array();
  auto add_kind = [&](const std::string& kind) {
    if (auto it = by_kind.find(kind); it != by_kind.end()) {
      waits.push_back({{"kind", kind}, {"tasks", std::move(it->second)}});
      by_kind.erase(it);
    }
  };
  for (auto kind : overview_wait_kinds)
    add_kind(std::string(kind));
  while (!by_kind.empty())
    add_kind(by_kind.begin()->first);
  j["waits"] = std::move(waits);

  json blocked = json::array();
  json user_review = json::array();
  for (const auto& [task, reason] : board_.blocked()) {
    auto stage = stage_.find(task);
    bool stop = stage != stage_.end() && stage->second == user_review_stage;
    if (stop)
      user_review.push_back({{"task", task}, {"reason", one_line(reason)}});
    else
      blocked.push_back({{"task", task},
                         {"stage", stage == stage_.end() ? "" : stage->second},
                         {"reason", one_line(reason)},
                         {"retry", board_.retry_command_for(task)}});
  }
  j["blocked"] = std::move(blocked);
  j["user_review"] = std::move(user_review);
  j["finished"] = board_.finished();
  j["summary"] = board_.summary_line();
  put_usage(j, run_spent_.value_or(spent_));
  return j;
}

namespace {

json failures_json(const std::deque<dashboard_failure>& failures) {
  json out = json::array();
  for (auto it = failures.rbegin(); it != failures.rend(); ++it)  // newest first
    out.push_back({{"time", api_time(it->time)},
                   {"task", it->task},
                   {"identity", it->identity},
                   {"failure_class", it->failure_class},
                   {"evidence", it->evidence}});
  return out;
}

} // namespace

bool dashboard_model::set_cooldowns(std::map<std::string, dashboard_cooldown> cooldowns) {
  if (cooldowns == cooldowns_)
    return false;
  cooldowns_ = std::move(cooldowns);
  return true;
}

json dashboard_model::targets(millis now, const output_reader& output) const {
  std::map<std::string, json> running;
  for (const auto& [id, a] : board_.running())
    if (!a.target.empty()) {
      auto& list = running[a.target];
      if (list.is_null())
        list = json::array();
      list.push_back(running_json(id, a, output));
    }
  json list = json::array();
  std::set<std::string> names;
  for (const auto& [name, t] : targets_)
    names.insert(name);
  for (const auto& [name, r] : running)
    names.insert(name);
  for (const auto& [name, c] : cooldowns_)
    if (c.until > now)
      names.insert(name);
  for (const auto& name : names) {
    auto it = targets_.find(name);
    const dashboard_target none;
    const auto& t = it == targets_.end() ? none : it->second;
    // A wait's end that has passed is over: the target may be tried again.
    bool over = t.until > 0 && t.until <= now;
    json j = {{"target", name},
              {"quota", over || t.quota.empty() ? "available" : t.quota},
              {"until", over ? json(nullptr) : api_time(t.until)},
              {"quota_reason", over ? "" : t.reason},
              {"finished", t.finished},
              {"failure_counts", t.failure_counts},
              {"failures", failures_json(t.failures)}};
    // The supervisor's cool-down is the target's own state: it wins.
    if (auto c = cooldowns_.find(name); c != cooldowns_.end() && c->second.until > now) {
      j["quota"] = std::string(wait_cool_down);
      j["until"] = api_time(c->second.until);
      j["quota_reason"] = one_line(c->second.reason);
    }
    auto r = running.find(name);
    j["running"] = r == running.end() ? json::array() : r->second;
    put_usage(j, t.usage);
    list.push_back(std::move(j));
  }
  return {{"source", "run"}, {"time", api_time(now)}, {"targets", std::move(list)}};
}

json dashboard_model::nodes(millis now, const output_reader& output) const {
  json list = json::array();
  for (const auto& [name, n] : nodes_) {
    json running = json::array();
    for (const auto& [id, a] : board_.running())
      if (a.node == name)
        running.push_back(running_json(id, a, output));
    list.push_back({{"node", name},
                    {"started", n.started},
                    {"finished", n.finished},
                    {"failed", n.failed},
                    {"last_started", api_time(n.last_started)},
                    {"slots", n.slots},
                    {"slots_in_use", n.slots_in_use},
                    {"lease", n.lease.empty() ? json(nullptr) : json(n.lease)},
                    {"lease_until", api_time(n.lease_until)},
                    {"problem", n.problem},
                    {"running", std::move(running)},
                    {"failures", failures_json(n.failures)}});
  }
  return {{"source", "run"}, {"time", api_time(now)}, {"nodes", std::move(list)}};
}

std::optional<json> dashboard_model::task(const std::string& name, millis now,
                                          const output_reader& output) const {
  auto status = board_.task_statuses().find(name);
  if (status == board_.task_statuses().end() && !attempts_.contains(name))
    return std::nullopt;
  json j = json::object();
  j["task"] = name;
  j["time"] = api_time(now);
  j["status"] = status == board_.task_statuses().end() ? "" : status->second;
  auto stage = stage_.find(name);
  j["stage"] = stage == stage_.end() ? "" : stage->second;
  json attempts = json::array();
  if (auto it = attempts_.find(name); it != attempts_.end())
    for (const auto& a : it->second)
      attempts.push_back(attempt_json(a, output));
  j["attempts"] = std::move(attempts);
  auto spent = task_spent_.find(name);
  put_usage(j, spent == task_spent_.end() ? token_usage{} : spent->second);
  auto wait = board_.waits().find(name);
  j["wait"] = wait == board_.waits().end()
                ? json(nullptr)
                : json{{"kind", wait->second.kind},
                       {"until", api_time(wait->second.until)},
                       {"target", wait->second.target},
                       {"reason", one_line(wait->second.reason)}};
  auto block = board_.blocked().find(name);
  j["blocked"] = block == board_.blocked().end()
                   ? json(nullptr)
                   : json{{"reason", one_line(block->second)},
                          {"retry", board_.retry_command_for(name)}};
  json events = json::array();
  if (auto it = events_.find(name); it != events_.end())
    for (const auto& e : it->second)
      events.push_back(e);
  j["events"] = std::move(events);
  return j;
}

} // namespace ad::runtime

#include "runtime/observe/dashboard_state.hpp"

#include <map>
#include <sstream>

#include "runtime/report/board.hpp"

namespace ad::runtime {
namespace {

constexpr std::string_view status_user_review = "user-review";

bool live(const status_attempt& a) { return a.liveness == "live"; }

token_usage task_spent_of(const status_report& r, const std::string& name) {
  for (const auto& t : r.tasks)
    if (t.name == name)
      return t.spent;
  return {};
}

json live_row(const status_task& t, const status_attempt& a, const output_reader& output) {
  auto seen = output ? output("", a.locator) : attempt_live{};
  json row = {{"task", t.name},
              {"role", a.role},
              {"target", t.target},
              {"node", a.node},
              {"attempt", t.attempts},
              {"identity", ""},
              {"started", nullptr},
              {"locator", a.locator},
              {"output", seen.output}};
  put_usage(row, seen.usage);
  return row;
}

} // namespace

json dashboard_state_of(const status_report& r, millis now, const std::string& retry_prefix,
                        const output_reader& output) {
  json j = json::object();
  j["source"] = "state";
  j["time"] = api_time(now);
  j["dispatcher"] = {{"present", r.dispatcher.present},
                     {"alive", r.dispatcher.alive},
                     {"pid", r.dispatcher.pid},
                     {"started", api_time(r.dispatcher.started_at)}};
  json counts = json::object();
  json tasks = json::array();
  json running = json::array();
  json waits_by_kind = json::object();
  json blocked = json::array();
  json user_review = json::array();
  for (const auto& t : r.tasks) {
    counts[t.status] = counts.value(t.status, 0) + 1;
    tasks.push_back({{"task", t.name}, {"status", t.status}, {"stage", t.stage}});
    for (const auto& a : t.live) {
      if (!live(a))
        continue;
      running.push_back(live_row(t, a, output));
    }
    if (t.status == "waiting") {
      auto kind = t.wait.empty() ? std::string("other") : t.wait;
      if (!waits_by_kind.contains(kind))
        waits_by_kind[kind] = json::array();
      waits_by_kind[kind].push_back({{"task", t.name},
                                     {"until", t.wait_until > now ? api_time(t.wait_until) : json(nullptr)},
                                     {"target", t.wait_target},
                                     {"owner", t.wait_owner},
                                     {"reason", t.reason}});
    } else if (t.status == "blocked") {
      blocked.push_back({{"task", t.name},
                         {"stage", t.stage},
                         {"reason", t.reason},
                         {"retry", retry_command_for(retry_prefix, t.name)}});
    } else if (t.status == status_user_review) {
      user_review.push_back({{"task", t.name}, {"reason", t.reason}});
    }
  }
  json waits = json::array();
  for (auto kind : overview_wait_kinds)  // the board's order, then any other
    if (waits_by_kind.contains(std::string(kind))) {
      waits.push_back({{"kind", kind}, {"tasks", waits_by_kind[std::string(kind)]}});
      waits_by_kind.erase(std::string(kind));
    }
  for (auto& [kind, list] : waits_by_kind.items())
    waits.push_back({{"kind", kind}, {"tasks", list}});
  j["counts"] = std::move(counts);
  j["tasks"] = std::move(tasks);
  j["running"] = std::move(running);
  j["waits"] = std::move(waits);
  j["blocked"] = std::move(blocked);
  j["user_review"] = std::move(user_review);
  j["finished"] = false;
  j["summary"] = r.summary.message;
  put_usage(j, r.spent);
  return j;
}


json dashboard_targets_of(const status_report& r, millis now, const output_reader& output) {
  std::map<std::string, json> targets;
  auto target = [&](const std::string& name) -> json& {
    auto& t = targets[name];
    if (t.is_null()) {
      t = {{"target", name},
           {"quota", ""},
           {"until", nullptr},
           {"quota_reason", ""},
           {"running", json::array()},
           {"failures", json::array()},
           {"failure_counts", json::object()}};
      put_usage(t, {});
    }
    return t;
  };
  for (const auto& [name, spent] : r.spent_by_target)
    if (!name.empty())
      put_usage(target(name), spent);
  // A quota state with its end: the latest one known for the target wins.
  auto quota = [&](json& j, std::string_view kind, millis until, const std::string& reason) {
    if (until <= now || (!j["until"].is_null() && api_time(until) <= j["until"].get<std::string>()))
      return;
    j["quota"] = std::string(kind);
    j["until"] = api_time(until);
    j["quota_reason"] = reason;
  };
  for (const auto& [name, c] : r.cooldowns)
    quota(target(name), wait_cool_down, c.until, "a quota failure of " + c.task);
  for (const auto& t : r.tasks) {
    if (!t.target.empty()) {
      auto& j = target(t.target);
      for (const auto& a : t.live)
        if (live(a))
          j["running"].push_back(live_row(t, a, output));
      if (t.wait == wait_quota_reset)
        quota(j, wait_quota_reset, t.wait_until, t.reason);
    }
    if (t.blocked_evidence.empty())
      continue;
    auto evidence = parse_json(t.blocked_evidence, "blocked evidence");
    if (!evidence || !evidence->is_object())
      continue;
    auto on = evidence->value("selected_target", "");
    auto cls = evidence->value("failure_class", "");
    if (on.empty() || cls.empty())
      continue;
    auto& j = target(on);
    j["failures"].push_back({{"time", nullptr},
                             {"task", t.name},
                             {"identity", ""},
                             {"failure_class", cls},
                             {"evidence", evidence->value("evidence", "")}});
    j["failure_counts"][cls] = j["failure_counts"].value(cls, 0) + 1;
  }
  json list = json::array();
  for (auto& [name, j] : targets)
    list.push_back(std::move(j));
  return {{"source", "state"}, {"time", api_time(now)}, {"targets", std::move(list)}};
}

json dashboard_nodes_of(const status_report& r, millis now, const output_reader& output) {
  std::map<std::string, json> nodes;
  for (const auto& t : r.tasks)
    for (const auto& a : t.live)
      if (live(a) && !a.node.empty()) {
        auto& n = nodes[a.node];
        if (n.is_null())
          n = {{"node", a.node}, {"running", json::array()}};
        n["running"].push_back(live_row(t, a, output));
      }
  json list = json::array();
  for (auto& [name, j] : nodes)
    list.push_back(std::move(j));
  return {{"source", "state"}, {"time", api_time(now)}, {"nodes", std::move(list)}};
}

std::optional<json> dashboard_task_of(const status_report& r, const std::string& name, millis now,
                                      const std::string& retry_prefix,
                                      const output_reader& output) {
  // The task's object of `status --json`, so both say the same.
  std::istringstream lines(render_status_json_lines(r));
  for (std::string line; std::getline(lines, line);) {
    auto j = parse_json(line, "status");
    if (!j || j->value("event", "") != "task" || j->value("task", "") != name)
      continue;
    (*j)["time"] = api_time(now);
    (*j)["retry"] = j->value("status", "") == "blocked" ? retry_command_for(retry_prefix, name) : "";
    (*j)["usage_text"] = usage_summary(task_spent_of(r, name));
    for (auto& a : (*j)["live_attempts"]) {
      auto seen = output && a.value("liveness", "") == "live" ? output("", a.value("locator", ""))
                                                             : attempt_live{};
      a["output"] = seen.output;
      put_usage(a, seen.usage);
    }
    return *j;
  }
  return std::nullopt;
}

} // namespace ad::runtime

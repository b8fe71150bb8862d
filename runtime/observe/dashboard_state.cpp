#include "runtime/observe/dashboard_state.hpp"

#include <sstream>

#include "runtime/report/board.hpp"

namespace ad::runtime {
namespace {

constexpr std::string_view status_user_review = "user-review";

bool live(const status_attempt& a) { return a.liveness == "live"; }

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
    for (const auto& a : t.live)
      if (live(a))
        running.push_back({{"task", t.name},
                           {"role", a.role},
                           {"target", t.target},
                           {"node", a.node},
                           {"attempt", t.attempts},
                           {"identity", ""},
                           {"started", nullptr},
                           {"locator", a.locator},
                           {"usage", ""},
                           {"output", output ? output("", a.locator) : ""}});
    if (t.status == "waiting") {
      bool reset = t.reset_wait_until > now;
      auto kind = std::string(reset ? wait_quota_reset : "other");
      if (!waits_by_kind.contains(kind))
        waits_by_kind[kind] = json::array();
      waits_by_kind[kind].push_back({{"task", t.name},
                                     {"until", reset ? api_time(t.reset_wait_until) : json(nullptr)},
                                     {"target", t.target},
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
  return j;
}

std::optional<json> dashboard_task_of(const status_report& r, const std::string& name, millis now,
                                      const std::string& retry_prefix) {
  // The task's object of `status --json`, so both say the same.
  std::istringstream lines(render_status_json_lines(r));
  for (std::string line; std::getline(lines, line);) {
    auto j = parse_json(line, "status");
    if (!j || j->value("event", "") != "task" || j->value("task", "") != name)
      continue;
    (*j)["time"] = api_time(now);
    (*j)["retry"] = j->value("status", "") == "blocked" ? retry_command_for(retry_prefix, name) : "";
    return *j;
  }
  return std::nullopt;
}

} // namespace ad::runtime

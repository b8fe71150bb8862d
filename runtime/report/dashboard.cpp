#include "runtime/report/dashboard.hpp"

#include <array>

#include "runtime/report/event_render.hpp"

namespace ad::runtime {
namespace {

// The overview lists waits in this order, then any other kind, then "other".
constexpr std::array<std::string_view, 8> wait_kinds = {
  wait_quota_reset, wait_cool_down, wait_capacity, wait_claim,
  wait_dependency,  wait_pause,     wait_node,     wait_elsewhere};

constexpr std::string_view user_review_stage = "user-review";

json attempt_json(const dashboard_attempt& a, const output_reader& output) {
  json j = {{"identity", a.identity}, {"role", a.role},         {"target", a.target},
            {"node", a.node},         {"attempt", a.attempt},   {"started", api_time(a.started)},
            {"finished", api_time(a.finished)}, {"status", a.status}, {"exit_code", a.exit_code},
            {"failure_class", a.failure_class}, {"evidence", one_line(a.evidence)},
            {"locator", a.locator}};
  j["output"] = a.status == "running" && output ? output(a.identity, a.locator) : "";
  return j;
}

} // namespace

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

void dashboard_model::apply(const run_event& e) {
  board_.apply(e);
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
      if (!e.locator.empty())
        a.locator = e.locator;
    }
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
    running.push_back({{"task", a.task},
                       {"role", a.role},
                       {"target", a.target},
                       {"node", a.node},
                       {"attempt", a.attempt},
                       {"identity", id},
                       {"started", api_time(a.started)},
                       {"locator", a.locator},
                       {"usage", a.usage},
                       {"output", output ? output(id, a.locator) : a.output}});
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
  for (auto kind : wait_kinds)
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
  return j;
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

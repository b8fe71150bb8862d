#include "runtime/notify/notify_decision.hpp"

#include <algorithm>
#include <optional>

#include "runtime/report/event_render.hpp"
#include "runtime/workspace/stage.hpp"

namespace ad::runtime {

namespace {

// The notify event a run event is, if any.
std::optional<notify_event> kind_of(const run_event& e) {
  switch (e.kind) {
    case run_event_kind::task_blocked:
      return e.stage == to_string(task_stage::user_review) ? notify_event::user_review
                                                           : notify_event::task_blocked;
    case run_event_kind::supervisor_wait:
      // Every supervisor wait is a quota wait: a reset time or a cool-down.
      return notify_event::quota_wait;
    case run_event_kind::claim_violation: return notify_event::claim_violation;
    case run_event_kind::summary: return notify_event::run_finished;
    default: return std::nullopt;
  }
}

bool fires(const notify_rule& rule, notify_event kind, const run_event& e) {
  if (std::find(rule.events.begin(), rule.events.end(), kind) == rule.events.end())
    return false;
  if (kind != notify_event::quota_wait)
    return true;
  double wait_ms = static_cast<double>(e.until - e.time);
  return e.until > e.time && wait_ms > rule.quota_wait_minutes * 60'000.0;
}

} // namespace

std::vector<notification> notifications_for(const run_event& event, const policy_notify& notify,
                                            std::string_view workspace) {
  std::vector<notification> out;
  auto kind = kind_of(event);
  if (!kind || notify.rules.empty())
    return out;
  json body;
  for (const auto& rule : notify.rules) {
    if (!fires(rule, *kind, event))
      continue;
    if (body.is_null())
      body = run_event_json(event);
    json b = body;
    b["notification"] = std::string(to_string(*kind));
    b["rule"] = rule.id;
    b["workspace"] = std::string(workspace);
    out.push_back({rule.id, *kind, rule.command, rule.url, std::move(b)});
  }
  return out;
}

} // namespace ad::runtime

#include "actors/scheduler/claim_notes.hpp"

#include <algorithm>

namespace ad::actors {

std::optional<messages::task_actor> note_claim_violation(scheduler_state& s,
                                                         const messages::claim_violation_noted& v) {
  for (const auto& l : v.live) {
    if (std::find(s.live_violations.begin(), s.live_violations.end(), l) ==
        s.live_violations.end()) {
      s.live_violations.push_back(l);
      s.violations_changed = true;
    }
  }
  if (!v.task.empty())
    s.touched.insert(v.task);
  if (v.stop_task.empty())
    return std::nullopt;
  s.touched.insert(v.stop_task);
  auto running = s.running.find(v.stop_task);
  if (running == s.running.end())
    return std::nullopt;
  return running->second;
}

bool note_violating_attempt_ended(scheduler_state& s,
                                  const messages::violating_attempt_ended& e) {
  auto gone = std::erase_if(s.live_violations,
                            [&](const runtime::live_violation& l) { return l.attempt == e.attempt; });
  if (gone > 0)
    s.violations_changed = true;
  return gone > 0;
}

runtime::json claim_note_json(const messages::claim_violation_noted& v) {
  runtime::json live = runtime::json::array();
  for (const auto& l : v.live)
    live.push_back({{"path", l.path}, {"attempt", l.attempt}, {"task", l.task}});
  return runtime::json{{"time", v.time},          {"task", v.task},
                       {"attempt", v.attempt},    {"path", v.path},
                       {"live", std::move(live)}, {"stop_task", v.stop_task},
                       {"reason", v.reason}};
}

runtime::json violation_ended_json(const messages::violating_attempt_ended& e) {
  return runtime::json{{"time", e.time}, {"attempt", e.attempt}};
}

} // namespace ad::actors

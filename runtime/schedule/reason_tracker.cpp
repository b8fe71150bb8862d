#include "runtime/schedule/reason_tracker.hpp"

namespace ad::runtime {

bool reason_tracker::report(const std::string& task, admission_kind kind, view_stage stage,
                            std::string_view reason) {
  std::string key(to_string(kind));
  key += '|';
  key += to_string(stage);
  key += '|';
  key += reason;
  auto [it, inserted] = last_.try_emplace(task, key);
  if (inserted)
    return true;
  if (it->second == key)
    return false;
  it->second = std::move(key);
  return true;
}

void reason_tracker::forget(const std::string& task) { last_.erase(task); }

std::vector<const admission_entry*> reason_tracker::changes(
  const std::vector<admission_entry>& entries) {
  std::vector<const admission_entry*> out;
  for (const auto& e : entries) {
    if (e.kind == admission_kind::admit || e.kind == admission_kind::complete) {
      forget(e.task);
      continue;
    }
    if (report(e.task, e.kind, e.stage, e.reason))
      out.push_back(&e);
  }
  return out;
}

} // namespace ad::runtime

#include "runtime/claims/observed_changes.hpp"

#include <algorithm>

namespace ad::runtime {

std::vector<observed_change> observed_from_diff(const snapshot_diff& diff) {
  std::vector<observed_change> out;
  out.reserve(diff.changes.size());
  for (const auto& c : diff.changes)
    out.push_back({c.path, writer_source::snapshot, {}, c.at});
  return out;
}

std::vector<observed_change> observed_from_events(const std::vector<write_event>& events,
                                                  millis drained_at) {
  std::vector<observed_change> out;
  for (const auto& e : events)
    if (e.what != write_kind::lost)
      out.push_back({e.path, writer_source::fanotify, e.marker, drained_at});
  return out;
}

bool events_lost(const std::vector<write_event>& events) {
  return std::any_of(events.begin(), events.end(),
                     [](const write_event& e) { return e.what == write_kind::lost; });
}

} // namespace ad::runtime

#include "runtime/state/reconcile.hpp"

#include <algorithm>

namespace ad::runtime {

reconcile_outcome reconcile_orchestration(
  const std::string& scope, const orchestration_record& record, const std::set<std::string>& live,
  const std::map<std::string, std::vector<std::string>>& archives) {
  reconcile_outcome out;
  static const std::vector<std::string> none;
  for (const auto& [task, rec] : record.tasks) {
    auto found = archives.find(task);
    const auto& now = found == archives.end() ? none : found->second;
    if (rec.status == orchestration_task_status::complete) {
      if (std::find(now.begin(), now.end(), rec.archive) != now.end()) {
        out.completed[task] = rec.archive;
        if (!live.contains(task))
          out.changes.push_back(release_claim{task});
      } else {
        out.errors[task] = "recorded archive " + rec.archive + " no longer holds complete.log";
      }
      continue;
    }
    if (live.contains(task))
      continue;
    std::vector<std::string> candidates;
    for (const auto& path : now)
      if (std::find(rec.archive_baseline.begin(), rec.archive_baseline.end(), path)
          == rec.archive_baseline.end())
        candidates.push_back(path);
    if (candidates.size() == 1) {
      out.completed[task] = candidates.front();
      out.changes.push_back(complete_orchestration_task{scope, task, candidates.front()});
      out.changes.push_back(release_claim{task});
    } else if (candidates.empty()) {
      out.errors[task] = "task vanished from agent-task/ and no new archive folder with "
                         "complete.log appeared for it since it was first seen";
    } else {
      std::string names;
      for (const auto& c : candidates)
        names += (names.empty() ? "" : ", ") + c;
      out.errors[task] = "task vanished and " + std::to_string(candidates.size())
                         + " new archive folders with complete.log appeared, so its archive "
                           "is ambiguous: "
                         + names;
    }
  }
  return out;
}

} // namespace ad::runtime

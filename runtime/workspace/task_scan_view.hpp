#pragma once
// What a scheduler pass reads of the workspace's tasks: the tasks of the
// last scan by name, and the completed folders a dependency may match. The
// workspace_scanner is the one that reads folders; another view can give
// the planner tasks from elsewhere (made up by a test, say). Read-only;
// never throws.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/shared_value.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

// A task as one reading found it. A task is read once and then only read, so
// the scanner and every copy of its readings (scan_copy: the scheduler
// machine's) share it: a reading of 10,000 tasks costs reference counts,
// not a second copy of them.
using shared_task = shared_value<scanned_task>;

class task_scan_view {
public:
  virtual ~task_scan_view() = default;

  virtual const std::filesystem::path& task_root() const = 0;
  // Tasks by name.
  virtual const std::map<std::string, shared_task>& tasks() const = 0;
  // The folders that complete `predecessor` of `group` (dependency_candidates).
  virtual std::vector<std::filesystem::path> completed_folders(
    std::string_view group, std::string_view predecessor) const = 0;

  const scanned_task* find(const std::string& name) const;
  // Every task sorted by (index, name), like workspace_scan::tasks.
  std::vector<const scanned_task*> ordered() const;
};

} // namespace ad::runtime

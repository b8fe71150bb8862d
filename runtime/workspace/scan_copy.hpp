#pragma once
// A copy of the workspace scan kept from what each refresh read (a
// scan_reading: the workspace_scanner makes one per refresh, its tasks
// shared with the scanner's rather than copied), so the
// scheduler machine decides on values and never asks the scanner: the
// tasks by name and the completed folders of every group, which answer
// dependency lookups like dependency_candidates(). Pure; single owner;
// never throws.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/workspace/task_scan_view.hpp"

namespace ad::runtime {

// A folder that completes a dependency: its name (in its group's folder or
// an archive month's group folder) and its complete.log (canonical).
struct completed_folder {
  std::string folder;
  std::string log;
  bool operator==(const completed_folder&) const = default;
};

// The logs of the folders of `completed` that name `predecessor`
// (names_predecessor), sorted and unique.
std::vector<std::filesystem::path> matching_folders(const std::vector<completed_folder>& completed,
                                                    std::string_view predecessor);

// What one refresh of the scan read: the tasks (every one after a full
// refresh, else the changed ones still there), the names it reports changed
// (tasks, and archived folders by the name they had under agent-task/), and
// the completed folders of every group those name (every group after a full
// refresh).
struct scan_reading {
  bool full = false;
  std::vector<std::string> changed;
  std::vector<shared_task> tasks;  // shared with the scanner that read them
  std::map<std::string, std::vector<completed_folder>> completed; // by group
};

class scan_copy final : public task_scan_view {
public:
  explicit scan_copy(std::filesystem::path task_root = {}) : root_(std::move(task_root)) {}

  // A full reading replaces everything; another replaces the changed tasks
  // (a changed name without a task is gone) and the groups it names. Taken
  // by value: a reading moved in gives up its tasks without a copy.
  void apply(scan_reading r);

  const std::filesystem::path& task_root() const override { return root_; }
  const std::map<std::string, shared_task>& tasks() const override { return tasks_; }
  std::vector<std::filesystem::path> completed_folders(
    std::string_view group, std::string_view predecessor) const override;

private:
  std::filesystem::path root_;
  std::map<std::string, shared_task> tasks_;
  std::map<std::string, std::vector<completed_folder>, std::less<>> completed_;
};

} // namespace ad::runtime

#include "runtime/workspace/scan_copy.hpp"

#include <set>

#include "runtime/workspace/dependencies.hpp"

namespace ad::runtime {

std::vector<std::filesystem::path> matching_folders(const std::vector<completed_folder>& completed,
                                                    std::string_view predecessor) {
  std::set<std::filesystem::path> found;
  for (const auto& c : completed)
    if (names_predecessor(c.folder, predecessor))
      found.insert(c.log);
  return {found.begin(), found.end()};
}

void scan_copy::apply(scan_reading r) {
  if (r.full) {
    tasks_.clear();
    completed_.clear();
  } else {
    for (const auto& name : r.changed)
      tasks_.erase(name);
  }
  for (auto& t : r.tasks) {
    auto name = t->name;
    tasks_.insert_or_assign(std::move(name), std::move(t));
  }
  for (auto& [group, folders] : r.completed) {
    if (folders.empty())
      completed_.erase(group);
    else
      completed_.insert_or_assign(group, std::move(folders));
  }
}

std::vector<std::filesystem::path> scan_copy::completed_folders(std::string_view group,
                                                               std::string_view predecessor) const {
  auto it = completed_.find(group);
  if (it == completed_.end())
    return {};
  return matching_folders(it->second, predecessor);
}

} // namespace ad::runtime

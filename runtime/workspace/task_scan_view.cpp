#include "runtime/workspace/task_scan_view.hpp"

#include <algorithm>

namespace ad::runtime {

const scanned_task* task_scan_view::find(const std::string& name) const {
  const auto& all = tasks();
  auto it = all.find(name);
  return it == all.end() ? nullptr : &it->second.get();
}

std::vector<const scanned_task*> task_scan_view::ordered() const {
  const auto& all = tasks();
  std::vector<const scanned_task*> out;
  out.reserve(all.size());
  for (const auto& [name, t] : all)
    out.push_back(&t.get());
  std::stable_sort(out.begin(), out.end(), [](const scanned_task* a, const scanned_task* b) {
    return a->index < b->index;
  });
  return out;
}

} // namespace ad::runtime

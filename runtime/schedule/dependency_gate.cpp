#include "runtime/schedule/dependency_gate.hpp"

#include <algorithm>

#include "runtime/core/text.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

live_set::live_set(const std::vector<live_task>& live) {
  for (const auto& t : live)
    add(t);
}

void live_set::add(const live_task& task) {
  if (task.where == live_where::none)
    return;
  auto [it, inserted] = by_name_.emplace(task.name, task.where);
  if (!inserted) {
    // A task followed here wins over stale evidence of another dispatcher.
    if (task.where == live_where::here)
      it->second = live_where::here;
    auto& members = by_group_[task_group(task.name)];
    for (auto& m : members)
      if (m.name == task.name)
        m.where = it->second;
    return;
  }
  by_group_[task_group(task.name)].push_back(task);
}

live_where live_set::where(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? live_where::none : it->second;
}

std::vector<live_task> live_set::with_index(std::string_view group, int index) const {
  std::vector<live_task> out;
  auto it = by_group_.find(std::string(group));
  if (it == by_group_.end())
    return out;
  for (const auto& t : it->second) {
    auto idx = subtask_index_of(t.name);
    if (idx && *idx == index && task_group(t.name) == group)
      out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](const live_task& a, const live_task& b) { return a.name < b.name; });
  return out;
}

dependency_verdict check_dependencies(const task_view& task, const live_set& live) {
  if (task.predecessors.empty())
    return {};
  std::vector<std::string> running;
  for (const auto& pred : task.predecessors) {
    for (const auto& t : live.with_index(task.group, pred.index)) {
      if (t.name == task.name)
        continue;
      running.push_back(t.name + " to finish (running " +
                        std::string(t.where == live_where::here ? "here" : "elsewhere") + ")");
    }
  }
  if (!running.empty())
    return {dependency_kind::predecessor_live, "waiting for " + join(running, ", ")};

  std::vector<std::string> ambiguous;
  std::vector<std::string> missing;
  for (const auto& pred : task.predecessors) {
    auto pattern = two_digit(pred.index) + "_*";
    if (pred.complete_matches.size() > 1) {
      auto matches = pred.complete_matches;
      std::sort(matches.begin(), matches.end());
      ambiguous.push_back(pattern + " matches " + std::to_string(matches.size()) +
                          " completed folders: " + join(matches, ", "));
    } else if (pred.complete_matches.empty()) {
      missing.push_back(pattern);
    }
  }
  if (!ambiguous.empty())
    return {dependency_kind::ambiguous, "dependency ambiguity: " + join(ambiguous, "; ")};
  if (!missing.empty())
    return {dependency_kind::predecessor_missing,
            "waiting for " + join(missing, ", ") + " to complete"};
  return {};
}

} // namespace ad::runtime

#pragma once
// Dependency gate of the admission pass (SPEC section 4): a subtask waits while
// a predecessor still runs (here or in another live dispatcher), waits until
// exactly one completed folder matches each predecessor, and is in error when
// several do. Pure functions over task views and the set of live tasks; the
// file-system lookup of completed folders happens before, in the workspace
// scan. Never throws; reasons are one stable human line each.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/schedule/task_view.hpp"

namespace ad::runtime {

// Live tasks grouped by task group, for predecessor lookups in O(group size).
class live_set {
public:
  live_set() = default;
  explicit live_set(const std::vector<live_task>& live);

  void add(const live_task& task);
  // The live task for `name`, or live_where::none.
  live_where where(std::string_view name) const;
  // Live tasks of `group` whose subtask index is `index`, sorted by name.
  std::vector<live_task> with_index(std::string_view group, int index) const;
  std::size_t size() const { return by_name_.size(); }

private:
  std::unordered_map<std::string, live_where> by_name_;
  std::unordered_map<std::string, std::vector<live_task>> by_group_;
};

enum class dependency_kind : uint8_t {
  ready,
  predecessor_live,    // a predecessor still runs: wait
  predecessor_missing, // no completed folder yet: wait
  ambiguous,           // several completed folders match: a task error
};

struct dependency_verdict {
  dependency_kind kind = dependency_kind::ready;
  std::string reason; // empty when ready
};

// Live predecessors are checked first, then ambiguity, then missing ones.
// Reasons:
//   "waiting for auth/01_api to finish (running here)"
//   "waiting for 01_*, 02_* to complete"
//   "dependency ambiguity: 01_* matches 2 completed folders: <a>, <b>"
dependency_verdict check_dependencies(const task_view& task, const live_set& live);

} // namespace ad::runtime

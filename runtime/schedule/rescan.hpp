#pragma once
// What the scheduler looks at again after attempts finish (SPEC section 4):
// after a completion the whole tree is rescanned; otherwise only the finished
// tasks, the tasks that depend on them, and the tasks that waited for
// capacity. Plus the "print once per change" memory for wait and block
// reasons. Pure values; the scheduler actor owns one reason_tracker. Never
// throws.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/schedule/admission.hpp"
#include "runtime/schedule/task_view.hpp"

namespace ad::runtime {

enum class finish_kind : uint8_t {
  completed,    // the task reached complete (archived with complete.log)
  not_completed // any other end: next stage, retry later, blocked, failed
};

struct finished_task {
  std::string name;
  finish_kind kind = finish_kind::not_completed;
};

// Who waits for whom, built from the task views of the last full scan.
class dependents_index {
public:
  dependents_index() = default;
  explicit dependents_index(const std::vector<task_view>& tasks);
  // Tasks of the same group naming `task_name`'s subtask index as a
  // predecessor, sorted by name.
  std::vector<std::string> dependents_of(std::string_view task_name) const;

private:
  // "<group>/<index>" -> dependents
  std::unordered_map<std::string, std::vector<std::string>> by_predecessor_;
};

enum class rescan_kind : uint8_t { full, partial };

struct rescan_plan {
  rescan_kind kind = rescan_kind::partial;
  std::vector<std::string> tasks; // partial only: sorted, unique
};

rescan_plan plan_rescan(const std::vector<finished_task>& finished,
                        const dependents_index& dependents,
                        const std::vector<std::string>& capacity_waiters);

// Which tasks wait on something another task releases: a claim (released on
// completion) or a capacity slot (freed on any finish). Fed with every pass;
// a task's latest entry replaces what was known about it.
class waiter_book {
public:
  void record(const admission_plan& plan);
  void forget(const std::string& task);
  const std::set<std::string>& claim_waiters() const { return claim_; }
  const std::set<std::string>& capacity_waiters() const { return capacity_; }

private:
  std::set<std::string> claim_;
  std::set<std::string> capacity_;
};

// After a completion the folders are rescanned (plan_rescan says full), but
// the admission pass only needs the tasks whose decision can differ from the
// last pass: tasks that are new or whose view changed, the finished tasks,
// the dependents of finished tasks, the claim waiters (a claim was released)
// and the capacity waiters. Tasks gone from `current` are not returned.
// `previous` holds the views the last passes examined, by name. Sorted, unique.
std::vector<std::string> scope_after_rescan(const std::map<std::string, task_view>& previous,
                                            const std::vector<task_view>& current,
                                            const std::vector<finished_task>& finished,
                                            const dependents_index& dependents,
                                            const waiter_book& waiters);

// Remembers the last reported (kind, stage, reason) per task so each wait or
// block is printed once per change.
class reason_tracker {
public:
  // True when this differs from what was last reported for the task (and
  // records it).
  bool report(const std::string& task, admission_kind kind, view_stage stage,
              std::string_view reason);
  // Drops the memory of a task (admitted, completed): its next wait prints.
  void forget(const std::string& task);
  // The entries of a pass worth printing: waits, blocks and running tasks
  // whose line changed. Admitted and complete tasks are forgotten.
  std::vector<admission_entry> changes(const admission_plan& plan);

private:
  std::unordered_map<std::string, std::string> last_;
};

} // namespace ad::runtime

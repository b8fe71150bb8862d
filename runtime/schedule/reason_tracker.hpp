#pragma once
// The "print once per change" memory for wait and block reasons (SPEC section
// 4): the scheduler shows a task's wait or block line again only when its kind,
// stage or reason changed. Pure values; the scheduler actor owns one
// reason_tracker. Never throws.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/schedule/admission.hpp"

namespace ad::runtime {

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
  // whose line changed, pointing into `entries` (nothing is copied: a first
  // pass shows most of thousands). Admitted and complete tasks are forgotten.
  std::vector<const admission_entry*> changes(const std::vector<admission_entry>& entries);

private:
  std::unordered_map<std::string, std::string> last_;
};

} // namespace ad::runtime

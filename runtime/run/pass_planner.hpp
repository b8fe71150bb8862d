#pragma once
// The incremental form of plan_pass for the long-running scheduler (SPEC
// section 4): it keeps the task views and admission entries of earlier
// passes and re-examines only the tasks a pass can decide differently: the
// tasks named as touched (folder re-read by the scanner, durable state
// changed, finished, started, paused, liveness changed), the tasks that
// depend on any of them (same group, naming its subtask index), the claim
// waiters when a claim changed, the tasks waiting on a path written
// outside a claim when the live violations changed, and as many capacity waiters, in admission
// order, as the free slots can take. Every other task keeps its last entry,
// which is what a full pass would decide for it again. A full pass (first
// one, a full rescan by the scanner) examines everything.
//
// Pure: the scan view (the scheduler's copy of the scan) and the archive
// folders of first sightings (asked for beforehand: first_sightings) come
// with the input. Single owner; never throws.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/run/run_pass.hpp"
#include "runtime/run/run_views.hpp"
#include "runtime/workspace/task_scan_view.hpp"

namespace ad::runtime {

struct planner_input {
  const task_scan_view* scanner = nullptr;
  // The archive folders (with complete.log) of the tasks first_sightings
  // names, by task; a task missing or a null map: none.
  const std::map<std::string, std::vector<std::string>>* archives = nullptr;
  const state_model* state = nullptr;
  const policy* pol = nullptr;
  std::map<std::string, live_info> live; // every live task, by name
  int max_parallel = 0;
  bool full = false;                  // re-examine every task
  std::vector<std::string> touched;   // names (tasks or archived folders)
  bool claims_changed = false;        // a claim was taken, replaced or released
  // Paths written outside a claim by attempts still running (the claim
  // watcher's verdicts): tasks claiming them wait (admission_input::violations).
  std::vector<live_violation> violations;
  bool violations_changed = false;    // an entry went (its attempt ended) or came
};

struct planner_result {
  std::vector<state_change> changes;     // durable before starting `admitted`
  std::vector<admission_entry> examined; // this pass's entries, by (index, name)
  std::vector<std::string> admitted;     // in admission order
  std::vector<std::string> dropped;      // tasks gone from the scan
  // What `changes` was decided on (sighting_changes), before the claims.
  std::vector<task_sighting> sightings;
  // The parts of the pass's last admission plan not listed above.
  std::map<std::string, write_claim> claims_taken;
  std::vector<std::string> capacity_waiters;
  int occupied = 0;
};

class pass_planner {
public:
  planner_result plan(const planner_input& in);
  // The tasks plan(in) would examine that are scanned and unknown to their
  // orchestration record (first sightings): their archive folders are the
  // sighting's baseline (planner_input::archives).
  std::vector<std::string> first_sightings(const planner_input& in) const;

  const std::map<std::string, admission_entry>& entries() const { return entries_; }
  const std::map<std::string, task_view>& views() const { return views_; }
  const std::set<std::string>& claim_waiters() const { return claim_waiters_; }
  const std::set<std::string>& violation_waiters() const { return violation_waiters_; }
  std::size_t capacity_waiters() const { return capacity_waiters_.size(); }
  // Tasks depending on `task_name` (same group, naming its index), sorted.
  std::vector<std::string> dependents_of(const std::string& task_name) const;
  // Every view and entry as one pass_plan (for observe_run_end).
  pass_plan snapshot() const;

private:
  using order_key = std::tuple<int, int, std::string>; // (not review, index, name)

  std::set<std::string> scope_of(const planner_input& in) const;
  void drop(const std::string& name);
  void put_view(task_view v);
  void record(const admission_entry& e);

  std::map<std::string, task_view> views_;
  std::map<std::string, admission_entry> entries_;
  std::map<std::string, std::set<std::string>> dependents_; // "<group>/<index>" -> tasks
  std::set<order_key> capacity_waiters_;
  std::map<std::string, order_key> waiter_key_;
  std::set<std::string> claim_waiters_;
  std::set<std::string> violation_waiters_;
};

} // namespace ad::runtime

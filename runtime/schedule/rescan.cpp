#include "runtime/schedule/rescan.hpp"

#include <algorithm>
#include <set>

namespace ad::runtime {

namespace {

std::string predecessor_key(std::string_view group, int index) {
  std::string key(group);
  key += '/';
  key += two_digit(index);
  return key;
}

} // namespace

dependents_index::dependents_index(const std::vector<task_view>& tasks) {
  for (const auto& t : tasks)
    for (const auto& p : t.predecessors)
      by_predecessor_[predecessor_key(t.group, p.index)].push_back(t.name);
  for (auto& [key, names] : by_predecessor_) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
}

std::vector<std::string> dependents_index::dependents_of(std::string_view task_name) const {
  auto index = subtask_index_of(task_name);
  if (!index)
    return {};
  auto it = by_predecessor_.find(predecessor_key(group_of(task_name), *index));
  return it == by_predecessor_.end() ? std::vector<std::string>{} : it->second;
}

rescan_plan plan_rescan(const std::vector<finished_task>& finished,
                        const dependents_index& dependents,
                        const std::vector<std::string>& capacity_waiters) {
  rescan_plan out;
  for (const auto& f : finished) {
    if (f.kind == finish_kind::completed) {
      out.kind = rescan_kind::full;
      return out;
    }
  }
  for (const auto& f : finished) {
    out.tasks.push_back(f.name);
    for (auto& d : dependents.dependents_of(f.name))
      out.tasks.push_back(std::move(d));
  }
  out.tasks.insert(out.tasks.end(), capacity_waiters.begin(), capacity_waiters.end());
  std::sort(out.tasks.begin(), out.tasks.end());
  out.tasks.erase(std::unique(out.tasks.begin(), out.tasks.end()), out.tasks.end());
  return out;
}

void waiter_book::record(const admission_plan& plan) {
  for (const auto& e : plan.entries) {
    claim_.erase(e.task);
    capacity_.erase(e.task);
    if (e.kind != admission_kind::wait)
      continue;
    if (e.cause == wait_cause::claim_conflict || e.cause == wait_cause::exclusive_claim)
      claim_.insert(e.task);
    else if (e.cause == wait_cause::capacity)
      capacity_.insert(e.task);
  }
}

void waiter_book::forget(const std::string& task) {
  claim_.erase(task);
  capacity_.erase(task);
}

std::vector<std::string> scope_after_rescan(const std::map<std::string, task_view>& previous,
                                            const std::vector<task_view>& current,
                                            const std::vector<finished_task>& finished,
                                            const dependents_index& dependents,
                                            const waiter_book& waiters) {
  std::set<std::string> wanted;
  for (const auto& f : finished) {
    wanted.insert(f.name);
    for (auto& d : dependents.dependents_of(f.name))
      wanted.insert(std::move(d));
  }
  wanted.insert(waiters.claim_waiters().begin(), waiters.claim_waiters().end());
  wanted.insert(waiters.capacity_waiters().begin(), waiters.capacity_waiters().end());
  std::vector<std::string> out;
  for (const auto& v : current) {
    auto it = previous.find(v.name);
    if (it == previous.end() || !(it->second == v) || wanted.count(v.name))
      out.push_back(v.name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool reason_tracker::report(const std::string& task, admission_kind kind, view_stage stage,
                            std::string_view reason) {
  std::string key(to_string(kind));
  key += '|';
  key += to_string(stage);
  key += '|';
  key += reason;
  auto [it, inserted] = last_.try_emplace(task, key);
  if (inserted)
    return true;
  if (it->second == key)
    return false;
  it->second = std::move(key);
  return true;
}

void reason_tracker::forget(const std::string& task) { last_.erase(task); }

std::vector<admission_entry> reason_tracker::changes(const admission_plan& plan) {
  std::vector<admission_entry> out;
  for (const auto& e : plan.entries) {
    if (e.kind == admission_kind::admit || e.kind == admission_kind::complete) {
      forget(e.task);
      continue;
    }
    if (report(e.task, e.kind, e.stage, e.reason))
      out.push_back(e);
  }
  return out;
}

} // namespace ad::runtime

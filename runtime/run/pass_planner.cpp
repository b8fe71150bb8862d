#include "runtime/run/pass_planner.hpp"

#include <algorithm>

#include "runtime/run/run_views.hpp"
#include "runtime/schedule/review_observe.hpp"
#include "runtime/schedule/view_from_scan.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace {

std::string dependency_key(std::string_view group, int index) {
  std::string key(group);
  key += '/';
  key += two_digit(index);
  return key;
}

bool by_index_then_name(const admission_entry& a, const admission_entry& b,
                        const std::map<std::string, task_view>& views) {
  auto ia = views.find(a.task), ib = views.find(b.task);
  int xa = ia == views.end() ? 0 : ia->second.index;
  int xb = ib == views.end() ? 0 : ib->second.index;
  return xa != xb ? xa < xb : a.task < b.task;
}

} // namespace

std::vector<std::string> pass_planner::dependents_of(const std::string& task_name) const {
  auto index = subtask_index_of(task_name);
  if (!index)
    return {};
  auto it = dependents_.find(dependency_key(task_group(task_name), *index));
  if (it == dependents_.end())
    return {};
  return {it->second.begin(), it->second.end()};
}

void pass_planner::put_view(task_view v) {
  if (auto old = views_.find(v.name); old != views_.end()) {
    for (const auto& p : old->second.predecessors) {
      auto key = dependency_key(old->second.group, p.index);
      auto it = dependents_.find(key);
      if (it != dependents_.end() && (it->second.erase(v.name), it->second.empty()))
        dependents_.erase(it);
    }
  }
  for (const auto& p : v.predecessors)
    dependents_[dependency_key(v.group, p.index)].insert(v.name);
  auto name = v.name;
  views_.insert_or_assign(std::move(name), std::move(v));
}

void pass_planner::drop(const std::string& name) {
  if (auto old = views_.find(name); old != views_.end()) {
    for (const auto& p : old->second.predecessors) {
      auto it = dependents_.find(dependency_key(old->second.group, p.index));
      if (it != dependents_.end() && (it->second.erase(name), it->second.empty()))
        dependents_.erase(it);
    }
    views_.erase(old);
  }
  entries_.erase(name);
  if (auto k = waiter_key_.find(name); k != waiter_key_.end()) {
    capacity_waiters_.erase(k->second);
    waiter_key_.erase(k);
  }
  claim_waiters_.erase(name);
  violation_waiters_.erase(name);
}

void pass_planner::record(const admission_entry& e) {
  entries_[e.task] = e;
  if (auto k = waiter_key_.find(e.task); k != waiter_key_.end()) {
    capacity_waiters_.erase(k->second);
    waiter_key_.erase(k);
  }
  claim_waiters_.erase(e.task);
  violation_waiters_.erase(e.task);
  if (e.kind != admission_kind::wait)
    return;
  if (e.cause == wait_cause::capacity) {
    auto v = views_.find(e.task);
    int index = v == views_.end() ? 0 : v->second.index;
    order_key key{e.stage == view_stage::review ? 0 : 1, index, e.task};
    capacity_waiters_.insert(key);
    waiter_key_.emplace(e.task, std::move(key));
  } else if (e.cause == wait_cause::claim_conflict || e.cause == wait_cause::exclusive_claim) {
    claim_waiters_.insert(e.task);
  } else if (e.cause == wait_cause::violation_pending) {
    violation_waiters_.insert(e.task);
  }
}

std::set<std::string> pass_planner::scope_of(const planner_input& in) const {
  const auto& scanner = *in.scanner;
  std::set<std::string> scope;
  if (in.full) {
    for (const auto& [name, t] : scanner.tasks())
      scope.insert(name);
    for (const auto& [name, v] : views_)
      if (!scanner.find(name))
        scope.insert(name);
  } else {
    for (const auto& name : in.touched) {
      scope.insert(name);
      for (auto& d : dependents_of(name))
        scope.insert(std::move(d));
    }
    if (in.claims_changed)
      scope.insert(claim_waiters_.begin(), claim_waiters_.end());
    if (in.violations_changed)
      scope.insert(violation_waiters_.begin(), violation_waiters_.end());
  }
  return scope;
}

static bool orchestration_knows(const state_model& state, const std::string& name) {
  auto rec = state.orchestrations.find(task_group(name));
  return rec != state.orchestrations.end() &&
         rec->second.status != orchestration_status::complete &&
         rec->second.tasks.count(name) != 0;
}

std::vector<std::string> pass_planner::first_sightings(const planner_input& in) const {
  std::vector<std::string> out;
  for (const auto& name : scope_of(in))
    if (in.scanner->find(name) && !orchestration_knows(*in.state, name))
      out.push_back(name);
  return out;
}

planner_result pass_planner::plan(const planner_input& in) {
  planner_result out;
  const auto& scanner = *in.scanner;
  const auto& state = *in.state;

  auto scope = scope_of(in);

  auto completed = [&](std::string_view group, std::string_view dep) {
    return scanner.completed_folders(group, dep);
  };
  std::vector<std::string> examine;
  examine.reserve(scope.size());
  out.sightings.reserve(scope.size());
  for (const auto& name : scope) {
    const scanned_task* t = scanner.find(name);
    if (!t) {
      if (views_.count(name) || entries_.count(name)) {
        drop(name);
        out.dropped.push_back(name);
      }
      continue;
    }
    task_sighting seen;
    seen.task = name;
    seen.work_unit = work_unit_of(*t);
    if (auto st_it = state.tasks.find(name); st_it != state.tasks.end()) {
      seen.state_known = true;
      seen.state_work_unit = st_it->second.work_unit_id;
    }
    seen.orchestration_known = orchestration_knows(state, name);
    if (!seen.orchestration_known && in.archives)
      if (auto a = in.archives->find(name); a != in.archives->end())
        seen.archive_baseline = a->second;
    out.sightings.push_back(std::move(seen));
    const task_state* st = current_task_state(state, *t);
    auto live = in.live.find(name);
    live_where where = live == in.live.end() ? live_where::none : live->second.where;
    auto activity = where == live_where::none ? task_activity::idle : task_activity::live;
    auto progress =
      progress_from_state(st, *in.pol, activity, live == in.live.end() ? "" : live->second.detail);
    if (where == live_where::none)
      progress.active_stage.clear(); // a stale stage was cleared by the caller
    auto view = make_task_view(*t, progress, completed, where);
    if (where == live_where::elsewhere && !live->second.detail.empty())
      view.live_detail = live->second.detail;
    put_view(std::move(view));
    examine.push_back(name);
  }
  out.changes = sighting_changes(out.sightings);

  admission_input adm;
  adm.max_parallel = in.max_parallel;
  adm.claims = state.claims;
  adm.violations = in.violations;
  for (const auto& [name, info] : in.live)
    adm.live.push_back(live_task{name, info.where});
  // The views stay in views_: the admission reads them where they are.
  std::vector<const task_view*> tasks;
  tasks.reserve(examine.size());
  for (const auto& name : examine)
    tasks.push_back(&views_.at(name));

  // Capacity waiters outside the scope, in admission order: only as many as
  // the free slots can take are examined; the rest would wait again.
  std::vector<const order_key*> waiting;
  for (const auto& k : capacity_waiters_)
    if (!scope.count(std::get<2>(k)) && views_.count(std::get<2>(k)))
      waiting.push_back(&k);
  std::size_t base = tasks.size();
  std::size_t take = 0;
  if (in.max_parallel <= 0) {
    take = waiting.size();
  } else {
    int free = in.max_parallel - static_cast<int>(in.live.size());
    take = free > 0 ? std::min(waiting.size(), static_cast<std::size_t>(free) + 2) : 0;
  }
  admission_plan plan;
  while (true) {
    tasks.resize(base);
    for (std::size_t i = 0; i < take; ++i)
      tasks.push_back(&views_.at(std::get<2>(*waiting[i])));
    plan = plan_admission(adm, tasks);
    if (take >= waiting.size())
      break;
    bool slots_left = in.max_parallel <= 0 ||
                      plan.occupied + static_cast<int>(plan.admitted.size()) < in.max_parallel;
    bool admitted_beyond = false;
    if (take > 0 && !plan.admitted.empty()) {
      const auto& last_taken = *waiting[take - 1];
      for (const auto& name : plan.admitted) {
        const auto& v = views_.at(name);
        order_key k{v.stage == view_stage::review ? 0 : 1, v.index, name};
        admitted_beyond = admitted_beyond || last_taken < k;
      }
    }
    if (!slots_left && !admitted_beyond)
      break;
    take = std::min(waiting.size(), take * 2 + 8);
  }

  for (const auto& e : plan.entries)
    record(e);
  for (const auto& [owner, claim] : plan.claims_taken)
    out.changes.push_back(replace_claim{owner, claim});
  out.examined = std::move(plan.entries);
  out.admitted = std::move(plan.admitted);
  out.claims_taken = std::move(plan.claims_taken);
  out.capacity_waiters = std::move(plan.capacity_waiters);
  out.occupied = plan.occupied;
  return out;
}

pass_plan pass_planner::snapshot() const {
  pass_plan out;
  for (const auto& [name, v] : views_)
    out.views.push_back(v);
  std::stable_sort(out.views.begin(), out.views.end(),
                   [](const task_view& a, const task_view& b) { return a.index < b.index; });
  for (const auto& [name, e] : entries_)
    out.admission.entries.push_back(e);
  std::stable_sort(out.admission.entries.begin(), out.admission.entries.end(),
                   [&](const admission_entry& a, const admission_entry& b) {
                     return by_index_then_name(a, b, views_);
                   });
  return out;
}

} // namespace ad::runtime

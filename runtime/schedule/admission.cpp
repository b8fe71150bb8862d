#include "runtime/schedule/admission.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "runtime/schedule/dependency_gate.hpp"
#include "runtime/workspace/claim_index.hpp"

namespace ad::runtime {

std::string_view to_string(admission_kind kind) {
  switch (kind) {
    case admission_kind::admit: return "admit";
    case admission_kind::running_here: return "running-here";
    case admission_kind::running_elsewhere: return "running-elsewhere";
    case admission_kind::wait: return "wait";
    case admission_kind::blocked: return "blocked";
    case admission_kind::complete: return "complete";
  }
  return "unknown";
}

namespace {

// Claims by owner, with the shared conflict index (runtime/workspace/claim_index).
class claim_table {
public:
  explicit claim_table(const std::map<std::string, write_claim>& claims) {
    for (const auto& [owner, c] : claims)
      put(owner, c);
  }

  const write_claim* find(const std::string& owner) const {
    auto it = by_owner_.find(owner);
    return it == by_owner_.end() ? nullptr : &it->second;
  }

  void put(const std::string& owner, write_claim claim) {
    index_.put(owner, claim.kind == claim_kind::exclusive, claim.paths);
    by_owner_.insert_or_assign(owner, std::move(claim));
  }

  std::optional<claim_index::conflict> conflict(const std::string& self,
                                                const std::set<std::string>& paths) const {
    return index_.conflict_of(self, paths);
  }

private:
  std::map<std::string, write_claim> by_owner_;
  claim_index index_;
};

write_claim claim_for(const task_view& t) {
  write_claim c;
  if (t.write_set == write_set_kind::valid && !t.write_paths.empty()) {
    c.kind = claim_kind::paths;
    c.paths.insert(t.write_paths.begin(), t.write_paths.end());
  } else {
    c.kind = claim_kind::exclusive;
  }
  return c;
}

bool is_review(view_stage s) { return s == view_stage::review; }

// The first live violation (by path, then attempt) on one of `paths` by an
// attempt of another task; null when none.
const live_violation* pending_violation(const std::vector<live_violation>& violations,
                                        const std::string& self,
                                        const std::set<std::string>& paths) {
  const live_violation* found = nullptr;
  for (const auto& v : violations) {
    if (v.task == self || !paths.count(v.path))
      continue;
    if (found == nullptr || std::tie(v.path, v.attempt) < std::tie(found->path, found->attempt))
      found = &v;
  }
  return found;
}

} // namespace

admission_plan plan_admission(const admission_input& input) {
  std::vector<const task_view*> tasks;
  tasks.reserve(input.tasks.size());
  for (const auto& t : input.tasks)
    tasks.push_back(&t);
  return plan_admission(input, tasks);
}

admission_plan plan_admission(const admission_input& input,
                              const std::vector<const task_view*>& tasks) {
  admission_plan out;
  live_set live(input.live);
  for (const auto* t : tasks)
    live.add({t->name, t->live});
  out.occupied = static_cast<int>(live.size());

  claim_table claims(input.claims);

  std::vector<const task_view*> order = tasks;
  std::sort(order.begin(), order.end(), [](const task_view* a, const task_view* b) {
    return a->index != b->index ? a->index < b->index : a->name < b->name;
  });

  out.entries.resize(order.size());
  std::vector<std::size_t> ready; // positions in order/entries

  // First pass: everything that does not depend on other admissions. Running
  // tasks adopt their claims here so that they bind every admission below.
  for (std::size_t i = 0; i < order.size(); ++i) {
    const task_view& t = *order[i];
    auto& e = out.entries[i];
    e.task = t.name;
    e.stage = t.stage;
    auto where = live.where(t.name);
    if (where != live_where::none) {
      e.kind = where == live_where::here ? admission_kind::running_here
                                         : admission_kind::running_elsewhere;
      e.reason = where == live_where::here ? "running here" : "running elsewhere";
      if (!t.live_detail.empty())
        e.reason += ": " + t.live_detail;
      if (const auto* held = claims.find(t.name)) {
        e.claim = *held;
      } else {
        e.claim = claim_for(t);
        claims.put(t.name, e.claim);
        out.claims_taken[t.name] = e.claim;
      }
      continue;
    }
    if (t.stage == view_stage::complete) {
      e.kind = admission_kind::complete;
      continue;
    }
    if (!t.blocked_reason.empty() || t.stage == view_stage::blocked ||
        t.stage == view_stage::user_review) {
      e.kind = admission_kind::blocked;
      e.cause = wait_cause::task_blocked;
      e.reason = t.blocked_reason.empty() ? std::string(to_string(t.stage)) : t.blocked_reason;
      continue;
    }
    auto dep = check_dependencies(t, live);
    switch (dep.kind) {
      case dependency_kind::ready: ready.push_back(i); continue;
      case dependency_kind::predecessor_live:
        e.kind = admission_kind::wait;
        e.cause = wait_cause::predecessor_live;
        break;
      case dependency_kind::predecessor_missing:
        e.kind = admission_kind::wait;
        e.cause = wait_cause::predecessor_missing;
        break;
      case dependency_kind::ambiguous:
        e.kind = admission_kind::blocked;
        e.cause = wait_cause::dependency_ambiguity;
        break;
    }
    e.reason = std::move(dep.reason);
  }

  // Reviews first; within each class the (index, name) order already holds.
  std::stable_partition(ready.begin(), ready.end(),
                        [&](std::size_t i) { return is_review(order[i]->stage); });

  int started = 0;
  for (auto i : ready) {
    const task_view& t = *order[i];
    auto& e = out.entries[i];
    if (t.write_set != write_set_kind::valid || t.write_paths.empty()) {
      e.kind = admission_kind::blocked;
      e.cause = wait_cause::no_write_set;
      e.reason = "no valid write set: " +
                 (t.write_set_error.empty() ? std::string("no claimed path") : t.write_set_error);
      continue;
    }
    auto wanted = claim_for(t);
    if (auto c = claims.conflict(t.name, wanted.paths)) {
      e.kind = admission_kind::wait;
      if (c->path.empty()) {
        e.cause = wait_cause::exclusive_claim;
        e.reason = "exclusive claim held by " + c->owner + " (its write set is unknown)";
      } else {
        e.cause = wait_cause::claim_conflict;
        e.reason = "claim conflict with " + c->owner + " on " + c->path;
      }
      continue;
    }
    if (const auto* v = pending_violation(input.violations, t.name, wanted.paths)) {
      e.kind = admission_kind::wait;
      e.cause = wait_cause::violation_pending;
      e.reason = v->path + " was written outside its claim by running attempt " + v->attempt +
                 " of " + v->task;
      continue;
    }
    if (input.max_parallel > 0 && out.occupied + started >= input.max_parallel) {
      e.kind = admission_kind::wait;
      e.cause = wait_cause::capacity;
      e.reason = "capacity: " + std::to_string(out.occupied + started) + " of " +
                 std::to_string(input.max_parallel) + " running";
      out.capacity_waiters.push_back(t.name);
      continue;
    }
    e.kind = admission_kind::admit;
    e.claim = wanted;
    const auto* held = claims.find(t.name);
    if (held == nullptr || !(*held == wanted))
      out.claims_taken[t.name] = wanted;
    claims.put(t.name, std::move(wanted));
    out.admitted.push_back(t.name);
    ++started;
  }
  return out;
}

} // namespace ad::runtime

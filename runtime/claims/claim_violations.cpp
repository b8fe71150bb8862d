#include "runtime/claims/claim_violations.hpp"

#include <algorithm>
#include <set>

namespace ad::runtime {

namespace {

bool holds(const std::vector<std::string>& write_set, const std::string& path) {
  return std::find(write_set.begin(), write_set.end(), path) != write_set.end();
}

// A task other than `writer_task` whose claim covers path; "" when none.
std::string claim_owner(const claim_map& claims, const std::string& path,
                        const std::string& writer_task) {
  for (const auto& [task, write_set] : claims)
    if (task != writer_task && holds(write_set, path))
      return task;
  return {};
}

bool ran_at(const attempt_window& a, millis at, millis slack) {
  if (at < a.started - slack)
    return false;
  return a.ended == 0 || at <= a.ended + slack;
}

struct path_writes {
  std::set<std::string> markers; // fanotify-attributed writers
  bool unknown_fanotify = false; // a fanotify write whose process was not traced
  bool snapshot = false;         // the diff saw it change
  millis at = 0;                 // latest known change time
};

class judge {
public:
  judge(const std::vector<attempt_window>& attempts, const claim_map& claims, millis slack)
      : attempts_(attempts), claims_(claims), slack_(slack) {}

  void path(const std::string& path, const path_writes& w) {
    for (const auto& marker : w.markers) {
      const attempt_window* a = by_marker(marker);
      if (a == nullptr) {
        report_.unattributed.push_back(
            {path, "written by a process of marker " + marker + ", which names no attempt of the window"});
        continue;
      }
      if (!holds(a->write_set, path))
        violation(*a, path, attribution_basis::fanotify);
    }
    // The diff adds nothing to a path fanotify tied to a writer.
    bool unknown = w.unknown_fanotify || (w.snapshot && w.markers.empty());
    if (unknown)
      by_candidates(path, w.at);
  }

  violation_report finish() && {
    auto& v = report_.violations;
    std::sort(v.begin(), v.end(), [](const claim_violation& a, const claim_violation& b) {
      return std::tie(a.path, a.attempt) < std::tie(b.path, b.attempt);
    });
    v.erase(std::unique(v.begin(), v.end()), v.end());
    std::stable_sort(report_.unattributed.begin(), report_.unattributed.end(),
                     [](const unattributed_change& a, const unattributed_change& b) {
                       return a.path < b.path;
                     });
    return std::move(report_);
  }

private:
  const attempt_window* by_marker(const std::string& marker) const {
    for (const auto& a : attempts_)
      if (!a.marker.empty() && a.marker == marker)
        return &a;
    return nullptr;
  }

  void by_candidates(const std::string& path, millis at) {
    if (attempts_.empty()) {
      report_.unattributed.push_back({path, "changed while no attempt ran"});
      return;
    }
    std::vector<const attempt_window*> candidates;
    if (at != 0)
      for (const auto& a : attempts_)
        if (ran_at(a, at, slack_))
          candidates.push_back(&a);
    if (candidates.empty())
      for (const auto& a : attempts_)
        candidates.push_back(&a);
    if (candidates.size() == 1) {
      if (!holds(candidates.front()->write_set, path))
        violation(*candidates.front(), path, attribution_basis::elimination);
      return;
    }
    for (const auto* a : candidates)
      if (holds(a->write_set, path))
        return; // inside a candidate's own write set: theirs
    claim_violation v;
    v.path = path;
    v.other_task = claim_owner(claims_, path, {});
    v.attribution = attribution_basis::candidates;
    for (const auto* a : candidates)
      v.candidates.push_back(a->attempt);
    std::sort(v.candidates.begin(), v.candidates.end());
    v.candidates.erase(std::unique(v.candidates.begin(), v.candidates.end()), v.candidates.end());
    report_.violations.push_back(std::move(v));
  }

  void violation(const attempt_window& a, const std::string& path, attribution_basis basis) {
    report_.violations.push_back(
        {a.task, a.attempt, path, claim_owner(claims_, path, a.task), basis, {}});
  }

  const std::vector<attempt_window>& attempts_;
  const claim_map& claims_;
  millis slack_;
  violation_report report_;
};

} // namespace

std::string_view to_string(attribution_basis basis) {
  switch (basis) {
    case attribution_basis::fanotify: return "fanotify";
    case attribution_basis::elimination: return "elimination";
    case attribution_basis::candidates: return "candidates";
  }
  return "candidates";
}

violation_report judge_claim_writes(const std::vector<observed_change>& changes,
                                    const std::vector<attempt_window>& attempts,
                                    const claim_map& claims, const judge_options& options) {
  std::map<std::string, path_writes> by_path;
  for (const auto& c : changes) {
    auto& w = by_path[c.path];
    if (c.source == writer_source::fanotify) {
      if (c.marker.empty())
        w.unknown_fanotify = true;
      else
        w.markers.insert(c.marker);
    } else {
      w.snapshot = true;
    }
    w.at = std::max(w.at, c.at);
  }
  judge j(attempts, claims, options.slack);
  for (const auto& [path, writes] : by_path)
    j.path(path, writes);
  return std::move(j).finish();
}

} // namespace ad::runtime

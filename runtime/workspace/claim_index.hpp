#pragma once
// Who holds which write paths: each owner's claim (its paths, or exclusive
// when its write set is unknown) indexed by path, so that a conflict check
// costs O(size of the requested write set), not O(number of claims).
// Admission (runtime/schedule/admission) and the dry run
// (runtime/workspace/dry_run) both ask it, so they name the same conflict:
// the smallest owner among the exclusive holders and the holders of a
// requested path, with the smallest shared path. Pure data, never throws.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ad::runtime {

class claim_index {
public:
  // The owner's claim becomes exactly this one.
  template <class Paths>
  void put(const std::string& owner, bool exclusive, const Paths& paths) {
    erase(owner);
    auto& held = owners_[owner];
    held.exclusive = exclusive;
    if (exclusive) {
      exclusive_.insert(owner);
      return;
    }
    for (const auto& p : paths) {
      by_path_[p].insert(owner);
      held.paths.push_back(p);
    }
  }
  void erase(const std::string& owner);

  struct conflict {
    std::string owner;
    std::string path;  // "" when the owner's claim is exclusive
  };
  // The conflict a claim on `paths` by `self` would have, nullopt when none.
  template <class Paths>
  std::optional<conflict> conflict_of(const std::string& self, const Paths& paths) const {
    std::optional<conflict> found;
    auto consider = [&](const std::string& o, const std::string& p) {
      if (o != self && (!found || o < found->owner || (o == found->owner && p < found->path)))
        found = conflict{o, p};
    };
    for (const auto& o : exclusive_)
      consider(o, "");
    for (const auto& p : paths)
      if (auto it = by_path_.find(p); it != by_path_.end())
        for (const auto& o : it->second)
          consider(o, p);
    return found;
  }

private:
  struct held {
    bool exclusive = false;
    std::vector<std::string> paths;
  };
  std::map<std::string, held> owners_;
  std::unordered_map<std::string, std::set<std::string>> by_path_;
  std::set<std::string> exclusive_;
};

} // namespace ad::runtime

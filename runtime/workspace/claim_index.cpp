#include "runtime/workspace/claim_index.hpp"

namespace ad::runtime {

void claim_index::erase(const std::string& owner) {
  auto it = owners_.find(owner);
  if (it == owners_.end())
    return;
  exclusive_.erase(owner);
  for (const auto& p : it->second.paths) {
    auto pit = by_path_.find(p);
    if (pit == by_path_.end())
      continue;
    pit->second.erase(owner);
    if (pit->second.empty())
      by_path_.erase(pit);
  }
  owners_.erase(it);
}

} // namespace ad::runtime

#include "runtime/workspace/early_scan.hpp"

#include <algorithm>
#include <iterator>

namespace ad::runtime {

scan_refresh joined_refresh(const scan_refresh& earlier, const scan_refresh& later) {
  scan_refresh out;
  out.full = earlier.full || later.full;
  std::set_union(earlier.changed.begin(), earlier.changed.end(), later.changed.begin(),
                 later.changed.end(), std::back_inserter(out.changed));
  return out;
}

early_scan::early_scan(std::filesystem::path workspace, std::optional<std::string> group,
                       scanner_watch mode)
    : scanner_(std::move(workspace), std::move(group), mode) {
  thread_ = std::thread([this] { first_.emplace(scanner_.refresh()); });
}

early_scan::~early_scan() {
  if (thread_.joinable())
    thread_.join();
}

result<scan_refresh> early_scan::refresh(const std::vector<std::filesystem::path>& also) {
  if (!thread_.joinable())
    return scanner_.refresh(also);
  thread_.join();
  auto first = std::move(*first_);
  first_.reset();
  auto since = scanner_.refresh(also);
  if (!first || !since)
    return since;
  return joined_refresh(*first, *since);
}

} // namespace ad::runtime

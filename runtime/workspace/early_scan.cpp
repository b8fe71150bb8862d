#include "runtime/workspace/early_scan.hpp"

#include <algorithm>
#include <iterator>

#include "runtime/core/heap_tuning.hpp"

namespace ad::runtime {

scan_refresh joined_refresh(const scan_refresh& earlier, const scan_refresh& later) {
  scan_refresh out;
  out.full = earlier.full || later.full;
  std::set_union(earlier.changed.begin(), earlier.changed.end(), later.changed.begin(),
                 later.changed.end(), std::back_inserter(out.changed));
  return out;
}

early_scan::early_scan(std::filesystem::path workspace, std::optional<std::string> group,
                       scanner_watch mode, bool own_heap)
    : scanner_(std::move(workspace), std::move(group), mode) {
  auto scan = [this] { first_.emplace(scanner_.refresh()); };
  thread_ = own_heap ? start_on_own_heap(scan) : std::thread(scan);
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

#include "runtime/workspace/subfolders.hpp"

#include <algorithm>

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// Calls on(path) for each folder inside dir; false when dir cannot be listed.
template <class F>
bool each_subfolder(const fs::path& dir, F&& on) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec)
    return false;
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    // The entry's type as the listing gave it: a stat only for a link (which
    // is followed) or a file system that does not say.
    std::error_code kind;
    if (it->is_directory(kind))
      on(it->path());
  }
  return true;
}

} // namespace

std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> out;
  each_subfolder(dir, [&](const fs::path& p) { out.push_back(p); });
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::set<std::string>> subfolder_names(const fs::path& dir) {
  std::set<std::string> out;
  if (!each_subfolder(dir, [&](const fs::path& p) { out.insert(p.filename().string()); }))
    return std::nullopt;
  return out;
}

std::vector<fs::path> archive_months(const fs::path& task_root) {
  std::vector<fs::path> out;
  for (const auto& year : subfolders(task_root / "archive"))
    for (auto& month : subfolders(year))
      out.push_back(std::move(month));
  return out;
}

} // namespace ad::runtime

#include "runtime/workspace/subfolders.hpp"

#include <algorithm>

namespace ad::runtime {

std::vector<std::filesystem::path> subfolders(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code kind;
    if (fs::is_directory(it->path(), kind))
      out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace ad::runtime

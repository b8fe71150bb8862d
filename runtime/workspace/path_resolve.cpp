#include "runtime/workspace/path_resolve.hpp"

#include <cerrno>
#include <climits>
#include <deque>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

void push_components(const fs::path& p, std::deque<std::string>& pending, bool front) {
  std::deque<std::string> parts;
  for (const auto& part : p.relative_path())
    if (!part.empty())
      parts.push_back(part.string());
  if (front)
    pending.insert(pending.begin(), parts.begin(), parts.end());
  else
    pending.insert(pending.end(), parts.begin(), parts.end());
}

} // namespace

result<fs::path> resolve_path(const fs::path& path, const fs::path& base) {
  std::deque<std::string> pending;
  push_components(path, pending, false);

  // A relative path starts at base, resolved already: its components are
  // not looked at again.
  fs::path resolved = path.is_relative() && base.is_absolute() ? base.lexically_normal() : "/";
  if (resolved.has_filename() == false && resolved != "/")
    resolved = resolved.parent_path();
  int hops = 0;
  bool missing = false; // once a component is missing, the rest is lexical
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == ".")
      continue;
    if (part == "..") {
      resolved = resolved.parent_path();
      continue;
    }
    fs::path next = resolved / part;
    if (missing) {
      resolved = next;
      continue;
    }
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        missing = errno == ENOENT;
        resolved = next;
        continue;
      }
      return status::from_errno("cannot resolve " + path.string(), errno);
    }
    if (!S_ISLNK(st.st_mode)) {
      resolved = next;
      continue;
    }
    if (++hops > 40)
      return status::invalid_argument("cannot resolve " + path.string() +
                                      ": symlink loop (more than 40 links)");
    std::string target(PATH_MAX, '\0');
    auto n = ::readlink(next.c_str(), target.data(), target.size());
    if (n < 0)
      return status::from_errno("cannot read link " + next.string(), errno);
    target.resize(static_cast<std::size_t>(n));
    fs::path link_target(target);
    if (link_target.is_absolute())
      resolved = "/";
    push_components(link_target, pending, true);
  }
  return resolved;
}

bool is_within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty())
      continue; // a trailing separator on root
    if (p == path.end() || *p != *r)
      return false;
  }
  return true;
}

} // namespace ad::runtime

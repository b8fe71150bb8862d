#include "runtime/workspace/path_resolve.hpp"

#include <cerrno>
#include <climits>
#include <deque>
#include <optional>
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

fs::file_type type_of(mode_t mode) {
  if (S_ISREG(mode))
    return fs::file_type::regular;
  if (S_ISDIR(mode))
    return fs::file_type::directory;
  if (S_ISLNK(mode))
    return fs::file_type::symlink;
  if (S_ISFIFO(mode))
    return fs::file_type::fifo;
  if (S_ISSOCK(mode))
    return fs::file_type::socket;
  if (S_ISCHR(mode))
    return fs::file_type::character;
  if (S_ISBLK(mode))
    return fs::file_type::block;
  return fs::file_type::unknown;
}

// lstat through the memo when there is one: 0 or an errno.
int lstat_of(const fs::path& path, struct stat& st, path_walk_memo* memo) {
  if (memo == nullptr)
    return ::lstat(path.c_str(), &st) == 0 ? 0 : errno;
  unsigned mode = 0;
  int error = memo->lstat(path.native(), mode);
  st.st_mode = mode;
  return error;
}

// resolve_path; with `type`, also what lies at the answer (after symlinks),
// from the lstat calls the walk makes anyway where it can.
result<fs::path> resolve(const fs::path& path, const fs::path& base, fs::file_type* type,
                         path_walk_memo* memo) {
  // Known while the last step was an lstat of the last component (or a
  // missing component); "." and ".." steps leave it to a stat at the end.
  std::optional<fs::file_type> last;
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
    if (part == ".") {
      last.reset();
      continue;
    }
    if (part == "..") {
      resolved = resolved.parent_path();
      last.reset();
      continue;
    }
    fs::path next = resolved / part;
    if (missing) {
      resolved = next;
      last = fs::file_type::not_found;
      continue;
    }
    struct stat st {};
    if (int error = lstat_of(next, st, memo); error != 0) {
      if (error == ENOENT || error == ENOTDIR) {
        missing = error == ENOENT;
        resolved = next;
        last = fs::file_type::not_found;
        continue;
      }
      return status::from_errno("cannot resolve " + path.string(), error);
    }
    if (!S_ISLNK(st.st_mode)) {
      resolved = next;
      last = type_of(st.st_mode);
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
    last.reset();
  }
  if (type != nullptr) {
    if (!last) {
      struct stat st {};
      last = ::stat(resolved.c_str(), &st) == 0 ? type_of(st.st_mode)
             : errno == ENOENT || errno == ENOTDIR ? fs::file_type::not_found
                                                   : fs::file_type::none;
    }
    *type = *last;
  }
  return resolved;
}

} // namespace

int path_walk_memo::lstat(const std::string& path, unsigned& mode) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = answers_.find(path); it != answers_.end()) {
      mode = it->second.mode;
      return it->second.error;
    }
  }
  // Looked up outside the lock: two threads asking at once both look.
  struct stat st {};
  int error = ::lstat(path.c_str(), &st) == 0 ? 0 : errno;
  mode = error == 0 ? st.st_mode : 0;
  // A link is read and followed by the walk each time; a refusal other than
  // "missing" is not remembered either.
  if ((error == 0 && !S_ISLNK(mode)) || error == ENOENT || error == ENOTDIR) {
    std::lock_guard lock(mutex_);
    answers_.emplace(path, answer{error, mode});
  }
  return error;
}

result<fs::path> resolve_path(const fs::path& path, const fs::path& base) {
  return resolve(path, base, nullptr, nullptr);
}

result<typed_path> resolve_typed_path(const fs::path& path, const fs::path& base,
                                      path_walk_memo* memo) {
  typed_path out;
  auto resolved = resolve(path, base, &out.type, memo);
  if (!resolved.is_ok())
    return resolved.error();
  out.path = std::move(*resolved);
  return out;
}

fs::path canonical_or_same(const fs::path& p) {
  std::error_code ec;
  auto c = fs::canonical(p, ec);
  return ec ? p : c;
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

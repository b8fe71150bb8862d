#include "runtime/claims/workspace_snapshot.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ad::runtime {

namespace {

int64_t ns_of(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

file_stamp stamp_of(const struct stat& st) {
  file_stamp s;
  s.size = static_cast<int64_t>(st.st_size);
  s.mtime_ns = ns_of(st.st_mtim);
  s.ctime_ns = ns_of(st.st_ctim);
  s.inode = static_cast<uint64_t>(st.st_ino);
  s.kind = S_ISLNK(st.st_mode) ? entry_kind::symlink : entry_kind::regular;
  return s;
}

std::string reason_of(std::string_view what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

class walker {
public:
  walker(const claim_scope& scope, const snapshot_limits& limits, workspace_snapshot& out)
      : scope_(scope), limits_(limits), out_(out) {}

  // Walks the open folder `dir_fd` (taking ownership) at `path`.
  status walk(int dir_fd, const std::string& path, int depth) {
    DIR* dir = ::fdopendir(dir_fd);
    if (dir == nullptr) {
      out_.unreadable.push_back({path, reason_of("open", errno)});
      ::close(dir_fd);
      return status::ok();
    }
    ++out_.folders;
    status st = walk_entries(dir, path, depth);
    ::closedir(dir);
    return st;
  }

private:
  status walk_entries(DIR* dir, const std::string& path, int depth) {
    const int dir_fd = ::dirfd(dir);
    // Only a folder above an excluded prefix can hold an excluded entry.
    const bool check_excluded = scope_.excludes_below(path);
    std::string child;
    for (;;) {
      errno = 0;
      struct dirent* ent = ::readdir(dir);
      if (ent == nullptr) {
        if (errno != 0)
          out_.unreadable.push_back({path, reason_of("read", errno)});
        return status::ok();
      }
      const char* name = ent->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
        continue;
      child.assign(path);
      child += '/';
      child += name;
      if (check_excluded && scope_.is_excluded(child))
        continue;
      unsigned char type = ent->d_type;
      struct stat st {};
      if (type != DT_DIR) {
        if (type != DT_REG && type != DT_LNK && type != DT_UNKNOWN)
          continue; // FIFOs, sockets, devices: not files an agent edits
        if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
          continue; // vanished since readdir
        if (S_ISDIR(st.st_mode))
          type = DT_DIR;
        else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
          continue;
      }
      if (type == DT_DIR) {
        if (auto s = descend(dir_fd, name, child, depth + 1); !s)
          return s;
        continue;
      }
      if (out_.entries.size() >= limits_.max_files)
        return status::invalid_argument(
            "workspace snapshot: more than " + std::to_string(limits_.max_files)
            + " files below " + scope_.root() + " (cap reached at " + child
            + "); raise the file cap or exempt the folder");
      out_.entries.push_back({child, stamp_of(st)});
    }
  }

  status descend(int parent_fd, const char* name, const std::string& path, int depth) {
    if (depth > limits_.max_depth)
      return status::invalid_argument("workspace snapshot: folder " + path + " is nested deeper than "
                                      + std::to_string(limits_.max_depth)
                                      + " levels below " + scope_.root()
                                      + "; raise the depth cap or exempt it");
    int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      // Gone, or replaced by a file or symlink since readdir: nothing to walk.
      if (err != ENOENT && err != ENOTDIR && err != ELOOP)
        out_.unreadable.push_back({path, reason_of("open", err)});
      return status::ok();
    }
    return walk(fd, path, depth);
  }

  const claim_scope& scope_;
  const snapshot_limits& limits_;
  workspace_snapshot& out_;
};

bool below_any(const std::string& path, const std::vector<std::string>& sorted_folders) {
  for (std::size_t pos = path.find('/', 1); ; pos = path.find('/', pos + 1)) {
    std::string_view prefix(path.data(), pos == std::string::npos ? path.size() : pos);
    if (std::binary_search(sorted_folders.begin(), sorted_folders.end(), prefix))
      return true;
    if (pos == std::string::npos)
      return false;
  }
}

millis ms_of(int64_t ns) { return ns / 1'000'000; }

} // namespace

std::string_view to_string(change_kind kind) {
  switch (kind) {
    case change_kind::created: return "created";
    case change_kind::modified: return "modified";
    case change_kind::deleted: return "deleted";
    case change_kind::type_changed: return "type-changed";
  }
  return "modified";
}

result<workspace_snapshot> take_snapshot(const claim_scope& scope, const snapshot_limits& limits) {
  workspace_snapshot out;
  out.root = scope.root();
  int fd = ::open(scope.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return status::io_error(reason_of("workspace snapshot: open " + scope.root(), errno));
  walker w(scope, limits, out);
  if (auto st = w.walk(fd, scope.root(), 0); !st)
    return st;
  std::sort(out.entries.begin(), out.entries.end(),
            [](const snapshot_entry& a, const snapshot_entry& b) { return a.path < b.path; });
  std::sort(out.unreadable.begin(), out.unreadable.end(),
            [](const unreadable_folder& a, const unreadable_folder& b) { return a.path < b.path; });
  return out;
}

snapshot_diff diff(const workspace_snapshot& before, const workspace_snapshot& after) {
  snapshot_diff d;
  for (const auto& u : before.unreadable)
    d.unreadable.push_back(u.path);
  for (const auto& u : after.unreadable)
    d.unreadable.push_back(u.path);
  std::sort(d.unreadable.begin(), d.unreadable.end());
  d.unreadable.erase(std::unique(d.unreadable.begin(), d.unreadable.end()), d.unreadable.end());

  auto emit = [&](const std::string& path, change_kind kind, millis at) {
    if (d.unreadable.empty() || !below_any(path, d.unreadable))
      d.changes.push_back({path, kind, at});
  };
  auto b = before.entries.begin();
  auto a = after.entries.begin();
  while (b != before.entries.end() || a != after.entries.end()) {
    if (a == after.entries.end() || (b != before.entries.end() && b->path < a->path)) {
      emit(b->path, change_kind::deleted, 0);
      ++b;
    } else if (b == before.entries.end() || a->path < b->path) {
      emit(a->path, change_kind::created, ms_of(a->stamp.ctime_ns));
      ++a;
    } else {
      if (a->stamp.kind != b->stamp.kind)
        emit(a->path, change_kind::type_changed, ms_of(a->stamp.ctime_ns));
      else if (a->stamp != b->stamp)
        emit(a->path, change_kind::modified, ms_of(a->stamp.ctime_ns));
      ++a;
      ++b;
    }
  }
  return d;
}

} // namespace ad::runtime

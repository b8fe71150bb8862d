// write_watch::drain(): reading and decoding the fanotify event records.
#include "runtime/claims/write_watch.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/fanotify.h>
#include <unistd.h>
#include <unordered_map>

namespace ad::runtime {

namespace {

write_event lost(std::string detail) {
  write_event e;
  e.what = write_kind::lost;
  e.detail = std::move(detail);
  return e;
}

// The folder a DFID_NAME record names, by its handle; "" when it is gone.
std::string handle_path(int mount_fd, const unsigned char* handle, std::size_t len) {
  struct file_handle head {};
  if (len < sizeof head)
    return {};
  std::memcpy(&head, handle, sizeof head);
  if (head.handle_bytes > MAX_HANDLE_SZ || sizeof head + head.handle_bytes > len)
    return {};
  alignas(struct file_handle) unsigned char storage[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  std::memcpy(storage, handle, sizeof head + head.handle_bytes);
  int fd = ::open_by_handle_at(mount_fd, reinterpret_cast<struct file_handle*>(storage),
                               O_PATH | O_CLOEXEC);
  if (fd < 0)
    return {};
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char buf[PATH_MAX + 16];
  ssize_t n = ::readlink(link, buf, sizeof buf);
  ::close(fd);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf || buf[0] != '/')
    return {};
  std::string path(buf, static_cast<std::size_t>(n));
  if (path.size() > 10 && path.compare(path.size() - 10, 10, " (deleted)") == 0)
    path.resize(path.size() - 10); // removed since: where it was
  return path;
}

std::string fd_path(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char buf[PATH_MAX + 16];
  ssize_t n = ::readlink(link, buf, sizeof buf);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf || buf[0] != '/')
    return {};
  std::string path(buf, static_cast<std::size_t>(n));
  // A file unlinked since shows with " (deleted)": keep the name it was
  // written under.
  if (path.size() > 10 && path.compare(path.size() - 10, 10, " (deleted)") == 0)
    path.resize(path.size() - 10);
  return path;
}

} // namespace

std::vector<write_event> write_watch::drain() {
  drain_pass pass;
  pass.budget = max_events_;
  if (data_fd_ >= 0)
    read_group(data_fd_, false, pass);
  if (entry_fd_ >= 0)
    read_group(entry_fd_, true, pass);
  judge_unplaced(pass);
  // Forks queued up to now include every writer's: read them before tracing.
  if (lineage_)
    lineage_->drain();
  static constexpr std::pair<uint64_t, write_kind> kinds[] = {
      {FAN_MODIFY, write_kind::modified},       {FAN_CLOSE_WRITE, write_kind::closed_written},
      {FAN_CREATE, write_kind::created},        {FAN_DELETE, write_kind::deleted},
      {FAN_MOVED_FROM, write_kind::moved_from}, {FAN_MOVED_TO, write_kind::moved_to},
      {FAN_ATTRIB, write_kind::attributes},
  };
  std::vector<write_event>& out = pass.out;
  const pid_parents* forks = lineage_ ? &lineage_->parents() : nullptr;
  std::unordered_map<int, std::string> traced; // one /proc look-up per writer and drain
  for (auto& p : pass.pending) {
    auto it = traced.find(p.pid);
    if (it == traced.end())
      it = traced.emplace(p.pid, markers_.resolve(p.pid, forks)).first;
    const std::string& marker = it->second;
    for (const auto& [bit, kind] : kinds) {
      if ((p.mask & bit) == 0)
        continue;
      // Repeats of one write (the kernel merges most) are reported once.
      bool repeat = false;
      for (auto it = out.rbegin(); it != out.rend() && it - out.rbegin() < 8; ++it)
        if (it->pid == p.pid && it->what == kind && it->path == p.path) {
          repeat = true;
          break;
        }
      if (!repeat)
        out.push_back({p.pid, p.path, kind, marker, {}});
    }
  }
  return std::move(out);
}

// A folder is found gone only after its removal returned, and the kernel
// queued the removal's event before that: one more read of the entry group
// brings it. Only a watched folder's removal (or move) can hide a watched
// write; without one the unplaced events were elsewhere on the file system.
void write_watch::judge_unplaced(drain_pass& pass) {
  if (pass.unplaced.empty())
    return;
  read_group(entry_fd_, true, pass);
  std::error_code ec;
  bool root_gone = !std::filesystem::is_directory(scope_.root(), ec);
  if (!pass.folder_left_scope && pass.budget > 0 && !root_gone)
    return;
  for (const auto& what : pass.unplaced)
    pass.out.push_back(lost("the folder of " + what + " is gone before its event was read"));
}

void write_watch::read_group(int group_fd, bool entry_group, drain_pass& pass) {
  alignas(struct fanotify_event_metadata) char buf[65536];
  while (pass.budget > 0) {
    ssize_t n = ::read(group_fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno != EAGAIN)
        pass.out.push_back(lost(std::string("read fanotify events: ") + std::strerror(errno)));
      return;
    }
    if (n == 0)
      return;
    std::size_t off = 0;
    const std::size_t total = static_cast<std::size_t>(n);
    while (off + sizeof(struct fanotify_event_metadata) <= total) {
      // Records after an info record are only 4-byte aligned: copy the header.
      struct fanotify_event_metadata m {};
      std::memcpy(&m, buf + off, sizeof m);
      if (m.event_len < sizeof m || off + m.event_len > total)
        break;
      if (m.vers != FANOTIFY_METADATA_VERSION) {
        if (m.fd >= 0)
          ::close(m.fd);
        pass.out.push_back(lost("fanotify metadata version " + std::to_string(m.vers)));
        return;
      }
      if (pass.budget > 0)
        --pass.budget;
      if (m.mask & FAN_Q_OVERFLOW)
        pass.out.push_back(lost("fanotify queue overflow"));
      else if (entry_group)
        entry_event(m.pid, m.mask, buf + off + m.metadata_len, m.event_len - m.metadata_len, pass);
      else
        data_event(m.pid, m.mask, m.fd, pass);
      if (m.fd >= 0)
        ::close(m.fd);
      off += m.event_len;
    }
  }
}

void write_watch::data_event(int pid, uint64_t mask, int event_fd, drain_pass& pass) {
  if (event_fd < 0 || pid == self_pid_)
    return;
  std::string path = fd_path(event_fd);
  if (path.empty()) {
    pass.out.push_back(lost("cannot resolve the path of a write by pid " + std::to_string(pid)));
    return;
  }
  keep(pid, std::move(path), mask, pass);
}

void write_watch::entry_event(int pid, uint64_t mask, const char* info, std::size_t info_len,
                              drain_pass& pass) {
  const bool folder = (mask & FAN_ONDIR) != 0;
  // Folder events count whoever made them (this process too): they only
  // decide whether unplaced events may have been watched ones.
  if (pid == self_pid_ && !folder)
    return;
  std::size_t off = 0;
  while (off + sizeof(struct fanotify_event_info_fid) <= info_len) {
    struct fanotify_event_info_fid fid {};
    std::memcpy(&fid, info + off, sizeof fid);
    if (fid.hdr.len < sizeof fid || off + fid.hdr.len > info_len)
      return;
    if (fid.hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
      auto* handle = reinterpret_cast<const unsigned char*>(info + off + sizeof fid);
      std::size_t handle_len = fid.hdr.len - sizeof fid;
      struct file_handle head {};
      if (handle_len < sizeof head)
        return;
      std::memcpy(&head, handle, sizeof head);
      std::size_t name_at = sizeof head + head.handle_bytes;
      if (name_at >= handle_len)
        return;
      const char* name = reinterpret_cast<const char*>(handle + name_at);
      std::string name_str(name, strnlen(name, handle_len - name_at));
      std::string dir = handle_path(mount_fd_, handle, handle_len);
      if (dir.empty()) {
        if (!folder)
          pass.unplaced.push_back(name_str + " (pid " + std::to_string(pid) + ")");
        else if (mask & (FAN_DELETE | FAN_MOVED_FROM))
          pass.unplaced.push_back("folder " + name_str + " (pid " + std::to_string(pid) + ")");
        return;
      }
      std::string path = dir == "/" ? "/" + name_str : dir + "/" + name_str;
      if (folder) {
        if ((mask & (FAN_DELETE | FAN_MOVED_FROM)) != 0
            && scope_.classify(path) == path_scope::watched)
          pass.folder_left_scope = true;
        return;
      }
      keep(pid, std::move(path), mask, pass);
      return;
    }
    off += fid.hdr.len;
  }
}

void write_watch::keep(int pid, std::string path, uint64_t mask, drain_pass& pass) const {
  if (scope_.classify(path) == path_scope::watched)
    pass.pending.push_back({pid, std::move(path), mask});
}

} // namespace ad::runtime

#include "runtime/workspace/folder_watch.hpp"

#include <cerrno>
#include <sys/inotify.h>
#include <unistd.h>

namespace ad::runtime {

namespace {

constexpr uint32_t watch_mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF |
                                IN_MOVE_SELF | IN_ONLYDIR;

} // namespace

folder_watch::folder_watch() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

folder_watch::~folder_watch() {
  if (fd_ >= 0)
    ::close(fd_);
}

bool folder_watch::watch(const std::filesystem::path& dir) {
  if (fd_ < 0)
    return false;
  auto key = dir.string();
  if (by_path_.count(key))
    return true;
  int wd = ::inotify_add_watch(fd_, key.c_str(), watch_mask);
  if (wd < 0)
    return false;
  // The same inode reached under another name keeps one descriptor.
  if (auto old = by_wd_.find(wd); old != by_wd_.end())
    by_path_.erase(old->second);
  by_wd_[wd] = key;
  by_path_[key] = wd;
  return true;
}

void folder_watch::forget(int wd) {
  auto it = by_wd_.find(wd);
  if (it == by_wd_.end())
    return;
  by_path_.erase(it->second);
  by_wd_.erase(it);
}

folder_events folder_watch::drain() {
  folder_events out;
  if (fd_ < 0)
    return out;
  alignas(inotify_event) char buffer[64 * 1024];
  while (true) {
    ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      break; // EAGAIN: nothing more queued
    }
    if (n == 0)
      break;
    for (ssize_t at = 0; at < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buffer + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        out.overflow = true;
        continue;
      }
      auto it = by_wd_.find(ev->wd);
      if (it == by_wd_.end())
        continue;
      std::string name;
      if (ev->len > 0) {
        name = ev->name; // NUL-padded
        if (ev->mask & IN_ISDIR)
          name += '/';
      }
      out.changed[it->second].insert(std::move(name));
      if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        // The parent's listing changes too; the watch is gone (or follows
        // the inode elsewhere), so it is dropped and re-added on a re-read.
        std::filesystem::path self(it->second);
        out.changed[self.parent_path()].insert(self.filename().string() + "/");
        if (ev->mask & IN_MOVE_SELF)
          (void) ::inotify_rm_watch(fd_, ev->wd);
        forget(ev->wd);
      }
    }
  }
  return out;
}

} // namespace ad::runtime

#pragma once
// Change notification for folders of a workspace (Linux inotify), so a
// rescan can re-read only what changed. One folder_watch owns one inotify
// descriptor (non-blocking, close-on-exec); each watched folder reports
// changes of its own entries: a file or subfolder created, deleted, moved in
// or out, written or closed after writing, or its attributes changed, and
// the folder itself deleted or moved. drain() never blocks: it returns the
// folders with events queued since the last call. When the kernel queue
// overflowed, or a watch could not be added (limit reached), the caller must
// re-read everything it cares about (`overflow` / watch() returning false).
//
// Single owner, no threads. Never throws; a failure to create the descriptor
// leaves usable() false and every call a no-op (the caller then rescans in
// full).

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace ad::runtime {

struct folder_events {
  // Folders with at least one event -> the names of the entries concerned:
  // a subfolder's name ends with '/', a file's does not, and "" stands for
  // the folder itself (its attributes changed, or it was deleted or moved).
  std::map<std::filesystem::path, std::set<std::string>> changed;
  bool overflow = false; // events were lost: re-read everything
};

class folder_watch {
public:
  folder_watch();
  ~folder_watch();
  folder_watch(const folder_watch&) = delete;
  folder_watch& operator=(const folder_watch&) = delete;

  bool usable() const { return fd_ >= 0; }
  // Starts watching `dir` (a no-op when it is watched already). False when
  // the watch cannot be added (not usable, limit reached, not a folder);
  // errno then tells why (ENOENT: the folder is gone).
  bool watch(const std::filesystem::path& dir);
  bool watched(const std::filesystem::path& dir) const { return by_path_.count(dir.string()) != 0; }
  std::size_t size() const { return by_path_.size(); }
  folder_events drain();

private:
  void forget(int wd);

  int fd_ = -1;
  std::unordered_map<int, std::string> by_wd_;
  std::unordered_map<std::string, int> by_path_;
};

} // namespace ad::runtime

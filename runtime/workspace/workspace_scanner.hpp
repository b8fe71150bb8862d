#pragma once
// An incremental workspace scan for the long-running scheduler (SPEC
// section 4: after a completion the whole tree is rescanned). The first
// refresh reads every folder exactly like scan_workspace() and starts a
// folder_watch on agent-task/, each group, each task folder and the archive
// tree; later refreshes re-read only the folders the watch reports (plus
// any the caller names), so a rescan costs what changed, not the size of the
// workspace, while any change anywhere in the tree is still seen. When the
// watch is unavailable, a watch cannot be added, or the kernel dropped
// events, the next refresh is a full scan again. It also keeps the
// completed folders of every group and archive month, so dependency lookups
// answer dependency_candidates() without listing folders.
//
// Single owner, no threads; only reads the workspace; never throws. refresh()
// fails like scan_workspace (not_found without agent-task/, invalid_argument
// for a bad group name); the previous tasks are kept then.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/workspace/folder_watch.hpp"
#include "runtime/workspace/scan_copy.hpp"
#include "runtime/workspace/task_scan.hpp"
#include "runtime/workspace/task_scan_view.hpp"

namespace ad::runtime {

enum class scanner_watch : uint8_t {
  inotify, // re-read only what changed
  none     // every refresh is a full scan (the scan_workspace behaviour)
};

struct scan_refresh {
  bool full = false; // every folder was read again
  // Task names whose folder was read again, appeared or vanished, and the
  // names of archived folders that appeared, vanished or changed (by the
  // name they had under agent-task/). Sorted, unique.
  std::vector<std::string> changed;
};

class workspace_scanner : public task_scan_view {
public:
  workspace_scanner(std::filesystem::path workspace, std::optional<std::string> group,
                    scanner_watch mode = scanner_watch::inotify);

  // `also`: folders known to have changed (e.g. the folder of a task whose
  // agent just ended); they are read again even without an event.
  result<scan_refresh> refresh(const std::vector<std::filesystem::path>& also = {});

  const std::filesystem::path& workspace() const { return workspace_; }
  const std::filesystem::path& task_root() const override { return task_root_; }
  const std::map<std::string, shared_task>& tasks() const override { return tasks_; }
  // The same answer as dependency_candidates(task_root, group, predecessor).
  std::vector<std::filesystem::path> completed_folders(std::string_view group,
                                                       std::string_view predecessor) const override;
  // Every completed folder of `group` (in agent-task/ and the archive).
  std::vector<completed_folder> completed_in(const std::string& group) const;
  // What `refreshed` (this scanner's last refresh) read, for a copy of the
  // scan (scan_copy): the tasks it read (shared with this scanner, not
  // copied) and the completed folders of the groups it names.
  scan_reading reading(const scan_refresh& refreshed) const;
  // Full scans done so far (the first refresh is one).
  int full_scans() const { return full_scans_; }
  // Folders read by the last refresh.
  std::size_t folders_read() const { return folders_read_; }

private:
  status full_scan(std::set<std::string>& changed);
  bool sync_root(std::set<std::string>& changed);
  // The group's folder and its subfolders not read before are read, or,
  // given `reads`, added to it for the caller to read with others.
  void sync_group(const std::string& group, std::set<std::string>& changed,
                  std::vector<std::filesystem::path>* reads = nullptr);
  void drop_group(const std::string& group, std::set<std::string>& changed);
  void read_candidate(const std::filesystem::path& dir, std::set<std::string>& changed);
  // read_candidate for several folders, read together (read_task_folders).
  void read_candidates(const std::vector<std::filesystem::path>& dirs,
                       std::set<std::string>& changed);
  void drop_candidate(const std::string& dir, std::set<std::string>& changed);
  // real: dir's canonical path when the caller knows it (the child of a
  // listed folder that is no link); empty: found when it is needed.
  void sync_archive(const std::filesystem::path& dir, int depth, std::set<std::string>& changed,
                    std::filesystem::path real = {});
  void drop_archive(const std::string& dir, std::set<std::string>& changed);
  void handle_dirty(const std::filesystem::path& dir, const std::set<std::string>& names,
                    std::set<std::string>& changed);
  static bool is_subfolder_event(const std::filesystem::path& dir, const std::string& name,
                                 const std::set<std::string>& known);
  bool watch(const std::filesystem::path& dir);

  std::filesystem::path workspace_in_;
  std::optional<std::string> group_;
  scanner_watch mode_;
  std::filesystem::path workspace_;
  std::filesystem::path task_root_;
  std::unique_ptr<folder_watch> watch_;
  bool need_full_ = true;
  int full_scans_ = 0;
  std::size_t folders_read_ = 0;

  std::set<std::string> groups_;                             // groups looked at
  std::map<std::string, std::set<std::string>> subfolders_;  // group -> subfolder names
  std::map<std::string, std::string> by_dir_;                // candidate folder -> task name
  std::map<std::string, shared_task> tasks_;                // name -> task
  // Archive: folder -> child folder names (archive, years, months, month/group),
  // and per month/group folder the archived folders holding complete.log.
  std::map<std::string, std::set<std::string>> archive_children_;
  std::map<std::string, std::map<std::string, std::filesystem::path>> archive_logs_;
  std::map<std::string, std::set<std::string>> archive_by_group_; // group -> month/group folders
};

} // namespace ad::runtime

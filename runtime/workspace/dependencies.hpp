#pragma once
// Dependency resolution for subtasks (SPEC sections 2 and 4). Subtask
// `03+01,02_x` of group g needs exactly one `01_*` (or `01+*`) folder and one
// `02_*` folder holding complete.log, in agent-task/g/ or in any
// agent-task/archive/<YYYY>/<MM>/g/. No match leaves the task waiting; several
// matches are an ambiguity error; a predecessor that is still running keeps the
// dependent waiting even when its complete.log already exists. Pure apart from
// listing folders; never throws, never writes.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

enum class dependency_status : uint8_t {
  none,        // the task has no predecessors
  satisfied,   // every predecessor has exactly one completed folder
  missing,     // some predecessor has no completed folder yet
  ambiguous,   // some predecessor has several completed folders
  running,     // some predecessor is still running
};

std::string_view to_string(dependency_status state);

struct dependency_report {
  dependency_status state = dependency_status::none;
  std::vector<std::string> missing;    // predecessor indexes without a completed folder
  std::vector<std::string> running;    // predecessor indexes still running
  // For ambiguous predecessors: "01=<path>,<path>".
  std::vector<std::string> ambiguous;

  // "none", "satisfied", "missing 01,02", "ambiguous 01", "running 01".
  std::string label() const;
  // One human sentence.
  std::string reason() const;
};

// Whether a folder name names `predecessor`: "<pred>_*" or "<pred>+*", not
// hidden.
bool names_predecessor(std::string_view folder, std::string_view predecessor);

// Completed folders (their complete.log, canonical) for predecessor index
// `predecessor` of a task in `group`, in the group and its archive months.
std::vector<std::filesystem::path> dependency_candidates(const std::filesystem::path& task_root,
                                                         std::string_view group,
                                                         std::string_view predecessor);

// The archive's folders of some groups, as one listing found them.
struct archived_listing {
  // A folder agent-task/archive/<YYYY>/<MM>/<group>/ listed.
  struct place {
    std::string group;
    std::filesystem::path dir;
  };
  struct folder {
    std::size_t place = 0;   // index into places
    std::string name;
    bool completed = false;  // whether its complete.log existed then
  };
  std::vector<std::string> groups;  // the groups listed
  std::vector<place> places;        // month by month, each month's groups in groups' order
  std::vector<folder> folders;      // place by place, each place's folders sorted by name

  std::filesystem::path folder_path(const folder& f) const { return places[f.place].dir / f.name; }
};

// The folders of the archive for these groups (archive_months' months), each
// with whether it holds complete.log; one listing per month and group.
archived_listing list_archived_folders(const std::filesystem::path& task_root,
                                       std::vector<std::string> groups);

// The completed folders of each group asked about, in agent-task/<group>/
// and every archive month, listed once at the first question about the group:
// dependency_candidates' answers for a whole workspace at one listing per
// folder instead of one per predecessor of every task (a dry run or
// `status` over 10,000 tasks). A group's folders are those listed at the
// first question about it; a folder's complete.log is looked for once, when
// a predecessor first names the folder, so a scan stats the folders tasks
// depend on rather than every folder. A single owner, not for a tree that
// changes.
class completed_index {
public:
  explicit completed_index(std::filesystem::path task_root);
  // With the tasks a scan of the same workspace just read (they must outlive
  // the index): a group's folder that the scan read as a task needs no look
  // for its complete.log, the scan's listing of the folder said whether it
  // holds one.
  completed_index(std::filesystem::path task_root, const std::vector<scanned_task>& scanned);
  // The same folders as dependency_candidates(task_root, group, predecessor),
  // resolved only when several match (one folder reached by two names
  // counts once); a single match keeps the path it was listed by.
  std::vector<std::filesystem::path> candidates(std::string_view group,
                                                std::string_view predecessor);
  // The archive's folders of some groups as list_archived_folders(task_root,
  // ...) just found them: such a group's archive is not listed again, and
  // the listing's word on each complete.log stands.
  void know_archived(archived_listing listing) { archived_ = std::move(listing); }

private:
  struct completed_entry {
    std::string folder;             // its name
    std::size_t dir = 0;            // the folder it was listed in: an index into dirs_
    std::optional<bool> completed;  // whether complete.log exists, once asked
  };
  // Its complete.log as listed; resolved when it matches.
  std::filesystem::path complete_log(const completed_entry& e) const {
    return dirs_[e.dir] / e.folder / "complete.log";
  }
  std::filesystem::path task_root_;
  std::vector<std::filesystem::path> months_; // archive/<YYYY>/<MM>, listed once
  bool months_read_ = false;
  std::unordered_map<std::string_view, bool> scanned_; // task name -> holds complete.log
  archived_listing archived_;               // groups whose archive was listed ahead
  std::vector<std::filesystem::path> dirs_;  // the folders listed, for completed_entry
  std::map<std::string, std::vector<completed_entry>, std::less<>> groups_;
};

// running_tasks: names of tasks currently running (here or in another live
// dispatcher); a predecessor among them keeps the task waiting.
dependency_report resolve_dependencies(const std::filesystem::path& task_root,
                                       const scanned_task& task,
                                       const std::set<std::string>& running_tasks = {});
// The same with the predecessors' folders from an index.
dependency_report resolve_dependencies(completed_index& completed, const scanned_task& task,
                                       const std::set<std::string>& running_tasks = {});

// resolve_dependencies in its two steps, for a caller that reads the folders
// before it knows what runs (status reads them while it reads the state):
// the predecessors of `task` among `running_tasks` (a `running` report, or
// std::nullopt when none of them runs), and the predecessors as the folders
// show them whatever runs. resolve_dependencies is the first when it has a
// value, else the second.
std::optional<dependency_report> running_predecessors(const scanned_task& task,
                                                      const std::set<std::string>& running_tasks);
dependency_report settled_dependencies(completed_index& completed, const scanned_task& task);

} // namespace ad::runtime

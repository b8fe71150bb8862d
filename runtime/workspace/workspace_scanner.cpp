#include "runtime/workspace/workspace_scanner.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>

#include "runtime/workspace/path_resolve.hpp"
#include "runtime/workspace/subfolders.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool is_directory_path(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

workspace_scanner::workspace_scanner(fs::path workspace, std::optional<std::string> group,
                                     scanner_watch mode)
  : workspace_in_(std::move(workspace)), group_(std::move(group)), mode_(mode) {}

bool workspace_scanner::watch(const fs::path& dir) {
  if (mode_ != scanner_watch::inotify || !watch_)
    return false;
  if (watch_->watch(dir))
    return true;
  // A folder that vanished since it was listed needs no watch: its parent's
  // events report it. Otherwise (watch limit, no memory) a change could go
  // unseen: scan in full from now on.
  if (errno == ENOENT || errno == ENOTDIR)
    return false;
  mode_ = scanner_watch::none;
  return false;
}

void workspace_scanner::drop_candidate(const std::string& dir, std::set<std::string>& changed) {
  auto it = by_dir_.find(dir);
  if (it == by_dir_.end())
    return;
  changed.insert(it->second);
  tasks_.erase(it->second);
  by_dir_.erase(it);
}

void workspace_scanner::read_candidate(const fs::path& dir, std::set<std::string>& changed) {
  read_candidates({dir}, changed);
}

void workspace_scanner::read_candidates(const std::vector<fs::path>& dirs,
                                        std::set<std::string>& changed) {
  // Each folder is watched before it is read, so a change after its reading
  // has an event.
  for (const auto& dir : dirs) {
    watch(dir);
    ++folders_read_;
  }
  auto read = read_task_folders(workspace_, dirs);
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    drop_candidate(dirs[i].string(), changed);
    auto& task = read[i].task;
    if (!task)
      continue;
    changed.insert(task->name);
    by_dir_[dirs[i].string()] = task->name;
    auto name = task->name;
    tasks_.insert_or_assign(std::move(name), std::move(*task));
  }
}

void workspace_scanner::drop_group(const std::string& group, std::set<std::string>& changed) {
  auto dir = (task_root_ / group).string();
  drop_candidate(dir, changed);
  for (const auto& sub : subfolders_[group])
    drop_candidate((task_root_ / group / sub).string(), changed);
  subfolders_.erase(group);
  groups_.erase(group);
}

void workspace_scanner::sync_group(const std::string& group, std::set<std::string>& changed,
                                   std::vector<fs::path>* reads) {
  auto dir = task_root_ / group;
  watch(dir);
  auto now = subfolder_names(dir);
  if (!now) {
    drop_group(group, changed);
    return;
  }
  groups_.insert(group);
  auto& known = subfolders_[group];
  for (const auto& sub : known)
    if (!now->count(sub))
      drop_candidate((dir / sub).string(), changed);
  std::vector<fs::path> own;
  auto& fresh = reads ? *reads : own;
  fresh.push_back(dir);
  for (const auto& sub : *now)
    if (!known.count(sub))
      fresh.push_back(dir / sub);
  if (!reads)
    read_candidates(fresh, changed);
  known = std::move(*now);
}

void workspace_scanner::drop_archive(const std::string& dir, std::set<std::string>& changed) {
  if (auto it = archive_children_.find(dir); it != archive_children_.end()) {
    auto children = std::move(it->second);
    archive_children_.erase(it);
    for (const auto& c : children)
      drop_archive((fs::path(dir) / c).string(), changed);
  }
  if (auto it = archive_logs_.find(dir); it != archive_logs_.end()) {
    auto group = fs::path(dir).filename().string();
    for (const auto& [folder, log] : it->second)
      changed.insert(group + "/" + folder);
    archive_logs_.erase(it);
    archive_by_group_[group].erase(dir);
  }
}

// depth: 0 archive, 1 year, 2 month, 3 month/group, 4 archived folder.
// A log's canonical path is its folder's followed by "complete.log" unless
// the log is a link; a folder's is its parent's followed by its name unless
// it is a link. So a listed archive resolves each of its thousands of folders
// with one lookup from its group folder's handle, not a walk of every
// component of its path.
void workspace_scanner::sync_archive(const fs::path& dir, int depth, std::set<std::string>& changed,
                                     fs::path real) {
  watch(dir);
  ++folders_read_;
  if (depth == 4) {
    auto parent = dir.parent_path().string();
    auto folder = dir.filename().string();
    auto group = dir.parent_path().filename().string();
    auto& logs = archive_logs_[parent];
    auto log = dir / "complete.log";
    struct stat st {};
    if (::lstat(log.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      logs[folder] = (real.empty() ? canonical_or_same(dir) : real) / "complete.log";
    else if (is_file(log))
      logs[folder] = canonical_or_same(log);
    else
      logs.erase(folder);
    changed.insert(group + "/" + folder);
    return;
  }
  // A month's group folder is listed with its folders' kinds, and their
  // logs are looked up from its handle once they are watched: an archived
  // folder costs its watch and one lookup.
  std::optional<std::vector<listed_folder>> archived;
  std::optional<std::set<std::string>> now;
  if (depth == 3) {
    archived = listed_folders(dir);
    if (archived) {
      now.emplace();
      for (const auto& f : *archived)
        now->insert(now->end(), f.name);
    }
  } else {
    now = subfolder_names(dir);
  }
  if (!now) {
    drop_archive(dir.string(), changed);
    return;
  }
  auto key = dir.string();
  if (depth == 3) {
    archive_by_group_[dir.filename().string()].insert(key);
    archive_logs_[key];
  }
  auto& known = archive_children_[key];
  std::vector<std::string> added;
  for (const auto& c : known)
    if (!now->count(c)) {
      drop_archive((dir / c).string(), changed);
      if (depth == 3) {
        archive_logs_[key].erase(c);
        changed.insert(dir.filename().string() + "/" + c);
      }
    }
  for (const auto& c : *now)
    if (!known.count(c))
      added.push_back(c);
  known = std::move(*now);
  if (!added.empty() && real.empty())
    real = canonical_or_same(dir);
  if (archived) {
    std::vector<listed_folder> fresh;
    for (auto& f : *archived)
      if (std::binary_search(added.begin(), added.end(), f.name)) {
        watch(dir / f.name);  // before its log is looked at
        ++folders_read_;
        fresh.push_back(std::move(f));
      }
    look_up_file(dir, "complete.log", fresh);
    auto group = dir.filename().string();
    auto& logs = archive_logs_[key];
    for (const auto& f : fresh) {
      if (f.file == listed_folder::file_kind::regular)
        logs[f.name] = (f.link ? canonical_or_same(dir / f.name) : real / f.name) / "complete.log";
      else if (f.file == listed_folder::file_kind::linked)
        logs[f.name] = canonical_or_same(dir / f.name / "complete.log");
      else
        logs.erase(f.name);
      changed.insert(group + "/" + f.name);
    }
    return;
  }
  for (const auto& c : added) {
    auto sub = dir / c;
    struct stat st {};
    bool link = ::lstat(sub.c_str(), &st) != 0 || S_ISLNK(st.st_mode);
    sync_archive(sub, depth + 1, changed, link ? fs::path() : real / c);
  }
}

bool workspace_scanner::sync_root(std::set<std::string>& changed) {
  watch(task_root_);
  auto now = subfolder_names(task_root_);
  if (!now)
    return false;
  std::set<std::string> wanted;
  for (const auto& g : *now)
    if (g != "archive" && (!group_ || g == *group_))
      wanted.insert(g);
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto g = *it++;
    if (!wanted.count(g))
      drop_group(g, changed);
  }
  // The new groups' folders are read together: a first scan reads every
  // task folder in one read_task_folders, on all its threads at once.
  std::vector<fs::path> reads;
  for (const auto& g : wanted)
    if (!groups_.count(g))
      sync_group(g, changed, &reads);
  read_candidates(reads, changed);
  auto archive = task_root_ / "archive";
  if (now->count("archive")) {
    if (!archive_children_.count(archive.string()))
      sync_archive(archive, 0, changed);
  } else {
    drop_archive(archive.string(), changed);
  }
  return true;
}

status workspace_scanner::full_scan(std::set<std::string>& changed) {
  for (const auto& [name, t] : tasks_)
    changed.insert(name);
  for (const auto& [dir, logs] : archive_logs_)
    for (const auto& [folder, log] : logs)
      changed.insert(fs::path(dir).filename().string() + "/" + folder);
  groups_.clear();
  subfolders_.clear();
  by_dir_.clear();
  tasks_.clear();
  archive_children_.clear();
  archive_logs_.clear();
  archive_by_group_.clear();
  watch_.reset();
  if (mode_ == scanner_watch::inotify) {
    watch_ = std::make_unique<folder_watch>();
    if (!watch_->usable())
      mode_ = scanner_watch::none;
  }
  ++full_scans_;
  if (!sync_root(changed))
    return status::not_found("no agent-task/ folder in workspace " + workspace_.string());
  need_full_ = false;
  return status::ok();
}

bool workspace_scanner::is_subfolder_event(const fs::path& dir, const std::string& name,
                                           const std::set<std::string>& known) {
  if (name.empty())
    return false;
  if (name.back() == '/')
    return true;
  return known.count(name) != 0 || is_directory_path(dir / name);
}

// `names` are the entries with events (folder_events); "*" asks for a full
// re-read of the folder (a folder the caller named, or one not known yet).
void workspace_scanner::handle_dirty(const fs::path& dir, const std::set<std::string>& names,
                                     std::set<std::string>& changed) {
  auto rel = dir.lexically_relative(task_root_);
  if (rel.empty() || rel.native().starts_with(".."))
    return;
  std::vector<std::string> parts;
  for (const auto& p : rel)
    if (p != ".")
      parts.push_back(p.string());
  bool relist = names.count("*") != 0;
  auto child_of = [](const std::string& name) {
    return name.ends_with('/') ? name.substr(0, name.size() - 1) : name;
  };

  if (parts.empty()) {
    if (relist) {
      sync_root(changed);
      return;
    }
    for (const auto& name : names) {
      auto g = child_of(name);
      if (!is_subfolder_event(task_root_, name, groups_))
        continue;
      auto sub = task_root_ / g;
      bool exists = is_directory_path(sub);
      if (g == "archive") {
        if (!exists)
          drop_archive(sub.string(), changed);
        else if (!archive_children_.count(sub.string()))
          sync_archive(sub, 0, changed);
        continue;
      }
      if (group_ && g != *group_)
        continue;
      if (exists && !groups_.count(g))
        sync_group(g, changed);
      else if (!exists && groups_.count(g))
        drop_group(g, changed);
    }
    return;
  }

  if (parts.front() == "archive") {
    auto depth = static_cast<int>(parts.size()) - 1;
    auto key = dir.string();
    auto parent = dir.parent_path().string();
    if (depth == 4) {
      auto known = archive_children_.find(parent);
      if (known != archive_children_.end() && known->second.count(parts.back()))
        sync_archive(dir, 4, changed);
      else if (relist)
        handle_dirty(dir.parent_path(), {"*"}, changed);
      return;
    }
    if (depth > 4)
      return;
    if (relist || !archive_children_.count(key)) {
      // A folder not known yet is reached through its parent's listing.
      if (depth > 0 && !archive_children_.count(parent)) {
        handle_dirty(dir.parent_path(), {"*"}, changed);
        return;
      }
      if (depth > 0 && !archive_children_[parent].count(parts.back())) {
        sync_archive(dir.parent_path(), depth - 1, changed);
        return;
      }
      if (depth == 0 && !archive_children_.count(key)) {
        sync_root(changed);
        return;
      }
      sync_archive(dir, depth, changed);
      return;
    }
    auto& known = archive_children_[key];
    for (const auto& name : names) {
      if (!is_subfolder_event(dir, name, known))
        continue;
      auto c = child_of(name);
      auto sub = dir / c;
      bool exists = is_directory_path(sub);
      if (exists && !known.count(c)) {
        known.insert(c);
        sync_archive(sub, depth + 1, changed);
      } else if (!exists && known.count(c)) {
        known.erase(c);
        drop_archive(sub.string(), changed);
        if (depth == 3) {
          archive_logs_[key].erase(c);
          changed.insert(dir.filename().string() + "/" + c);
        }
      } else if (exists && depth == 3) {
        sync_archive(sub, 4, changed);
      }
    }
    return;
  }

  const auto& group = parts.front();
  if (!groups_.count(group)) {
    if (!group_ || group == *group_)
      sync_root(changed);
    return;
  }
  if (parts.size() == 1) {
    if (relist) {
      sync_group(group, changed);
      return;
    }
    auto& known = subfolders_[group];
    bool itself = false;
    for (const auto& name : names) {
      if (!is_subfolder_event(dir, name, known)) {
        itself = true; // a file of the group folder, or the folder itself
        continue;
      }
      auto c = child_of(name);
      auto sub = dir / c;
      bool exists = is_directory_path(sub);
      if (exists && !known.count(c)) {
        known.insert(c);
        read_candidate(sub, changed);
      } else if (!exists && known.count(c)) {
        known.erase(c);
        drop_candidate(sub.string(), changed);
      } else if (exists) {
        read_candidate(sub, changed);
      }
    }
    if (itself)
      read_candidate(dir, changed);
  } else if (parts.size() == 2) {
    if (subfolders_[group].count(parts[1]))
      read_candidate(dir, changed);
    else if (relist && is_directory_path(dir))
      sync_group(group, changed);
    // Otherwise it is gone: its group's events drop it.
  }
}

result<scan_refresh> workspace_scanner::refresh(const std::vector<fs::path>& also) {
  folders_read_ = 0;
  if (workspace_.empty()) {
    if (group_ && !is_valid_group_name(*group_))
      return status::invalid_argument(
        "bad task group '" + *group_ + "': expected one folder name under agent-task/ (not archive)");
    std::error_code ec;
    auto cwd = fs::current_path(ec);
    auto resolved = resolve_path(workspace_in_, ec ? fs::path("/") : cwd);
    if (!resolved.is_ok())
      return resolved.error().with_context("workspace");
    workspace_ = *resolved;
    task_root_ = workspace_ / "agent-task";
  }
  std::error_code ec;
  if (!fs::is_directory(workspace_, ec))
    return status::not_found("workspace " + workspace_.string() + " is not a folder");
  if (!fs::is_directory(task_root_, ec))
    return status::not_found("no agent-task/ folder in workspace " + workspace_.string());

  std::set<std::string> changed;
  scan_refresh out;
  folder_events events;
  if (!need_full_ && mode_ == scanner_watch::inotify && watch_)
    events = watch_->drain();
  if (need_full_ || mode_ != scanner_watch::inotify || !watch_ || events.overflow) {
    auto st = full_scan(changed);
    if (!st.is_ok())
      return st;
    out.full = true;
  } else {
    auto dirty = std::move(events.changed);
    for (const auto& d : also)
      dirty[d].insert("*");
    // Parents first: a group's listing settles before its folders are read.
    for (const auto& [d, names] : dirty)
      handle_dirty(d, names, changed);
    if (mode_ != scanner_watch::inotify) {
      // A watch failed while re-reading: this refresh is completed in full.
      auto st = full_scan(changed);
      if (!st.is_ok())
        return st;
      out.full = true;
    }
  }
  out.changed.assign(changed.begin(), changed.end());
  return out;
}

std::vector<completed_folder> workspace_scanner::completed_in(const std::string& group) const {
  std::vector<completed_folder> out;
  if (auto it = subfolders_.find(group); it != subfolders_.end()) {
    for (const auto& sub : it->second) {
      auto dir = task_root_ / group / sub;
      auto named = by_dir_.find(dir.string());
      if (named == by_dir_.end())
        continue;
      auto t = tasks_.find(named->second);
      if (t != tasks_.end() && t->second->has_complete_log)
        out.push_back({sub, canonical_or_same(dir / "complete.log").string()});
    }
  }
  if (auto it = archive_by_group_.find(group); it != archive_by_group_.end()) {
    for (const auto& month_group : it->second) {
      auto logs = archive_logs_.find(month_group);
      if (logs == archive_logs_.end())
        continue;
      for (const auto& [folder, log] : logs->second)
        out.push_back({folder, log.string()});
    }
  }
  return out;
}

std::vector<fs::path> workspace_scanner::completed_folders(std::string_view group,
                                                           std::string_view predecessor) const {
  return matching_folders(completed_in(std::string(group)), predecessor);
}

scan_reading workspace_scanner::reading(const scan_refresh& refreshed) const {
  scan_reading out;
  out.full = refreshed.full;
  out.changed = refreshed.changed;
  std::set<std::string> groups;
  if (refreshed.full) {
    for (const auto& [name, t] : tasks_)
      out.tasks.push_back(t);
    for (const auto& [group, subs] : subfolders_)
      groups.insert(group);
    for (const auto& [group, folders] : archive_by_group_)
      groups.insert(group);
  } else {
    for (const auto& name : refreshed.changed) {
      if (auto t = tasks_.find(name); t != tasks_.end())
        out.tasks.push_back(t->second);
      groups.insert(task_group(name));
    }
  }
  for (const auto& g : groups)
    out.completed[g] = completed_in(g);
  return out;
}

} // namespace ad::runtime

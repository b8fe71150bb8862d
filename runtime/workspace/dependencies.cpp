#include "runtime/workspace/dependencies.hpp"

#include <algorithm>

#include "runtime/core/text.hpp"
#include "runtime/workspace/path_resolve.hpp"
#include "runtime/workspace/subfolders.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

bool names_predecessor(std::string_view folder, std::string_view predecessor) {
  return !folder.starts_with(".") && folder.size() > predecessor.size() &&
         folder.starts_with(predecessor) &&
         (folder[predecessor.size()] == '_' || folder[predecessor.size()] == '+');
}

namespace {

bool log_exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

void collect(const fs::path& group_dir, std::string_view predecessor, std::set<fs::path>& found) {
  each_entry_name(group_dir, [&](std::string_view name) {
    if (!names_predecessor(name, predecessor))
      return;
    auto log = group_dir / name / "complete.log";
    if (log_exists(log))
      found.insert(canonical_or_same(log));
  });
}

} // namespace

std::string_view to_string(dependency_status state) {
  switch (state) {
  case dependency_status::none: return "none";
  case dependency_status::satisfied: return "satisfied";
  case dependency_status::missing: return "missing";
  case dependency_status::ambiguous: return "ambiguous";
  case dependency_status::running: return "running";
  }
  return "?";
}

std::string dependency_report::label() const {
  switch (state) {
  case dependency_status::missing: return "missing " + join(missing, ",");
  case dependency_status::running: return "running " + join(running, ",");
  case dependency_status::ambiguous: {
    std::vector<std::string> indexes;
    for (const auto& a : ambiguous)
      indexes.push_back(a.substr(0, a.find('=')));
    return "ambiguous " + join(indexes, ",");
  }
  default: return std::string(to_string(state));
  }
}

std::string dependency_report::reason() const {
  switch (state) {
  case dependency_status::none: return "no predecessors";
  case dependency_status::satisfied: return "every predecessor is complete";
  case dependency_status::missing:
    return "waiting for predecessor complete.log: " + join(missing, ",");
  case dependency_status::running:
    return "waiting for running predecessor to finish: " + join(running, ",");
  case dependency_status::ambiguous:
    return "ambiguous predecessors (several completed folders): " + join(ambiguous, "; ");
  }
  return {};
}

archived_listing list_archived_folders(const fs::path& task_root, std::vector<std::string> groups) {
  archived_listing out;
  out.groups = std::move(groups);
  for (const auto& month : archive_months(task_root))
    for (const auto& group : out.groups) {
      auto dir = month / group;
      auto folders = subfolders_holding(dir, "complete.log");
      if (folders.empty())
        continue;
      out.places.push_back({group, std::move(dir)});
      for (auto& f : folders)
        out.folders.push_back({out.places.size() - 1, std::move(f.name), f.holds});
    }
  return out;
}

std::vector<fs::path> dependency_candidates(const fs::path& task_root, std::string_view group,
                                            std::string_view predecessor) {
  std::set<fs::path> found;
  collect(task_root / group, predecessor, found);
  for (const auto& month : archive_months(task_root))
    collect(month / group, predecessor, found);
  return {found.begin(), found.end()};
}

completed_index::completed_index(fs::path task_root) : task_root_(std::move(task_root)) {}

completed_index::completed_index(fs::path task_root, const std::vector<scanned_task>& scanned)
    : task_root_(std::move(task_root)) {
  scanned_.reserve(scanned.size());
  for (const auto& task : scanned)
    scanned_.emplace(task.name, task.has_complete_log);
}

std::vector<fs::path> completed_index::candidates(std::string_view group,
                                                  std::string_view predecessor) {
  auto it = groups_.find(group);
  if (it == groups_.end()) {
    // Hidden names never name a predecessor: they are not kept.
    std::vector<completed_entry> entries;
    std::string task_name(group);
    task_name += '/';
    const std::size_t prefix = task_name.size();
    dirs_.push_back(task_root_ / group);
    const std::size_t group_dir = dirs_.size() - 1;
    each_entry_name(dirs_.back(), [&](std::string_view name) {
      if (name.starts_with("."))
        return;
      task_name.resize(prefix);
      task_name += name;
      auto known = scanned_.find(task_name);
      entries.push_back({std::string(name), group_dir,
                         known == scanned_.end() ? std::nullopt : std::optional(known->second)});
    });
    const auto& ahead = archived_.groups;
    if (std::find(ahead.begin(), ahead.end(), group) != ahead.end()) {
      std::vector<std::size_t> dir_of(archived_.places.size(), 0);
      for (std::size_t p = 0; p < archived_.places.size(); ++p)
        if (archived_.places[p].group == group) {
          dirs_.push_back(archived_.places[p].dir);
          dir_of[p] = dirs_.size() - 1;
        }
      for (const auto& f : archived_.folders)
        if (archived_.places[f.place].group == group && !f.name.starts_with("."))
          entries.push_back({f.name, dir_of[f.place], f.completed});
    } else {
      if (!months_read_) {
        months_ = archive_months(task_root_);
        months_read_ = true;
      }
      for (const auto& month : months_) {
        dirs_.push_back(month / group);
        const std::size_t dir = dirs_.size() - 1;
        each_entry_name(dirs_.back(), [&](std::string_view name) {
          if (!name.starts_with("."))
            entries.push_back({std::string(name), dir, std::nullopt});
        });
      }
    }
    it = groups_.emplace(std::string(group), std::move(entries)).first;
  }
  // A folder's complete.log is looked for only once the folder matches: a
  // group's archive holds thousands of folders, a predecessor names one or
  // two of them.
  std::vector<fs::path> matched;
  for (auto& e : it->second) {
    if (!names_predecessor(e.folder, predecessor))
      continue;
    auto log = complete_log(e);
    if (!e.completed)
      e.completed = log_exists(log);
    if (*e.completed)
      matched.push_back(std::move(log));
  }
  if (matched.size() <= 1)
    return matched;
  std::set<fs::path> found;
  for (const auto& log : matched)
    found.insert(canonical_or_same(log)); // one folder by two names counts once
  return {found.begin(), found.end()};
}

namespace {

bool has_predecessors(const scanned_task& task) {
  return !task.deps.empty() && task.name.find('/') != std::string::npos;
}

template <class Candidates>
dependency_report settle_with(Candidates candidates_of, const scanned_task& task) {
  dependency_report report;
  if (!has_predecessors(task))
    return report;
  for (const auto& pred : task.deps) {
    auto candidates = candidates_of(task.group, pred);
    if (candidates.empty()) {
      report.missing.push_back(pred);
    } else if (candidates.size() > 1) {
      std::string entry = pred + "=";
      for (std::size_t i = 0; i < candidates.size(); ++i)
        entry += (i ? "," : "") + candidates[i].parent_path().string();
      report.ambiguous.push_back(entry);
    }
  }
  report.state = !report.ambiguous.empty() ? dependency_status::ambiguous
                 : !report.missing.empty() ? dependency_status::missing
                                           : dependency_status::satisfied;
  return report;
}

template <class Candidates>
dependency_report resolve_with(Candidates candidates_of, const scanned_task& task,
                               const std::set<std::string>& running_tasks) {
  if (auto running = running_predecessors(task, running_tasks))
    return std::move(*running);
  return settle_with(candidates_of, task);
}

} // namespace

std::optional<dependency_report> running_predecessors(const scanned_task& task,
                                                      const std::set<std::string>& running_tasks) {
  if (!has_predecessors(task))
    return std::nullopt;
  // A predecessor still running keeps the dependent waiting.
  dependency_report report;
  for (const auto& pred : task.deps) {
    for (const auto& name : running_tasks) {
      if (!name.starts_with(task.group + "/"))
        continue;
      if (names_predecessor(std::string_view(name).substr(task.group.size() + 1), pred)) {
        report.running.push_back(pred);
        break;
      }
    }
  }
  if (report.running.empty())
    return std::nullopt;
  report.state = dependency_status::running;
  return report;
}

dependency_report settled_dependencies(completed_index& completed, const scanned_task& task) {
  return settle_with(
    [&](std::string_view group, std::string_view pred) {
      return completed.candidates(group, pred);
    },
    task);
}

dependency_report resolve_dependencies(const fs::path& task_root, const scanned_task& task,
                                       const std::set<std::string>& running_tasks) {
  return resolve_with(
    [&](std::string_view group, std::string_view pred) {
      return dependency_candidates(task_root, group, pred);
    },
    task, running_tasks);
}

dependency_report resolve_dependencies(completed_index& completed, const scanned_task& task,
                                       const std::set<std::string>& running_tasks) {
  return resolve_with(
    [&](std::string_view group, std::string_view pred) {
      return completed.candidates(group, pred);
    },
    task, running_tasks);
}

} // namespace ad::runtime

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

// Each folder of group_dir whose name `keep` accepts, with the path its
// complete.log would have.
template <class Keep, class Found>
void list_folders(const fs::path& group_dir, Keep keep, Found found) {
  std::error_code ec;
  fs::directory_iterator it(group_dir, ec);
  if (ec)
    return;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      return;
    auto name = it->path().filename().string();
    if (keep(name))
      found(name, it->path() / "complete.log");
  }
}

bool log_exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

void collect(const fs::path& group_dir, std::string_view predecessor, std::set<fs::path>& found) {
  list_folders(
    group_dir, [&](const std::string& name) { return names_predecessor(name, predecessor); },
    [&](const std::string&, fs::path log) {
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
    if (!months_read_) {
      months_ = archive_months(task_root_);
      months_read_ = true;
    }
    std::vector<completed_entry> entries;
    auto keep_visible = [](const std::string& name) { return !name.starts_with("."); };
    auto add = [&](const std::string& name, fs::path log) {
      entries.push_back({name, std::move(log), std::nullopt});
    };
    std::string task_name(group);
    task_name += '/';
    const std::size_t prefix = task_name.size();
    list_folders(task_root_ / group, keep_visible, [&](const std::string& name, fs::path log) {
      add(name, std::move(log));
      task_name.resize(prefix);
      task_name += name;
      auto known = scanned_.find(task_name);
      if (known != scanned_.end())
        entries.back().completed = known->second;
    });
    for (const auto& month : months_)
      list_folders(month / group, keep_visible, [&](const std::string& name, fs::path log) {
        auto known = archived_logs_.find(log.native());
        add(name, std::move(log));
        if (known != archived_logs_.end())
          entries.back().completed = known->second;
      });
    it = groups_.emplace(std::string(group), std::move(entries)).first;
  }
  // A folder's complete.log is looked for only once the folder matches: a
  // group's archive holds thousands of folders, a predecessor names one or
  // two of them.
  std::vector<const fs::path*> matched;
  for (auto& e : it->second) {
    if (!names_predecessor(e.folder, predecessor))
      continue;
    if (!e.completed)
      e.completed = log_exists(e.complete_log);
    if (*e.completed)
      matched.push_back(&e.complete_log);
  }
  if (matched.size() == 1)
    return {*matched.front()};
  std::set<fs::path> found;
  for (const auto* log : matched)
    found.insert(canonical_or_same(*log)); // one folder by two names counts once
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

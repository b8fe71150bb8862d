#include "runtime/run/named_paths.hpp"

#include <algorithm>
#include <sys/stat.h>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/workspace/dependencies.hpp"
#include "runtime/workspace/task_name.hpp"
#include "runtime/workspace/write_set.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

struct attempt_window {
  std::string identity;
  millis started = 0;
  millis finished = 0;
};

// This work unit's attempts, from the locators in the runs folder.
std::vector<attempt_window> attempt_windows(const named_path_query& q) {
  std::vector<attempt_window> out;
  std::string prefix = safe_task_name(q.task) + "__p" + std::to_string(q.plan_number) + "__";
  std::error_code ec;
  for (fs::directory_iterator it(q.runs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    auto first = name.find("__");
    if (first == std::string::npos || name.compare(first + 2, prefix.size(), prefix) != 0)
      continue;
    auto text = read_file(it->path() / "locator.json");
    if (!text)
      continue;
    auto doc = parse_json(*text, "locator");
    if (!doc)
      continue;
    auto loc = locator_from_json(*doc);
    if (!loc)
      continue;
    out.push_back({loc->identity, loc->started_at, loc->finished_at.value_or(q.now)});
  }
  std::sort(out.begin(), out.end(),
            [](const attempt_window& a, const attempt_window& b) { return a.started < b.started; });
  return out;
}

// Completed predecessors of the task whose PLAN claims path: "<group>/<folder>".
std::vector<std::string> predecessors_claiming(const named_path_query& q, const std::string& path) {
  std::vector<std::string> out;
  auto slash = q.task.rfind('/');
  if (slash == std::string::npos)
    return out;
  std::string group = q.task.substr(0, q.task.find('/'));
  auto parsed = parse_subtask_name(q.task.substr(slash + 1));
  if (!parsed)
    return out;
  for (const auto& dep : parsed->deps) {
    for (const auto& complete : dependency_candidates(q.task_root, group, dep)) {
      fs::path folder = complete.parent_path();
      std::error_code ec;
      for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        auto file = it->path().filename().string();
        bool plan = parse_plan_file_name(file).has_value() || file.rfind("plan_", 0) == 0;
        if (!plan)
          continue;
        auto report = inspect_write_set_file(it->path(), q.workspace);
        if (std::find(report.paths.begin(), report.paths.end(), path) != report.paths.end()) {
          std::string name = group + "/" + folder.filename().string();
          if (std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
          break;
        }
      }
    }
  }
  return out;
}

} // namespace

std::vector<named_file> gather_named_files(const named_path_query& q) {
  std::vector<named_file> out;
  std::vector<attempt_window> windows;
  bool windows_read = false;
  for (const auto& written : q.paths_as_written) {
    named_file f;
    f.as_written = written;
    fs::path p{written};
    if (p.is_relative())
      p = q.workspace / p;
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(p, ec);
    f.path = (ec ? p.lexically_normal() : canonical).string();
    f.in_write_set =
      std::find(q.write_paths.begin(), q.write_paths.end(), f.path) != q.write_paths.end();
    struct stat st {};
    if (::stat(f.path.c_str(), &st) == 0) {
      f.exists = true;
      f.mtime = static_cast<millis>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
      if (!windows_read) {
        windows = attempt_windows(q);
        windows_read = true;
      }
      for (const auto& w : windows)
        if (f.mtime >= w.started && f.mtime <= w.finished)
          f.changed_by.push_back(w.identity);
    }
    f.predecessors = predecessors_claiming(q, f.path);
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace ad::runtime

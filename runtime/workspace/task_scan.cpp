#include "runtime/workspace/task_scan.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>

#include "runtime/core/files.hpp"
#include "runtime/core/parallel.hpp"
#include "runtime/core/unique_fd.hpp"
#include "runtime/workspace/markdown.hpp"
#include "runtime/workspace/path_resolve.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// From this many folders on, read_task_folders reads them on several
// threads; below it starting the threads costs about what they save.
constexpr std::size_t parallel_read_folders = 16;

enum class entry_kind : uint8_t { file, directory, other };

struct dir_entry {
  std::string name;
  entry_kind kind = entry_kind::other;
  bool link = false;  // a symbolic link (kind is what it points to)
};

// A folder held open: listed through its descriptor and its files opened
// by name in it, so the kernel walks the folder's path once.
class open_folder {
public:
  explicit open_folder(const fs::path& dir)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)),
        error_(fd_.get() < 0 ? errno : 0) {}
  int fd() const { return fd_.get(); }
  int error() const { return error_; }

private:
  unique_fd fd_;
  int error_;
};

// The entries of a folder, sorted by name, each classified after following
// symlinks. A folder that cannot be listed, and entries that cannot be
// classified (a symlink loop, a dangling link is simply "other"), add a warning.
std::optional<std::vector<dir_entry>> list_folder(const fs::path& dir, const open_folder& folder,
                                                  std::vector<std::string>& warnings) {
  // getdents64 on the folder's descriptor, not fs::directory_iterator or
  // opendir: a scan lists every task folder, and their extra fstat and fcntl
  // calls and per-entry paths cost a tenth of a 10,000-task scan.
  if (folder.fd() < 0) {
    warnings.push_back("cannot read folder " + dir.string() + ": " + std::strerror(folder.error()));
    return std::nullopt;
  }
  std::vector<dir_entry> out;
  alignas(struct dirent64) char buffer[32768];
  for (;;) {
    ssize_t got = ::getdents64(folder.fd(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      warnings.push_back("cannot read folder " + dir.string() + ": " + std::strerror(errno));
    if (got <= 0)
      break;
    for (ssize_t offset = 0; offset < got;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buffer + offset);
      offset += d->d_reclen;
      std::string_view name(d->d_name);
      if (name == "." || name == "..")
        continue;
      dir_entry entry;
      entry.name = name;
      // The folder listing's own file type, where it has one, saves a stat
      // per entry; a link is followed with stat, an unknown type looked up.
      unsigned char type = d->d_type;
      if (type == DT_UNKNOWN) {
        struct stat lst {};
        if (::fstatat(folder.fd(), d->d_name, &lst, AT_SYMLINK_NOFOLLOW) == 0)
          type = S_ISLNK(lst.st_mode) ? DT_LNK : S_ISDIR(lst.st_mode) ? DT_DIR
                                                 : S_ISREG(lst.st_mode) ? DT_REG : DT_UNKNOWN;
        else
          type = DT_LNK; // gone or unreadable: let the stat below say which
      }
      entry.link = type == DT_LNK;
      if (!entry.link) {
        if (type == DT_DIR)
          entry.kind = entry_kind::directory;
        else if (type == DT_REG)
          entry.kind = entry_kind::file;
        out.push_back(std::move(entry));
        continue;
      }
      struct stat st {};
      if (::fstatat(folder.fd(), d->d_name, &st, 0) != 0) {
        auto path = dir / entry.name;
        if (errno == ELOOP)
          warnings.push_back("skipped " + path.string() +
                             ": symlink loop (too many levels of symbolic links)");
        else if (errno != ENOENT)
          warnings.push_back("skipped " + path.string() + ": " + std::strerror(errno));
        entry.kind = entry_kind::other;
      } else if (S_ISDIR(st.st_mode)) {
        entry.kind = entry_kind::directory;
      } else if (S_ISREG(st.st_mode)) {
        entry.kind = entry_kind::file;
      }
      out.push_back(std::move(entry));
    }
  }
  std::sort(out.begin(), out.end(),
            [](const dir_entry& a, const dir_entry& b) { return a.name < b.name; });
  return out;
}

std::optional<std::vector<dir_entry>> list_folder(const fs::path& dir,
                                                  std::vector<std::string>& warnings) {
  return list_folder(dir, open_folder(dir), warnings);
}

void add_error(scanned_task& task, task_error_kind kind, std::string message) {
  task.errors.push_back({kind, std::move(message)});
}

std::string two_digits(int index) {
  return index < 10 ? "0" + std::to_string(index) : std::to_string(index);
}

// Subtask indexes have two digits.
constexpr int subtask_indexes = 100;
using index_edges = std::array<std::vector<int>, subtask_indexes>;

// The subtask indexes of a group that may lie on a dependency cycle: what is
// left once every index that waits for nothing left, or that nothing left
// waits for, is taken away, again and again. An index on a cycle is always
// left; most groups have no cycle and leave nothing, so the search for the
// shortest cycle runs for none of their tasks.
std::array<bool, subtask_indexes> possibly_on_cycle(std::array<bool, subtask_indexes> left,
                                                    const index_edges& waits) {
  index_edges waited_by;
  for (int i = 0; i < subtask_indexes; ++i)
    for (int d : waits[i])
      waited_by[d].push_back(i);
  // Takes away every index whose `edges` lead nowhere left, and what that
  // frees in turn along `back`.
  auto peel = [&](const index_edges& edges, const index_edges& back) {
    std::array<std::size_t, subtask_indexes> count{};
    std::vector<int> free;
    for (int i = 0; i < subtask_indexes; ++i) {
      if (!left[i])
        continue;
      for (int to : edges[i])
        count[i] += left[to] ? 1 : 0;
      if (count[i] == 0)
        free.push_back(i);
    }
    while (!free.empty()) {
      int i = free.back();
      free.pop_back();
      left[i] = false;
      for (int from : back[i])
        if (left[from] && --count[from] == 0)
          free.push_back(from);
    }
  };
  peel(waits, waited_by);
  peel(waited_by, waits);
  return left;
}

// Pending subtasks of one group whose predecessors lead back to themselves
// (`01+01_x`, or `01+02_a` beside `02+01_b`) can never start: each gets a
// task error naming its cycle instead of waiting for a predecessor for ever.
// A completed folder ends no cycle's wait, so only pending tasks count.
void mark_dependency_cycles(std::vector<scanned_task>& tasks) {
  // group -> its pending subtasks, in scan order
  std::map<std::string_view, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].name.find('/') != std::string::npos && !tasks[i].has_complete_log)
      groups[tasks[i].group].push_back(i);
  for (const auto& [group, members] : groups) {
    std::array<std::vector<std::size_t>, subtask_indexes> positions; // index -> tasks
    std::array<bool, subtask_indexes> pending{};
    for (auto pos : members) {
      positions[tasks[pos].index].push_back(pos);
      pending[tasks[pos].index] = true;
    }
    // index -> the pending indexes it waits for, in the order its tasks name them
    index_edges waits;
    for (int i = 0; i < subtask_indexes; ++i)
      for (auto pos : positions[i])
        for (const auto& d : tasks[pos].deps) {
          int dep = (d[0] - '0') * 10 + (d[1] - '0');
          if (pending[dep] && std::find(waits[i].begin(), waits[i].end(), dep) == waits[i].end())
            waits[i].push_back(dep);
        }
    auto on_cycle = possibly_on_cycle(pending, waits);
    for (int start = 0; start < subtask_indexes; ++start) {
      if (!on_cycle[start])
        continue;
      // Breadth-first from start's predecessors back to start: the shortest
      // cycle through it. reached_from[x] waits for x.
      std::array<int, subtask_indexes> reached_from;
      reached_from.fill(-1);
      std::deque<int> queue;
      auto reach = [&](int from) {
        for (int d : waits[from])
          if (reached_from[d] < 0) {
            reached_from[d] = from;
            queue.push_back(d);
          }
      };
      reach(start);
      bool closed = false;
      while (!queue.empty() && !closed) {
        int at = queue.front();
        queue.pop_front();
        closed = at == start;
        if (!closed)
          reach(at);
      }
      if (!closed)
        continue;
      // Walking reached_from from start lists the cycle backwards.
      std::vector<int> chain{start};
      for (int at = reached_from[start]; at != start; at = reached_from[at])
        chain.push_back(at);
      std::string text = two_digits(start);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        text += " -> " + two_digits(*it);
      for (auto pos : positions[start])
        add_error(tasks[pos], task_error_kind::dependency_cycle,
                  chain.size() == 1
                    ? "task " + two_digits(start) + " names itself as its predecessor; remove +" +
                        two_digits(start) + " from the folder name"
                    : "dependency cycle in group " + std::string(group) + ": " + text +
                        " (\"A -> B\": A waits for B); none of them can start until one folder "
                        "name drops its dependency");
    }
  }
}

} // namespace

std::string_view to_string(task_error_kind kind) {
  switch (kind) {
  case task_error_kind::several_plans: return "several-plans";
  case task_error_kind::several_reviews: return "several-reviews";
  case task_error_kind::several_user_reviews: return "several-user-reviews";
  case task_error_kind::user_review_beside_active: return "user-review-beside-active";
  case task_error_kind::incomplete_pair: return "incomplete-pair";
  case task_error_kind::bad_subtask_name: return "bad-subtask-name";
  case task_error_kind::invalid_write_set: return "invalid-write-set";
  case task_error_kind::no_recovery_plan_log: return "no-recovery-plan-log";
  case task_error_kind::missing_plan_header: return "missing-plan-header";
  case task_error_kind::plan_header_names_other_task: return "plan-header-names-other-task";
  case task_error_kind::incomplete_user_review: return "incomplete-user-review";
  case task_error_kind::dependency_cycle: return "dependency-cycle";
  }
  return "?";
}

std::string scanned_task::route() const {
  return lane && grade > 0 ? route_label(*lane, grade) : "recovery";
}

std::string scanned_task::work_unit_id() const {
  return header ? header->work_unit_id() : std::string{};
}

std::optional<scanned_task> read_task_folder(const fs::path& workspace, const fs::path& directory,
                                             std::vector<std::string>& warnings,
                                             path_walk_memo* walks) {
  open_folder folder(directory);
  auto entries = list_folder(directory, folder, warnings);
  if (!entries)
    return std::nullopt;

  scanned_task task;
  task.directory = directory;
  std::vector<fs::path> plans, reviews, users;
  // The PLAN and CODE_REVIEW files listed as regular files, not links: read
  // without a stat (read_listed_file_at).
  std::vector<std::string> plain;
  for (const auto& e : *entries) {
    if (e.kind != entry_kind::file)
      continue;
    fs::path path = directory / e.name;
    if (parse_plan_file_name(e.name)) {
      plans.push_back(path);
      if (!e.link)
        plain.push_back(e.name);
    } else if (parse_review_file_name(e.name)) {
      reviews.push_back(path);
      if (!e.link)
        plain.push_back(e.name);
    } else if (to_lower_ascii(e.name) == "user_review.md") {
      users.push_back(path);
    } else if (e.name == "complete.log") {
      task.has_complete_log = true;
    } else if (auto log = parse_plan_log_name(e.name)) {
      task.plan_logs.push_back({path, *log, std::nullopt});
    } else if (auto rlog = parse_review_log_name(e.name)) {
      auto reading = read_review_verdict_file_at(folder.fd(), path);
      task.review_logs.push_back({path, *rlog, reading.verdict});
    }
  }
  // The recovery log: the review log with a verdict and the highest generation.
  const task_log_file* newest = nullptr;
  for (const auto& log : task.review_logs) {
    if (!log.verdict)
      continue;
    if (newest == nullptr || log.name.generation > newest->name.generation ||
        (log.name.generation == newest->name.generation &&
         log.path.filename() > newest->path.filename()))
      newest = &log;
  }
  if (newest != nullptr)
    task.recovery_log = newest->path;

  if (plans.empty() && reviews.empty() && users.empty() && !task.has_complete_log &&
      !task.recovery_log)
    return std::nullopt;

  auto task_root = workspace / "agent-task";
  task.name = task_name_of(task_root, directory);
  task.group = task_group(task.name);
  task.plan_count = plans.size();
  task.review_count = reviews.size();
  task.user_review_count = users.size();

  if (plans.size() > 1)
    add_error(task, task_error_kind::several_plans,
              std::to_string(plans.size()) + " active PLAN files; exactly one is allowed");
  if (reviews.size() > 1)
    add_error(task, task_error_kind::several_reviews,
              std::to_string(reviews.size()) + " active CODE_REVIEW files; exactly one is allowed");
  if (users.size() > 1)
    add_error(task, task_error_kind::several_user_reviews,
              std::to_string(users.size()) + " USER_REVIEW files; exactly one is allowed");
  if (!users.empty() && (!plans.empty() || !reviews.empty()))
    add_error(task, task_error_kind::user_review_beside_active,
              "USER_REVIEW.md stop state next to an active PLAN/CODE_REVIEW");

  if (plans.size() == 1)
    task.plan = plans.front();
  if (reviews.size() == 1)
    task.review = reviews.front();
  if (users.size() == 1)
    task.user_review = users.front();
  task.recovery = task.has_complete_log || task.recovery_log.has_value();
  if (task.plan.has_value() != task.review.has_value() && !task.recovery)
    add_error(task, task_error_kind::incomplete_pair,
              task.plan ? "active PLAN without its CODE_REVIEW"
                        : "active CODE_REVIEW without its PLAN");

  // Subtask folder name: index and dependencies.
  auto relative = directory.lexically_relative(task_root);
  std::vector<std::string> parts;
  for (const auto& p : relative)
    parts.push_back(p.string());
  if (parts.size() == 2) {
    if (auto sub = parse_subtask_name(parts[1])) {
      task.index = sub->index;
      task.deps = sub->deps;
    } else {
      add_error(task, task_error_kind::bad_subtask_name,
                "subtask folder name '" + parts[1] +
                    "' does not match NN[+DD[,DD...]]_slug (lower-case slug)");
    }
  }

  if (task.plan) {
    auto route = parse_plan_file_name(task.plan->filename().string());
    task.lane = route->lane;
    task.grade = route->grade;
  }

  // The recovery plan log: a plan log whose identity matches the review log's.
  if (task.recovery_log) {
    auto wanted = plan_identity_key(*task.recovery_log);
    std::optional<fs::file_time_type> best_time;
    for (const auto& log : task.plan_logs) {
      if (plan_identity_key(log.path) != wanted)
        continue;
      std::error_code ec;
      auto mtime = fs::last_write_time(log.path, ec);
      if (ec)
        continue;
      if (!best_time || mtime > *best_time) {
        best_time = mtime;
        task.recovery_plan_log = log.path;
      }
    }
  }

  // The active PLAN is read once for its write set, header and identity.
  std::optional<std::string> plan_text;
  auto listed_plain = [&](const fs::path& file) {
    return std::find(plain.begin(), plain.end(), file.filename().string()) != plain.end();
  };
  if (task.plan)
    if (auto text = listed_plain(*task.plan)
                      ? read_listed_file_at(folder.fd(), *task.plan, max_plan_bytes)
                      : read_file_at(folder.fd(), *task.plan, max_plan_bytes))
      plan_text = std::move(*text);

  std::optional<fs::path> write_set_source = task.plan ? task.plan : task.recovery_plan_log;
  if (task.recovery_log && !task.recovery_plan_log) {
    add_error(task, task_error_kind::no_recovery_plan_log,
              "no plan log carries the identity of " + task.recovery_log->filename().string() +
                  ", so the Modified Files Summary cannot be recovered");
  } else if (write_set_source) {
    task.write_set = plan_text && write_set_source == task.plan
                       ? inspect_write_set_in(*plan_text, workspace,
                                              task.plan->filename().string(), walks)
                       : inspect_write_set_file(*write_set_source, workspace);
    task.write_set_known = task.write_set.valid();
    for (const auto& d : task.write_set.diagnostics)
      add_error(task, task_error_kind::invalid_write_set,
                "invalid Modified Files Summary: " + d.message);
  }

  if (task.plan) {
    auto header = plan_text ? result<std::optional<plan_header>>(parse_plan_header(*plan_text))
                            : read_plan_header_file(*task.plan);
    if (!header.is_ok()) {
      add_error(task, task_error_kind::missing_plan_header,
                "PLAN identity header unreadable: " + header.error().message());
    } else if (!header->has_value()) {
      add_error(task, task_error_kind::missing_plan_header,
                "PLAN has no identity header '<!-- task=" + task.name +
                    " plan=<N> tag=<tag> -->' in its first 1024 bytes");
    } else {
      task.header = **header;
      if (task.header->task != task.name)
        add_error(task, task_error_kind::plan_header_names_other_task,
                  "PLAN identity header names task '" + task.header->task + "', not '" +
                      task.name + "'");
    }
  }

  if (task.review)
    task.review_verdict_now =
      read_review_verdict_file_at(folder.fd(), *task.review, listed_plain(*task.review)).verdict;

  if (task.user_review) {
    task.user_review_state = read_user_review_file(*task.user_review);
    if (!task.user_review_state.is_stop_request())
      add_error(task, task_error_kind::incomplete_user_review,
                "USER_REVIEW.md is not a complete stop request: " +
                    task.user_review_state.missing_summary());
  }

  if (task.plan && plan_text)
    task.identity_key = plan_identity_key_of(task.header, *plan_text);
  else if (task.plan)
    task.identity_key = plan_identity_key(*task.plan);
  else if (task.recovery_log)
    task.identity_key = plan_identity_key(*task.recovery_log);
  else if (task.user_review)
    task.identity_key = plan_identity_key(*task.user_review);
  else
    task.identity_key = plan_identity_key(directory / "complete.log");
  return task;
}

std::vector<folder_reading> read_task_folders(const fs::path& workspace,
                                              const std::vector<fs::path>& directories) {
  std::vector<folder_reading> out(directories.size());
  path_walk_memo walks;
  parallel_for(directories.size(),
               directories.size() >= parallel_read_folders ? useful_threads() : 1,
               [&](std::size_t i) {
                 if (auto task = read_task_folder(workspace, directories[i], out[i].warnings,
                                                  &walks))
                   out[i].task = std::make_unique<scanned_task>(std::move(*task));
               });
  return out;
}

result<workspace_scan> scan_workspace(const fs::path& workspace_in,
                                      std::optional<std::string> group) {
  if (group && !is_valid_group_name(*group))
    return status::invalid_argument("bad task group '" + *group +
                                    "': expected one folder name under agent-task/ (not archive)");
  std::error_code ec;
  auto cwd = fs::current_path(ec);
  auto resolved = resolve_path(workspace_in, ec ? fs::path("/") : cwd);
  if (!resolved.is_ok())
    return resolved.error().with_context("workspace");
  workspace_scan scan;
  scan.workspace = *resolved;
  scan.task_root = scan.workspace / "agent-task";
  if (!fs::is_directory(scan.workspace, ec))
    return status::not_found("workspace " + scan.workspace.string() + " is not a folder");
  if (!fs::is_directory(scan.task_root, ec))
    return status::not_found("no agent-task/ folder in workspace " + scan.workspace.string());
  // Folders that resolve outside the workspace (a symlinked agent-task/,
  // group or task folder) are never scanned: their plans would have agents
  // work on another tree.
  auto outside = [&](const fs::path& dir) -> std::optional<fs::path> {
    auto real = fs::canonical(dir, ec);
    if (ec || is_within(real, scan.workspace))
      return std::nullopt;
    return real;
  };
  if (auto real = outside(scan.task_root))
    return status::invalid_argument(scan.task_root.string() + " resolves to " + real->string() +
                                    ", outside the workspace: make agent-task/ a folder of the "
                                    "workspace itself");

  std::vector<fs::path> directories;
  if (group) {
    auto dir = scan.task_root / *group;
    if (fs::is_directory(dir, ec)) {
      scan.groups.push_back(*group);
    }
  } else if (auto entries = list_folder(scan.task_root, scan.warnings)) {
    for (const auto& e : *entries)
      if (e.kind == entry_kind::directory && e.name != "archive")
        scan.groups.push_back(e.name);
  }
  auto keep_inside = [&](const fs::path& dir) {
    if (auto real = outside(dir)) {
      scan.warnings.push_back("skipped " + dir.string() + ": it resolves to " + real->string() +
                              ", outside the workspace");
      return false;
    }
    return true;
  };
  std::vector<std::string> groups;
  for (const auto& g : scan.groups)
    if (keep_inside(scan.task_root / g))
      groups.push_back(g);
  scan.groups = std::move(groups);
  for (const auto& g : scan.groups) {
    auto group_dir = scan.task_root / g;
    directories.push_back(group_dir);
    // A folder that is no link lies where its group does (kept inside
    // above); only a link can lead elsewhere.
    if (auto entries = list_folder(group_dir, scan.warnings))
      for (const auto& e : *entries)
        if (e.kind == entry_kind::directory && (!e.link || keep_inside(group_dir / e.name)))
          directories.push_back(group_dir / e.name);
  }
  auto read = read_task_folders(scan.workspace, directories);
  // Sorted by (index, name) through the pointers: a scanned task is large,
  // and each is moved once, into its place.
  std::vector<scanned_task*> order;
  order.reserve(read.size());
  for (auto& folder : read) {
    for (auto& w : folder.warnings)
      scan.warnings.push_back(std::move(w));
    if (folder.task)
      order.push_back(folder.task.get());
  }
  std::stable_sort(order.begin(), order.end(), [](const scanned_task* a, const scanned_task* b) {
    return a->index != b->index ? a->index < b->index : a->name < b->name;
  });
  scan.tasks.reserve(order.size());
  for (auto* task : order)
    scan.tasks.push_back(std::move(*task));
  mark_dependency_cycles(scan.tasks);
  // A folder listed twice (a group read for its subtasks and as a task, or a
  // symlink back up the tree) reports its problem once.
  std::vector<std::string> unique;
  for (auto& w : scan.warnings)
    if (std::find(unique.begin(), unique.end(), w) == unique.end())
      unique.push_back(std::move(w));
  scan.warnings = std::move(unique);
  return scan;
}

result<fs::path> find_workspace_root(const fs::path& path) {
  // Walk up the path as written (made absolute), so a PLAN reached through a
  // symlink still finds the workspace it sits in; the root found is resolved.
  std::error_code ec;
  auto cwd = fs::current_path(ec);
  fs::path at = (path.is_absolute() ? path : (ec ? fs::path("/") : cwd) / path).lexically_normal();
  if (!at.has_filename() && at.has_parent_path() && at != at.root_path())
    at = at.parent_path();
  if (!fs::is_directory(at, ec))
    at = at.parent_path();
  while (true) {
    if (fs::is_directory(at / "agent-task", ec)) {
      auto resolved = resolve_path(at, "/");
      return resolved.is_ok() ? *resolved : at;
    }
    if (at == at.parent_path())
      break;
    at = at.parent_path();
  }
  return status::not_found("no folder holding agent-task/ above " + path.string());
}

std::filesystem::path chosen_workspace(const std::string& given, const std::filesystem::path& cwd) {
  if (!given.empty())
    return given;
  auto root = find_workspace_root(cwd);
  return root.is_ok() ? *root : cwd;
}

} // namespace ad::runtime

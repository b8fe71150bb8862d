#include "runtime/schedule/review_observe.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <sys/stat.h>

#include "runtime/core/hash.hpp"
#include "runtime/workspace/review_verdict.hpp"
#include "runtime/workspace/subfolders.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<leaf>" or "<leaf>_<k>"
bool matches_archived_leaf(std::string_view candidate, std::string_view leaf) {
  if (candidate == leaf)
    return true;
  if (candidate.size() <= leaf.size() + 1 || candidate.substr(0, leaf.size()) != leaf ||
      candidate[leaf.size()] != '_')
    return false;
  return all_digits(candidate.substr(leaf.size() + 1));
}

result<review_folder> observe_folder(const fs::path& dir, review_folder_place place,
                                     const review_verdict_reader& read_verdict) {
  review_folder folder;
  std::error_code ec;
  auto canonical = fs::weakly_canonical(dir, ec);
  folder.path = (ec ? dir : canonical).string();
  folder.place = place;
  folder.has_user_review = fs::is_regular_file(dir / "USER_REVIEW.md", ec);
  folder.has_complete_log = fs::is_regular_file(dir / "complete.log", ec);

  std::vector<fs::path> logs;
  std::vector<fs::path> reviews;
  for (fs::directory_iterator it(dir, ec), end; it != end; it.increment(ec)) {
    if (ec)
      break;
    std::error_code kind_ec;
    if (!it->is_regular_file(kind_ec))
      continue;
    auto name = it->path().filename().string();
    if (is_review_log_name(name))
      logs.push_back(it->path());
    else if (is_review_file_name(name))
      reviews.push_back(it->path());
  }
  if (ec)
    return status::from_errno("listing " + dir.string(), ec.value());
  std::sort(logs.begin(), logs.end());
  std::sort(reviews.begin(), reviews.end());

  auto add = [&](const fs::path& p, review_source_kind kind) -> status {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0)
      return status::from_errno("stat " + p.string(), errno);
    auto digest = sha256_file_hex(p);
    if (!digest)
      return digest.error();
    review_source s;
    std::error_code cec;
    auto resolved = fs::weakly_canonical(p, cec);
    s.path = (cec ? p : resolved).string();
    s.sha256 = *digest;
    s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.kind = kind;
    s.verdict = read_verdict ? read_verdict(p) : read_review_verdict_file(p).verdict;
    folder.sources.push_back(std::move(s));
    return status::ok();
  };
  for (const auto& p : logs)
    if (auto st = add(p, review_source_kind::review_log); !st)
      return st;
  for (const auto& p : reviews)
    if (auto st = add(p, review_source_kind::review_file); !st)
      return st;
  return folder;
}

// Whether dir holds any file of the task-folder contract (SPEC section 2):
// PLAN/CODE_REVIEW, USER_REVIEW.md, complete.log, plan or review logs.
bool holds_task_files(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.rfind("PLAN-", 0) == 0 || name.rfind("CODE_REVIEW-", 0) == 0 ||
        name == "USER_REVIEW.md" || name == "complete.log" || name.rfind("plan_", 0) == 0 ||
        name.rfind("code_review_", 0) == 0)
      return true;
  }
  return false;
}

} // namespace

bool is_review_log_name(std::string_view name) {
  constexpr std::string_view prefix = "code_review_";
  constexpr std::string_view suffix = ".log";
  return name.size() >= prefix.size() + suffix.size() && name.substr(0, prefix.size()) == prefix &&
         name.substr(name.size() - suffix.size()) == suffix;
}

bool is_review_file_name(std::string_view name) {
  // CODE_REVIEW-<local|cloud>-G<01..10>.md
  constexpr std::string_view prefix = "CODE_REVIEW-";
  if (name.substr(0, prefix.size()) != prefix)
    return false;
  auto rest = name.substr(prefix.size());
  std::string_view lane;
  if (rest.substr(0, 6) == "local-")
    lane = "local-";
  else if (rest.substr(0, 6) == "cloud-")
    lane = "cloud-";
  else
    return false;
  rest = rest.substr(lane.size());
  if (rest.size() != 6 || rest[0] != 'G' || rest.substr(3) != ".md")
    return false;
  auto grade = rest.substr(1, 2);
  if (!all_digits(grade))
    return false;
  int g = (grade[0] - '0') * 10 + (grade[1] - '0');
  return g >= 1 && g <= 10;
}

std::map<std::string, std::vector<fs::path>> find_archived_task_folders(
  const fs::path& agent_task_root, const std::vector<std::string>& task_names) {
  // The leaves asked for, by the folder they are archived in: a group's
  // name, or "" for a task without a group (archived in the month itself).
  std::map<std::string, std::map<std::string, std::set<std::string>>> wanted;
  for (const auto& name : task_names) {
    std::string_view task_name = name;
    auto slash = task_name.find('/');
    if (task_name.empty() || (slash != std::string_view::npos &&
                              task_name.find('/', slash + 1) != std::string_view::npos))
      continue;
    std::string group = slash == std::string_view::npos ? "" : task_group(task_name);
    std::string leaf(slash == std::string_view::npos ? task_name : task_name.substr(slash + 1));
    wanted[group][leaf].insert(name);
  }
  std::map<std::string, std::vector<fs::path>> out;
  if (wanted.empty())
    return out;
  // Each year, month and group folder is listed once, however many tasks
  // are asked for: a run whose state does not know the workspace's tasks
  // asks for thousands at once.
  for (const auto& year : subfolders(agent_task_root / "archive")) {
    for (const auto& month : subfolders(year)) {
      for (const auto& [group, leaves] : wanted) {
        for (const auto& candidate : subfolders(group.empty() ? month : month / group)) {
          // A folder is the leaf itself or the leaf and a `_<k>` suffix
          // (matches_archived_leaf): both are looked up.
          std::string folder = candidate.filename().string();
          std::vector<const std::set<std::string>*> owners;
          if (auto it = leaves.find(folder); it != leaves.end())
            owners.push_back(&it->second);
          if (auto cut = folder.rfind('_'); cut != std::string::npos)
            if (auto it = leaves.find(folder.substr(0, cut));
                it != leaves.end() && matches_archived_leaf(folder, it->first))
              owners.push_back(&it->second);
          std::error_code ec;
          if (owners.empty() || !fs::is_regular_file(candidate / "complete.log", ec))
            continue;
          for (const auto* names : owners)
            for (const auto& name : *names)
              out[name].push_back(candidate);
        }
      }
    }
  }
  for (auto& [name, folders] : out)
    std::sort(folders.begin(), folders.end());
  return out;
}

std::vector<fs::path> find_archived_task_folders(const fs::path& agent_task_root,
                                                 std::string_view task_name) {
  auto found =
    find_archived_task_folders(agent_task_root, std::vector<std::string>{std::string(task_name)});
  return found.empty() ? std::vector<fs::path>{} : std::move(found.begin()->second);
}

result<review_observation> observe_review(const fs::path& agent_task_root,
                                          std::string_view task_name,
                                          const review_verdict_reader& read_verdict) {
  review_observation obs;
  auto task_dir = agent_task_root / fs::path(std::string(task_name));
  std::error_code ec;
  // A group that is itself one task shares its folder with the group's
  // WORK_LOG.md: after the reviewer archived the task, the attempt's FINISH
  // row re-creates the folder with only the log. That is no task folder.
  if (fs::is_directory(task_dir, ec) &&
      (holds_task_files(task_dir) || find_archived_task_folders(agent_task_root, task_name).empty())) {
    auto folder = observe_folder(task_dir, review_folder_place::active, read_verdict);
    if (!folder)
      return folder.error();
    obs.folders.push_back(std::move(*folder));
    return obs;
  }
  for (const auto& dir : find_archived_task_folders(agent_task_root, task_name)) {
    auto folder = observe_folder(dir, review_folder_place::archive, read_verdict);
    if (!folder)
      return folder.error();
    obs.folders.push_back(std::move(*folder));
  }
  return obs;
}

} // namespace ad::runtime

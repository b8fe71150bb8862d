#include "runtime/worklog/work_log_archive.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>

#include "runtime/core/files.hpp"
#include "runtime/workspace/subfolders.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

archive_readiness judge_work_log_archive(const std::vector<group_task_view>& tasks) {
  if (tasks.empty())
    return {archive_readiness_kind::not_ready, "the group has no observed task"};
  for (const auto& t : tasks) {
    if (t.activity == group_task_activity::running)
      return {archive_readiness_kind::not_ready, "task " + t.task + " is running"};
    if (t.completion != group_task_completion::complete)
      return {archive_readiness_kind::not_ready, "task " + t.task + " is not complete"};
  }
  return {archive_readiness_kind::ready, {}};
}

std::vector<work_log_row> open_work_log_attempts(const std::vector<work_log_row>& rows) {
  std::vector<const work_log_row*> ordered;
  for (const auto& r : rows)
    ordered.push_back(&r);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const work_log_row* a, const work_log_row* b) { return a->seq < b->seq; });
  std::map<std::tuple<std::string, std::string, int>, const work_log_row*> open;
  for (const work_log_row* r : ordered) {
    auto k = std::make_tuple(r->task, r->role, r->attempt);
    if (r->event == "START")
      open[k] = r;
    else if (r->event == "FINISH")
      open.erase(k);
  }
  std::vector<work_log_row> out;
  for (const auto& [k, r] : open)
    out.push_back(*r);
  std::sort(out.begin(), out.end(),
            [](const work_log_row& a, const work_log_row& b) { return a.seq < b.seq; });
  return out;
}

std::vector<work_log_row> close_open_work_log_attempts(std::vector<work_log_row> rows,
                                                       std::string_view time) {
  std::vector<work_log_row> open = open_work_log_attempts(rows);
  uint64_t seq = 0;
  for (const auto& r : rows)
    seq = std::max(seq, r.seq);
  for (auto& start : open) {
    work_log_row finish = start;
    finish.seq = ++seq;
    finish.time = std::string(time);
    finish.event = "FINISH";
    finish.result = reconciled_archive_result;
    rows.push_back(std::move(finish));
  }
  return rows;
}

result<std::vector<work_log_row>> merge_work_log_sources(
  const std::vector<work_log_source>& sources) {
  using identity =
    std::tuple<std::string, std::string, std::string, int, std::string, std::string>;
  struct placed {
    const work_log_row* row;
    std::size_t source;
    std::string source_name;
  };
  std::map<identity, placed> seen;
  std::vector<placed> kept;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& src = sources[i];
    if (!src.document.foreign.empty()) {
      const auto& f = src.document.foreign.front();
      return status::conflict("work log " + src.name + " line " + std::to_string(f.line_number) +
                              " is not a timeline row and cannot be merged safely: " + f.text);
    }
    for (const auto& row : src.document.rows) {
      if (row.event != "START" && row.event != "FINISH" && !row_has_own_result(row.event))
        return status::conflict("work log " + src.name + " row " + std::to_string(row.seq) +
                                " has an unknown event: " + row.event);
      // One attempt may write several paths outside its claim, or leave
      // several processes: a CLAIM or KILL row is told apart by its result.
      identity id{row.event, row.task, row.role, row.attempt, row.locator,
                  row_has_own_result(row.event) ? row.result : std::string()};
      auto it = seen.find(id);
      if (it != seen.end()) {
        const work_log_row& prev = *it->second.row;
        if (prev.time != row.time || prev.model != row.model || prev.result != row.result)
          return status::conflict(
            "work log merge conflict: " + row.event + " of task " + row.task + " role " +
            row.role + " attempt " + std::to_string(row.attempt) + " differs between " +
            it->second.source_name + " (seq " + std::to_string(prev.seq) + ") and " + src.name +
            " (seq " + std::to_string(row.seq) + ")");
        continue; // the same row seen again
      }
      seen.emplace(id, placed{&row, i, src.name});
      kept.push_back(placed{&row, i, src.name});
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [](const placed& a, const placed& b) {
    return std::tie(a.row->time, a.source, a.row->seq) <
           std::tie(b.row->time, b.source, b.row->seq);
  });
  std::vector<work_log_row> out;
  out.reserve(kept.size());
  uint64_t seq = 0;
  for (const auto& p : kept) {
    work_log_row r = *p.row;
    r.seq = ++seq;
    out.push_back(std::move(r));
  }
  return out;
}

std::string render_work_log(const std::vector<work_log_row>& rows,
                            const std::vector<std::string>& notes) {
  std::string out = work_log_header();
  if (!notes.empty()) {
    // After the header's own note, before the table.
    auto table = out.find("\n\n|");
    std::string lines;
    for (const auto& n : notes)
      lines += "> " + escape_work_log_cell(n) + "\n";
    out.insert(table + 1, lines);
  }
  for (const auto& r : rows)
    out += format_work_log_row(r);
  return out;
}

uint64_t next_work_log_archive_number(const std::vector<std::string>& file_names) {
  uint64_t next = 0;
  constexpr std::string_view prefix = "work_log_";
  constexpr std::string_view suffix = ".log";
  for (std::string_view name : file_names) {
    if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
        name.substr(name.size() - suffix.size()) != suffix)
      continue;
    std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && p == digits.data() + digits.size())
      next = std::max(next, n + 1);
  }
  return next;
}

fs::path work_log_archive_dir(const fs::path& workspace, std::string_view group, millis t) {
  std::string iso = format_utc_iso(t); // "YYYY-MM-..."
  return workspace / "agent-task" / "archive" / iso.substr(0, 4) / iso.substr(5, 2) /
         std::string(group);
}

namespace {

struct lock_holder {
  int fd = -1;
  ~lock_holder() {
    if (fd >= 0)
      ::close(fd);
  }
};

// Every work_log_*.log name in the group's archive folders
// (archive/*/*/<group> and archive/*/*/<group>_<k>) and in extra_dir.
std::vector<std::string> archived_names(const fs::path& workspace, const std::string& group,
                                        const fs::path& extra_dir) {
  std::vector<std::string> names;
  auto collect = [&](const fs::path& dir) {
    std::error_code e;
    for (fs::directory_iterator it(dir, e), end; !e && it != end; it.increment(e))
      names.push_back(it->path().filename().string());
  };
  auto matches_group = [&](const std::string& name) {
    if (name == group)
      return true;
    if (name.size() <= group.size() + 1 || name.compare(0, group.size(), group) != 0 ||
        name[group.size()] != '_')
      return false;
    return std::all_of(name.begin() + static_cast<long>(group.size()) + 1, name.end(),
                       [](unsigned char c) { return c >= '0' && c <= '9'; });
  };
  for (const auto& month : archive_months(workspace / "agent-task"))
    for (const auto& g : subfolders(month))
      if (matches_group(g.filename().string()))
        collect(g);
  if (!extra_dir.empty())
    collect(extra_dir);
  return names;
}

} // namespace

result<fs::path> archive_work_log(const work_log_archive_request& req, const clock& clk) {
  fs::path live = work_log_path(req.workspace, req.group);
  lock_holder lock;
  std::vector<work_log_source> sources;
  std::vector<fs::path> to_remove;

  lock.fd = ::open(live.c_str(), O_RDWR | O_CLOEXEC);
  if (lock.fd >= 0) {
    int rc = 0;
    while ((rc = ::flock(lock.fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0)
      return status::from_errno("work log lock " + live.string(), errno);
    auto text = read_file(live, 256u << 20);
    if (!text)
      return text.error().with_context("work log archive");
    sources.push_back({live.string(), parse_work_log(*text)});
    to_remove.push_back(live);
  } else if (errno != ENOENT) {
    return status::from_errno("work log open " + live.string(), errno);
  }
  for (const auto& extra : req.extra_sources) {
    auto text = read_file(extra, 256u << 20);
    if (!text) {
      if (text.error().is_not_found())
        continue;
      return text.error().with_context("work log archive");
    }
    sources.push_back({extra.string(), parse_work_log(*text)});
    to_remove.push_back(extra);
  }
  if (sources.empty())
    return status::not_found("no work log to archive for group " + req.group);

  auto merged = merge_work_log_sources(sources);
  if (!merged)
    return merged.error();
  if (merged->empty())
    return status::conflict("work log of group " + req.group + " holds no timeline row");
  millis now = clk.now();
  std::vector<work_log_row> rows = close_open_work_log_attempts(std::move(*merged),
                                                                format_utc_iso(now));

  fs::path dir = req.archive_dir.empty() ? work_log_archive_dir(req.workspace, req.group, now)
                                         : req.archive_dir;
  uint64_t n = next_work_log_archive_number(archived_names(req.workspace, req.group, dir));
  fs::path dest = dir / ("work_log_" + std::to_string(n) + ".log");
  std::error_code ec;
  if (fs::exists(dest, ec))
    return status::conflict("work log archive destination already exists: " + dest.string());
  if (auto st = make_directories(dir); !st)
    return st.with_context("work log archive");
  // Rows cut short by writes that did not finish are kept beside the
  // archive, with a note in it naming each; so is the live log's side file.
  fs::path torn_file = work_log_torn_path(dest);
  std::vector<std::string> notes;
  std::string torn_text;
  for (const auto& src : sources)
    for (const auto& t : src.document.torn) {
      notes.push_back(src.name + " line " + std::to_string(t.line_number) +
                      " was cut short by a write that did not finish (a full disk or a crash); "
                      "its text is in " + torn_file.filename().string());
      torn_text += src.name + " line " + std::to_string(t.line_number) + ": " + t.text + "\n";
    }
  fs::path live_torn = work_log_torn_path(live);
  if (auto kept = read_file(live_torn, 16u << 20)) {
    torn_text += *kept;
    to_remove.push_back(live_torn);
  }
  if (!torn_text.empty())
    if (auto st = write_file_atomic(torn_file, torn_text); !st)
      return st.with_context("work log archive");
  if (auto st = write_file_atomic(dest, render_work_log(rows, notes)); !st)
    return st.with_context("work log archive");
  for (const auto& p : to_remove) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      return status::from_errno("work log archive: remove source " + p.string() +
                                  " (archive written to " + dest.string() + ")",
                                errno);
  }
  for (const auto& p : to_remove)
    fsync_directory(p.parent_path());
  return dest;
}

} // namespace ad::runtime

#include "runtime/observe/attempt_log.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <vector>

#include "runtime/core/files.hpp"
#include "runtime/report/output_tail.hpp"
#include "runtime/workspace/task_name.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::runtime {

result<log_page> read_log_page(const std::filesystem::path& file, uint64_t offset, size_t limit) {
  std::error_code ec;
  auto size = std::filesystem::file_size(file, ec);
  if (ec)
    return ec == std::errc::no_such_file_or_directory
             ? status::not_found(file.string() + ": no such file")
             : status::io_error(file.string() + ": " + ec.message());
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return status::io_error(file.string() + ": cannot be opened: " + std::strerror(errno));
  log_page page;
  page.size = size;
  page.offset = std::min<uint64_t>(offset, size);
  limit = std::clamp<size_t>(limit, 1, max_log_page_bytes);
  auto want = static_cast<size_t>(std::min<uint64_t>(limit, size - page.offset));
  page.text.resize(want);
  in.seekg(static_cast<std::streamoff>(page.offset));
  in.read(page.text.data(), static_cast<std::streamsize>(want));
  page.text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  bool more = page.offset + page.text.size() < size;
  if (more)
    if (auto nl = page.text.rfind('\n'); nl != std::string::npos)
      page.text.resize(nl + 1);  // whole lines; the rest comes with the next page
  page.next_offset = page.offset + page.text.size();
  page.eof = page.next_offset >= size;
  return page;
}

json log_page_json(const log_page& p) {
  return {{"size", p.size},
          {"offset", p.offset},
          {"next_offset", p.next_offset},
          {"eof", p.eof},
          {"text", p.text}};
}

result<std::string> attempt_log_file(std::string_view which) {
  if (which == "stream")
    return std::string("stream.log");
  if (which == "output")
    return std::string("normalized-output.log");
  return status::invalid_argument("file=" + std::string(which) +
                                  ": expected stream (stream.log) or output "
                                  "(normalized-output.log)");
}

bool is_attempt_identity(std::string_view text) {
  if (text.empty() || text == "." || text == "..")
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
  });
}

result<json> attempt_log_page(const std::string& runs_dir, const std::string& identity,
                              std::string_view which, uint64_t offset, size_t limit) {
  if (!is_attempt_identity(identity))
    return status::invalid_argument("not an attempt identity: " + identity);
  auto file = attempt_log_file(which);
  if (!file)
    return file.error();
  auto folder = find_attempt_folder(runs_dir, identity);
  if (folder.empty())
    return status::not_found("no attempt " + identity + " in " + runs_dir +
                             " (a task's attempt folders are removed when it completes)");
  auto page = read_log_page(std::filesystem::path(folder) / *file, offset, limit);
  if (!page)
    return page.error();
  auto j = log_page_json(*page);
  j["identity"] = identity;
  j["file"] = *file;
  return j;
}

namespace {

// The group's archived logs, agent-task/archive/<YYYY>/<MM>/<group>/
// work_log_<n>.log, oldest first (by month, then n).
std::vector<std::filesystem::path> archived_work_logs(const std::filesystem::path& workspace,
                                                      const std::string& group) {
  std::vector<std::pair<std::pair<std::string, uint64_t>, std::filesystem::path>> found;
  using dir = std::filesystem::directory_iterator;
  auto archive = workspace / "agent-task" / "archive";
  std::error_code y_ec, m_ec, f_ec;  // one per level: a month without the group ends only its loop
  for (dir year(archive, y_ec), end; !y_ec && year != end; year.increment(y_ec))
    for (dir month(year->path(), m_ec); !m_ec && month != end; month.increment(m_ec))
      for (dir f(month->path() / group, f_ec); !f_ec && f != end; f.increment(f_ec)) {
        auto name = f->path().filename().string();
        if (!name.starts_with("work_log_") || !name.ends_with(".log"))
          continue;
        auto digits = name.substr(9, name.size() - 13);
        uint64_t n = 0;
        auto [p, err] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (err != std::errc() || p != digits.data() + digits.size())
          continue;
        found.push_back({{month->path().string(), n}, f->path()});
      }
  std::sort(found.begin(), found.end());
  std::vector<std::filesystem::path> out;
  for (auto& [key, path] : found)
    out.push_back(std::move(path));
  return out;
}

} // namespace

json task_work_log_rows(const std::filesystem::path& workspace, const std::string& task,
                        size_t newest) {
  auto group = task_group(task);
  auto files = archived_work_logs(workspace, group);
  files.push_back(work_log_path(workspace, group));
  std::deque<work_log_row> kept;
  for (const auto& file : files) {
    auto text = read_file(file);
    if (!text)
      continue;
    for (auto& r : parse_work_log(*text).rows) {
      if (r.task != task)
        continue;
      kept.push_back(std::move(r));
      if (kept.size() > newest)
        kept.pop_front();
    }
  }
  json rows = json::array();
  for (const auto& r : kept)
    rows.push_back({{"seq", r.seq},
                    {"time", r.time},
                    {"event", r.event},
                    {"role", r.role},
                    {"attempt", r.attempt},
                    {"model", r.model},
                    {"result", r.result},
                    {"locator", r.locator}});
  return rows;
}

} // namespace ad::runtime

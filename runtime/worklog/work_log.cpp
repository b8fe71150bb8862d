#include "runtime/worklog/work_log.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <mutex>

#include "runtime/core/files.hpp"
#include "runtime/worklog/work_log_fault.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view table_header =
  "| seq | time | event | task | role | attempt | model | result | locator |";
constexpr std::string_view table_separator = "|---:|---|---|---|---|---:|---|---|---|";

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

template <class T>
bool parse_number(std::string_view s, T& out) {
  if (s.empty())
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool is_separator_row(const std::vector<std::string>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](const std::string& c) {
    return !c.empty() && c.find_first_not_of(":-") == std::string::npos;
  });
}

// Fd closed (and flock released) on scope exit.
struct locked_fd {
  int fd = -1;
  ~locked_fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

// One row's write, through the test hook (work_log_fault.hpp).
status write_row(int fd, std::string_view data, const fs::path& path) {
  const std::string what = "work log write " + path.string();
  switch (next_work_log_write_fault()) {
    case work_log_write_fault::none:
      return write_all(fd, data, what);
    case work_log_write_fault::cut:
      (void) write_all(fd, data.substr(0, data.size() / 2), what);
      return status::from_errno(what, ENOSPC);
    case work_log_write_fault::nothing:
      return status::from_errno(what, ENOSPC);
    case work_log_write_fault::crash:
      (void) write_all(fd, data.substr(0, data.size() / 2), what);
      ::_exit(86);
  }
  return write_all(fd, data, what);
}

// Whether a line (trimmed) is a whole table line: a row, the header or the
// separator.
bool is_whole_table_line(std::string_view t, std::vector<std::string>& cells) {
  if (!split_work_log_cells(t, cells))
    return false;
  if ((!cells.empty() && cells[0] == "seq") || is_separator_row(cells))
    return true;
  uint64_t seq = 0;
  int attempt = 0;
  return cells.size() == 9 && parse_number(cells[0], seq) && parse_number(cells[5], attempt);
}

// A line that begins a row ("|", spaces, the seq's digits) without being one.
bool starts_a_row(std::string_view t) {
  if (t.empty() || t.front() != '|')
    return false;
  t.remove_prefix(1);
  while (!t.empty() && t.front() == ' ')
    t.remove_prefix(1);
  return !t.empty() && t.front() >= '0' && t.front() <= '9';
}

} // namespace

std::string escape_work_log_cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '|': out += "\\|"; break;
      case '\n':
      case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_work_log_row(const work_log_row& r) {
  std::string out = "| " + std::to_string(r.seq);
  for (const std::string* cell : {&r.time, &r.event, &r.task, &r.role}) {
    out += " | ";
    out += escape_work_log_cell(*cell);
  }
  out += " | " + std::to_string(r.attempt);
  for (const std::string* cell : {&r.model, &r.result, &r.locator}) {
    out += " | ";
    out += escape_work_log_cell(*cell);
  }
  out += " |\n";
  return out;
}

std::string work_log_header() {
  std::string out = "# Work Log\n\n> Timeline written by agent-dispatch. Do not edit by hand.\n\n";
  out += table_header;
  out += '\n';
  out += table_separator;
  out += '\n';
  return out;
}

bool split_work_log_cells(std::string_view line, std::vector<std::string>& cells) {
  cells.clear();
  std::string_view s = trim(line);
  if (s.size() < 2 || s.front() != '|')
    return false;
  std::string cell;
  bool closed = false;
  for (std::size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    closed = false;
    if (c == '\\' && i + 1 < s.size()) {
      cell += s[++i];
      continue;
    }
    if (c == '|') {
      cells.emplace_back(trim(cell));
      cell.clear();
      closed = true;
      continue;
    }
    cell += c;
  }
  if (!closed) {
    cells.clear();
    return false;
  }
  return true;
}

work_log_document parse_work_log(std::string_view text) {
  work_log_document doc;
  std::vector<std::string> cells;
  std::size_t number = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    const bool unterminated = nl == std::string_view::npos;
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(unterminated ? text.size() : nl + 1);
    ++number;
    std::string_view t = trim(line);
    if (t.empty() || t.front() == '#' || t.front() == '>')
      continue; // blank, title or note
    // Every write ends with its newline: a table line cut before it, or a
    // row's beginning that a later write followed, is a write that did not
    // finish.
    if (!is_whole_table_line(t, cells) &&
        ((unterminated && t.front() == '|') || starts_a_row(t))) {
      doc.torn.push_back({number, std::string(line)});
      continue;
    }
    if (split_work_log_cells(t, cells)) {
      if (!cells.empty() && cells[0] == "seq")
        continue;
      if (is_separator_row(cells))
        continue;
      work_log_row row;
      if (cells.size() == 9 && parse_number(cells[0], row.seq) &&
          parse_number(cells[5], row.attempt)) {
        row.time = cells[1];
        row.event = cells[2];
        row.task = cells[3];
        row.role = cells[4];
        row.model = cells[6];
        row.result = cells[7];
        row.locator = cells[8];
        doc.rows.push_back(std::move(row));
        continue;
      }
    }
    doc.foreign.push_back({number, std::string(line)});
  }
  return doc;
}

bool row_has_own_result(std::string_view event) { return event == "CLAIM" || event == "KILL"; }

fs::path work_log_path(const fs::path& workspace, std::string_view group) {
  return workspace / "agent-task" / std::string(group) / work_log_file_name;
}

json work_log_event_to_json(const work_log_event& e) {
  return json{{"event", e.event},   {"task", e.task},     {"role", e.role},
              {"attempt", e.attempt}, {"model", e.model}, {"result", e.result},
              {"locator", e.locator}};
}

std::optional<work_log_row> find_work_log_row(const fs::path& log_path,
                                              const work_log_event& event) {
  auto text = read_file(log_path);
  if (!text)
    return std::nullopt;
  for (auto& row : parse_work_log(*text).rows)
    if (row.event == event.event && row.task == event.task && row.role == event.role &&
        row.attempt == event.attempt && row.locator == event.locator &&
        (!row_has_own_result(row.event) || row.result == event.result))
      return std::move(row);
  return std::nullopt;
}

fs::path work_log_torn_path(const fs::path& log_path) {
  fs::path side = log_path;
  side += ".torn";
  return side;
}

std::string work_log_heal::message() const {
  return "work log " + log.string() + " line " + std::to_string(line_number) +
         " was cut short by a write that did not finish (a full disk or a crash): moved to " +
         side_file.string();
}

status keep_torn_lines(const fs::path& side_file, const fs::path& log,
                       const std::vector<work_log_foreign_line>& lines, const clock& clk) {
  std::string out;
  for (const auto& l : lines)
    out += format_utc_iso(clk.now()) + " " + log.string() + " line " +
           std::to_string(l.line_number) + ": " + l.text + "\n";
  locked_fd f;
  f.fd = ::open(side_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (f.fd < 0)
    return status::from_errno("open " + side_file.string(), errno);
  if (auto st = write_all(f.fd, out, "work log write " + side_file.string()); !st)
    return st;
  if (::fdatasync(f.fd) != 0)
    return status::from_errno("sync " + side_file.string(), errno);
  return status::ok();
}

namespace {

// Reads the whole locked log.
result<std::string> read_locked(int fd, std::size_t size, const fs::path& log_path) {
  std::string text;
  text.resize(size);
  std::size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return status::from_errno("work log read " + log_path.string(), errno);
    if (n == 0)
      break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

// A torn last line of the locked log goes to the side file and is cut off
// the log; text loses it too. Nothing happens (and nothing is reported)
// when the side file cannot be written: the line then stays where it is.
std::optional<work_log_heal> heal_torn_tail(int fd, std::string& text, const fs::path& log_path,
                                            const clock& clk) {
  if (text.empty() || text.back() == '\n')
    return std::nullopt;
  work_log_document doc = parse_work_log(text);
  if (doc.torn.empty())
    return std::nullopt;
  const work_log_foreign_line& last = doc.torn.back();
  std::size_t begin = text.rfind('\n');
  begin = begin == std::string::npos ? 0 : begin + 1;
  if (std::string_view(text).substr(begin) != last.text)
    return std::nullopt; // torn, but not the last line
  work_log_heal heal{log_path, last.line_number, last.text, work_log_torn_path(log_path)};
  if (!keep_torn_lines(heal.side_file, log_path, {last}, clk))
    return std::nullopt;
  if (::ftruncate(fd, static_cast<off_t>(begin)) != 0 || ::fdatasync(fd) != 0)
    return std::nullopt;
  text.resize(begin);
  return heal;
}

// What this process last wrote to each log: when the locked file is still
// that file (device, inode, size and modification time unchanged), its last
// row's seq is known and the file need not be read and parsed again, so an
// append costs the same in a log of ten rows as in one of twenty thousand.
// Any other writer (another dispatcher, a node, a person) changes the size
// or the time, and the next append reads the file as before.
struct known_log {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  uint64_t last_seq = 0;
};

class known_logs {
public:
  std::optional<uint64_t> last_seq(const fs::path& path, const struct stat& st) {
    std::lock_guard lock(mutex_);
    auto it = logs_.find(path.string());
    if (it == logs_.end())
      return std::nullopt;
    const known_log& k = it->second;
    if (k.dev != st.st_dev || k.ino != st.st_ino || k.size != st.st_size ||
        k.mtime.tv_sec != st.st_mtim.tv_sec || k.mtime.tv_nsec != st.st_mtim.tv_nsec)
      return std::nullopt;
    return k.last_seq;
  }
  void remember(const fs::path& path, const struct stat& st, uint64_t last_seq) {
    std::lock_guard lock(mutex_);
    if (logs_.size() >= max_logs && !logs_.contains(path.string()))
      logs_.clear();
    logs_[path.string()] = {st.st_dev, st.st_ino, st.st_size, st.st_mtim, last_seq};
  }
  void forget(const fs::path& path) {
    std::lock_guard lock(mutex_);
    logs_.erase(path.string());
  }

private:
  static constexpr std::size_t max_logs = 1024;
  std::mutex mutex_;
  std::map<std::string, known_log> logs_;
};

known_logs& appended_logs() {
  static known_logs logs;
  return logs;
}

} // namespace

result<work_log_appended> append_work_log(const fs::path& log_path, const work_log_event& event,
                                        const clock& clk) {
  if (auto st = make_directories(log_path.parent_path()); !st)
    return st.with_context("work log " + log_path.string());
  // The log may be archived (unlinked) while we wait for its lock: then the
  // inode we locked is no longer the path, and we start over.
  for (int tries = 0; tries < 16; ++tries) {
    locked_fd f;
    f.fd = ::open(log_path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (f.fd < 0)
      return status::from_errno("work log open " + log_path.string(), errno);
    int rc = 0;
    while ((rc = ::flock(f.fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (rc != 0)
      return status::from_errno("work log lock " + log_path.string(), errno);
    struct stat by_fd {};
    struct stat by_path {};
    if (::fstat(f.fd, &by_fd) != 0)
      return status::from_errno("work log stat " + log_path.string(), errno);
    if (::stat(log_path.c_str(), &by_path) != 0 || by_path.st_ino != by_fd.st_ino ||
        by_path.st_dev != by_fd.st_dev || by_fd.st_nlink == 0)
      continue;

    work_log_appended done;
    std::string out;
    uint64_t last_seq = 0;
    auto size_before = static_cast<std::size_t>(by_fd.st_size);
    if (auto known = appended_logs().last_seq(log_path, by_fd)) {
      last_seq = *known; // as this process left it: whole lines under the header
    } else {
      auto read = read_locked(f.fd, size_before, log_path);
      if (!read)
        return read.error();
      std::string& text = *read;
      done.healed = heal_torn_tail(f.fd, text, log_path, clk);
      size_before = text.size();
      if (text.empty()) {
        out = work_log_header();
      } else {
        work_log_document doc = parse_work_log(text);
        for (const auto& row : doc.rows)
          last_seq = std::max(last_seq, row.seq);
        if (text.back() != '\n')
          out += '\n';
        if (text.find(table_header) == std::string::npos) {
          out += '\n';
          out += table_header;
          out += '\n';
          out += table_separator;
          out += '\n';
        }
      }
    }
    work_log_row& row = done.row;
    row.seq = last_seq + 1;
    row.time = format_utc_iso(clk.now());
    row.event = event.event;
    row.task = event.task;
    row.role = event.role;
    row.attempt = event.attempt;
    row.model = event.model;
    row.result = event.result;
    row.locator = event.locator;
    out += format_work_log_row(row);
    if (auto st = write_row(f.fd, out, log_path); !st) {
      // Whatever part of the row reached the file goes again: a full disk
      // leaves the log as it was (truncating frees space, so it works then).
      appended_logs().forget(log_path);
      if (::ftruncate(f.fd, static_cast<off_t>(size_before)) == 0)
        (void) ::fdatasync(f.fd);
      return st;
    }
    if (::fdatasync(f.fd) != 0) {
      appended_logs().forget(log_path);
      return status::from_errno("work log sync " + log_path.string(), errno);
    }
    if (struct stat after {}; ::fstat(f.fd, &after) == 0)
      appended_logs().remember(log_path, after, row.seq);
    else
      appended_logs().forget(log_path);
    return done;
  }
  return status::io_error("work log " + log_path.string() + " kept being replaced while appending");
}

status probe_work_log_writable(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
      return status::from_errno("open " + path.string() + " for append", errno);
    ::close(fd);
  } else if (::access(path.parent_path().c_str(), W_OK) != 0) {
    return status::from_errno("write in " + path.parent_path().string(), errno);
  }
  struct statvfs fs {};
  if (::statvfs(path.parent_path().c_str(), &fs) != 0)
    return status::from_errno("statvfs " + path.parent_path().string(), errno);
  if (static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < (uint64_t{1} << 20))
    return status::io_error(path.parent_path().string() + ": less than 1 MiB free");
  return status::ok();
}

} // namespace ad::runtime

#include "tools/agent-sim/registry.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <map>
#include <sys/file.h>
#include <unistd.h>

#include "runtime/core/files.hpp"

namespace ad::agent_sim {

namespace {

using runtime::json;
using runtime::status;
using runtime::write_all;

// An open file descriptor holding an exclusive flock, closed on scope exit.
class locked_fd {
public:
  locked_fd(const std::filesystem::path& p, int flags) : fd_(::open(p.c_str(), flags | O_CLOEXEC, 0644)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~locked_fd() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  locked_fd(const locked_fd&) = delete;
  locked_fd& operator=(const locked_fd&) = delete;
  int fd() const { return fd_; }

private:
  int fd_;
};

bool overlaps(const run_record& a, const run_record& b) {
  return a.start_ms < b.end_ms && b.start_ms < a.end_ms;
}

std::string describe(const run_record& r) {
  return r.task + "/" + r.role + " attempt " + std::to_string(r.attempt) + " pid " + std::to_string(r.pid) +
         " [" + runtime::format_utc_iso(r.start_ms) + ", " + runtime::format_utc_iso(r.end_ms) + ")";
}

} // namespace

json to_json(const run_record& r) {
  json exit = json::object();
  if (r.exit_signal.empty()) exit["code"] = r.exit_code;
  else exit["signal"] = r.exit_signal;
  return json{{"task", r.task}, {"role", r.role}, {"attempt", r.attempt}, {"marker", r.marker},
              {"cli", r.cli}, {"pid", r.pid}, {"pgid", r.pgid}, {"argv", r.argv}, {"cwd", r.cwd},
              {"start_ms", r.start_ms}, {"end_ms", r.end_ms},
              {"start", runtime::format_utc_iso(r.start_ms)}, {"end", runtime::format_utc_iso(r.end_ms)},
              {"files_written", r.files_written}, {"refused_paths", r.refused_paths}, {"children", r.children}, {"exit", exit}};
}

runtime::result<run_record> record_from_json(const json& j) {
  if (!j.is_object()) return status::invalid_argument("a registry line is a JSON object");
  run_record r;
  try {
    runtime::require_integer_numbers(j);
    r.task = j.at("task").get<std::string>();
    r.role = j.value("role", "");
    r.attempt = j.value("attempt", 0);
    r.marker = j.value("marker", "");
    r.cli = j.value("cli", "");
    r.pid = j.value("pid", 0);
    r.pgid = j.value("pgid", 0);
    r.argv = j.value("argv", std::vector<std::string>{});
    r.cwd = j.value("cwd", "");
    r.start_ms = j.at("start_ms").get<runtime::millis>();
    r.end_ms = j.at("end_ms").get<runtime::millis>();
    r.files_written = j.value("files_written", std::vector<std::string>{});
    r.refused_paths = j.value("refused_paths", std::vector<std::string>{});
    r.children = j.value("children", std::vector<int>{});
    const json& exit = j.at("exit");
    r.exit_code = exit.value("code", 0);
    r.exit_signal = exit.value("signal", "");
  } catch (const std::exception& e) { // json's, and require_integer_numbers' invalid_argument
    return status::invalid_argument(std::string("bad registry record: ") + e.what());
  }
  if (r.end_ms < r.start_ms) return status::invalid_argument("bad registry record: end_ms before start_ms");
  return r;
}

status append_record(const std::filesystem::path& registry, const run_record& r) {
  locked_fd f(registry, O_WRONLY | O_APPEND | O_CREAT);
  if (f.fd() < 0) return status::from_errno("open registry " + registry.string(), errno);
  return write_all(f.fd(), runtime::dump_json(to_json(r)) + "\n", "append to " + registry.string());
}

runtime::result<std::vector<run_record>> read_registry(const std::filesystem::path& registry) {
  auto text = runtime::read_file(registry, 256u << 20);
  if (!text) return text.error();
  std::vector<run_record> out;
  std::size_t pos = 0;
  int number = 0;
  while (pos < text->size()) {
    std::size_t nl = text->find('\n', pos);
    std::string line = text->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text->size() : nl + 1;
    ++number;
    if (line.empty()) continue;
    std::string where = registry.string() + ":" + std::to_string(number);
    auto j = runtime::parse_json(line, where);
    if (!j) return j.error();
    auto r = record_from_json(*j);
    if (!r) return r.error().with_context(where);
    out.push_back(std::move(*r));
  }
  return out;
}

std::vector<registry_violation> check_registry(const std::vector<run_record>& runs, int max_parallel) {
  std::vector<registry_violation> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (std::size_t k = i + 1; k < runs.size(); ++k) {
      const run_record& a = runs[i];
      const run_record& b = runs[k];
      if (!overlaps(a, b)) continue;
      if (a.task == b.task && !a.task.empty())
        out.push_back({violation_kind::task_overlap,
                       "two live agents for task " + a.task + ": " + describe(a) + " and " + describe(b)});
      for (const auto& p : a.files_written) {
        if (std::find(b.files_written.begin(), b.files_written.end(), p) != b.files_written.end())
          out.push_back({violation_kind::path_overlap,
                         "concurrent writers of " + p + ": " + describe(a) + " and " + describe(b)});
      }
    }
  }
  if (max_parallel > 0) {
    // Sweep: ends sort before starts at the same instant.
    std::vector<std::pair<runtime::millis, int>> edges;
    for (const auto& r : runs) {
      edges.emplace_back(r.start_ms, +1);
      edges.emplace_back(r.end_ms, -1);
    }
    std::sort(edges.begin(), edges.end());
    int alive = 0, peak = 0;
    runtime::millis peak_at = 0;
    for (const auto& [t, d] : edges) {
      alive += d;
      if (alive > peak) {
        peak = alive;
        peak_at = t;
      }
    }
    if (peak > max_parallel)
      out.push_back({violation_kind::too_many_alive,
                     std::to_string(peak) + " agents alive at " + runtime::format_utc_iso(peak_at) +
                         ", more than --max-parallel " + std::to_string(max_parallel)});
  }
  return out;
}

runtime::result<int> next_attempt(const std::filesystem::path& counter_file, const std::string& task,
                                  const std::string& role) {
  locked_fd f(counter_file, O_RDWR | O_CREAT);
  if (f.fd() < 0) return status::from_errno("open attempt counter " + counter_file.string(), errno);
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::pread(f.fd(), buf, sizeof buf, static_cast<off_t>(text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return status::from_errno("read " + counter_file.string(), errno);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  json counts = json::object();
  if (!text.empty()) {
    auto j = runtime::parse_json(text, counter_file.string());
    if (!j) return j.error();
    if (j->is_object()) counts = *j;
  }
  std::string key = task + "|" + role;
  int n = counts.value(key, 0) + 1;
  counts[key] = n;
  std::string data = runtime::dump_json(counts, 1) + "\n";
  if (::ftruncate(f.fd(), 0) != 0) return status::from_errno("truncate " + counter_file.string(), errno);
  if (::lseek(f.fd(), 0, SEEK_SET) < 0) return status::from_errno("seek " + counter_file.string(), errno);
  if (auto st = write_all(f.fd(), data, "write " + counter_file.string()); !st) return st;
  return n;
}

} // namespace ad::agent_sim

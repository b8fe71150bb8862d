#include "runtime/core/proc_scan.hpp"

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <map>
#include <thread>

#include "runtime/core/files.hpp"
#include "runtime/core/proc_stat.hpp"
#include "runtime/core/unique_fd.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool all_digits(std::string_view name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// One /proc/<pid>/stat read relative to the open /proc folder: open, read,
// close. The kernel gives the whole line in one read when it fits, and a
// line is a few hundred bytes (the name is at most 64), so no stat() for a
// size and, but for a longer line, no second read for the end.
bool read_stat_at(int proc_fd, std::string_view pid, std::string& out) {
  char rel[32];
  if (pid.size() + sizeof "/stat" > sizeof rel)
    return false;
  std::copy(pid.begin(), pid.end(), rel);
  std::copy_n("/stat", sizeof "/stat", rel + pid.size());
  unique_fd fd(::openat(proc_fd, rel, O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return false;
  out.clear();
  char buf[1024];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 || out.size() + static_cast<std::size_t>(n) > (64u << 10))
      return false;
    out.append(buf, static_cast<std::size_t>(n));
    if (static_cast<std::size_t>(n) < sizeof buf)
      return !out.empty();
  }
}

} // namespace

bool empty_environment_is_final(std::string_view stat) {
  // Element 0 is field 3 (state), element 6 field 9 (flags).
  auto fields = stat_fields_after_name(stat);
  if (!fields || fields->size() < 7 || (*fields)[0].empty())
    return true;
  unsigned long flags = 0;
  auto f = (*fields)[6];
  auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), flags);
  if (ec != std::errc() || end != f.data() + f.size())
    return true;
  char state = (*fields)[0].front();
  constexpr unsigned long kernel_thread_flag = 0x00200000; // PF_KTHREAD
  return state == 'Z' || state == 'X' || (flags & kernel_thread_flag) != 0;
}

namespace {

enum class environ_match { found, other, empty, unreadable };

environ_match match_environ(const fs::path& path, std::string_view needle, std::string& buf) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return environ_match::unreadable;
  buf.clear();
  char chunk[16384];
  ssize_t n = 0;
  bool failed = false;
  while ((n = ::read(fd, chunk, sizeof chunk)) != 0) {
    if (n < 0) {
      failed = true;
      break;
    }
    buf.append(chunk, static_cast<std::size_t>(n));
    if (buf.size() > (8u << 20))
      break; // an environment this large is not ours to parse
  }
  ::close(fd);
  if (failed)
    return environ_match::unreadable;
  if (buf.empty())
    return environ_match::empty;
  std::string_view env(buf);
  while (!env.empty()) {
    auto end = env.find('\0');
    if (env.substr(0, end) == needle)
      return environ_match::found;
    if (end == std::string_view::npos)
      break;
    env.remove_prefix(end + 1);
  }
  return environ_match::other;
}

bool may_be_inside_exec(const fs::path& stat_path) {
  auto text = read_file(stat_path, 64 << 10);
  return text && !empty_environment_is_final(*text); // a vanished process is final
}

// How often a process that may be inside execve is read again, waiting
// 1, 2, 4, ... ms before each read: an exec ends well within that.
constexpr int exec_rereads = 6;

// The pids among `names` (folders of proc_root) whose environment holds the
// marker, sorted.
std::vector<int> marker_pids(std::string_view marker, const std::vector<std::string>& names,
                             const fs::path& proc_root) {
  std::vector<int> pids;
  if (marker.empty())
    return pids;
  std::string needle = std::string(attempt_marker_variable) + "=" + std::string(marker);
  std::string buf;
  std::vector<std::string> inside_exec;
  auto judge = [&](const std::string& name, std::vector<std::string>& again) {
    fs::path entry = proc_root / name;
    switch (match_environ(entry / "environ", needle, buf)) {
      case environ_match::found:
        pids.push_back(std::stoi(name));
        break;
      case environ_match::empty:
        if (may_be_inside_exec(entry / "stat"))
          again.push_back(name);
        break;
      case environ_match::other:
      case environ_match::unreadable:
        break;
    }
  };
  for (const auto& name : names)
    judge(name, inside_exec);
  for (int round = 0; round < exec_rereads && !inside_exec.empty(); ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1 << round));
    std::vector<std::string> still;
    for (const auto& name : inside_exec)
      judge(name, still);
    inside_exec = std::move(still);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

} // namespace

std::vector<int> processes_with_marker(std::string_view marker, const fs::path& proc_root) {
  if (marker.empty())
    return {};
  std::vector<std::string> names;
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr)
    return {};
  while (dirent* entry = ::readdir(dir))
    if (all_digits(entry->d_name))
      names.emplace_back(entry->d_name);
  ::closedir(dir);
  return marker_pids(marker, names, proc_root);
}

std::vector<int> processes_with_marker(std::string_view marker,
                                       const std::vector<process_entry>& table,
                                       unsigned long long started_since,
                                       const fs::path& proc_root) {
  std::vector<std::string> names;
  for (const auto& e : table)
    if (!e.start_ticks || *e.start_ticks >= started_since)
      names.push_back(std::to_string(e.pid));
  return marker_pids(marker, names, proc_root);
}

// --- the process table ------------------------------------------------------

std::optional<process_entry> parse_process_stat(std::string_view stat) {
  auto open = stat.find('(');
  auto close = stat.rfind(')');
  auto fields = stat_fields_after_name(stat);
  // Element 0 is field 3 (state), 1 field 4 (ppid), 2 field 5 (pgrp).
  if (open == std::string_view::npos || close < open || !fields || fields->size() < 3 ||
      (*fields)[0].size() != 1)
    return std::nullopt;
  auto number = [](std::string_view text, int& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
  };
  process_entry e;
  auto head = stat.substr(0, open);
  while (!head.empty() && head.back() == ' ')
    head.remove_suffix(1);
  if (!number(head, e.pid) || !number((*fields)[1], e.ppid) || !number((*fields)[2], e.pgid))
    return std::nullopt;
  e.state = (*fields)[0].front();
  e.comm = std::string(stat.substr(open + 1, close - open - 1));
  // Element 19 is field 22 (starttime).
  if (fields->size() > 19) {
    unsigned long long ticks = 0;
    auto f = (*fields)[19];
    auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), ticks);
    if (ec == std::errc() && end == f.data() + f.size())
      e.start_ticks = ticks;
  }
  return e;
}

namespace {

// The numbered folders of an open /proc folder: the pids of its processes.
std::vector<int> listed_pids(DIR* dir) {
  std::vector<int> out;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name(entry->d_name);
    int pid = 0;
    if (all_digits(name) &&
        std::from_chars(name.data(), name.data() + name.size(), pid).ec == std::errc())
      out.push_back(pid);
  }
  return out;
}

// The live processes among pids, read from the open /proc folder, by pid.
std::vector<process_entry> read_entries(DIR* dir, const std::vector<int>& pids) {
  std::vector<process_entry> out;
  std::string text;
  for (int pid : pids) {
    if (!read_stat_at(::dirfd(dir), std::to_string(pid), text))
      continue;
    if (auto e = parse_process_stat(text); e && e->state != 'Z' && e->state != 'X')
      out.push_back(std::move(*e));
  }
  std::sort(out.begin(), out.end(),
            [](const process_entry& a, const process_entry& b) { return a.pid < b.pid; });
  return out;
}

template <class Number>
std::optional<Number> number_in(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  Number n{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return n;
}

// The count on the "processes" line of a /proc/stat text.
std::optional<unsigned long long> forks_in(std::string_view stat) {
  constexpr std::string_view key = "processes ";
  std::size_t at = stat.starts_with(key) ? 0 : stat.find("\nprocesses ");
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = stat.substr(at + (at == 0 ? 0 : 1) + key.size());
  return number_in<unsigned long long>(rest.substr(0, rest.find('\n')));
}

// The pids below this are not handed out again once the allocator has gone
// round (the kernel's RESERVED_PIDS).
constexpr int reserved_pids = 300;

} // namespace

std::vector<process_entry> list_processes(const fs::path& proc_root) {
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr)
    return {};
  auto out = read_entries(dir, listed_pids(dir));
  ::closedir(dir);
  return out;
}

std::optional<pid_allocation> read_pid_allocation(const fs::path& proc_root) {
  auto last = read_file(proc_root / "sys/kernel/ns_last_pid", 64);
  auto stat = read_file(proc_root / "stat", 16u << 20);
  auto max = read_file(proc_root / "sys/kernel/pid_max", 64);
  if (!last || !stat || !max)
    return std::nullopt;
  auto last_pid = number_in<int>(*last);
  auto forks = forks_in(*stat);
  auto pid_max = number_in<int>(*max);
  if (!last_pid || !forks || !pid_max)
    return std::nullopt;
  return pid_allocation{*last_pid, *forks, *pid_max};
}

bool pid_window::contains(int pid) const noexcept {
  return after <= through ? pid > after && pid <= through : pid > after || pid <= through;
}

std::optional<pid_window> pids_handed_out_since(int first, const pid_allocation& then,
                                                const pid_allocation& now) {
  const int pid_max = std::min(then.pid_max, now.pid_max);
  if (first <= 0 || now.last_pid <= 0 || now.forks < then.forks || pid_max <= 2 * reserved_pids)
    return std::nullopt;
  const unsigned long long range = static_cast<unsigned long long>(pid_max - reserved_pids);
  if (now.forks - then.forks >= range / 2)
    return std::nullopt;
  return pid_window{first, now.last_pid};
}

std::optional<std::vector<process_entry>> list_processes_since(int first, const pid_allocation& then,
                                                               const fs::path& proc_root) {
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr)
    return std::nullopt;
  // The allocator is read after the folder, so each pid listed was handed
  // out before the window's end.
  std::vector<int> pids = listed_pids(dir);
  auto now = read_pid_allocation(proc_root);
  auto window = now ? pids_handed_out_since(first, then, *now) : std::nullopt;
  if (!window) {
    ::closedir(dir);
    return std::nullopt;
  }
  std::erase_if(pids, [&](int pid) { return !window->contains(pid); });
  auto out = read_entries(dir, pids);
  ::closedir(dir);
  return out;
}

std::vector<int> descendants_of(int ancestor, const std::vector<process_entry>& table) {
  std::multimap<int, int> children;
  for (const auto& e : table)
    children.emplace(e.ppid, e.pid);
  std::vector<int> out;
  std::vector<int> todo{ancestor};
  while (!todo.empty()) {
    int parent = todo.back();
    todo.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (it->second == ancestor || std::find(out.begin(), out.end(), it->second) != out.end())
        continue;
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string process_argv0(int pid, const fs::path& proc_root) {
  auto text = read_file(proc_root / std::to_string(pid) / "cmdline", 64 << 10);
  if (!text)
    return {};
  return std::string(text->c_str()); // up to the first NUL
}

} // namespace ad::runtime

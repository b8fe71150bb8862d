#include "tools/keeper/attempt_processes.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "runtime/core/files.hpp"

namespace ad::keeper {

using namespace runtime;
namespace fs = std::filesystem;

namespace {

bool fallback_asked(const keeper_invocation& inv) {
  if (inv.containment == containment_request::subreaper)
    return true;
  const char* env = std::getenv(std::string(containment_env_variable).c_str());
  return env != nullptr && std::string_view(env) == "subreaper";
}

unsigned long long own_start_ticks() {
  auto text = read_file("/proc/self/stat", 64 << 10);
  auto entry = text ? parse_process_stat(*text) : std::nullopt;
  return entry && entry->start_ticks ? *entry->start_ticks : 0;
}

std::vector<leftover_process> named(const std::map<int, std::string>& processes) {
  std::vector<leftover_process> out;
  for (const auto& [pid, name] : processes) {
    if (out.size() == max_named_leftovers)
      break;
    out.push_back({pid, name});
  }
  return out;
}

} // namespace

attempt_processes::attempt_processes(const keeper_invocation& inv, keeper_log& log)
  : inv_(inv), log_(log), self_(static_cast<int>(::getpid())), allocation_at_start_(read_pid_allocation()),
    start_ticks_(own_start_ticks()) {
  // Orphans of the agent's tree (a double fork, setsid and exit) become the
  // keeper's children instead of init's: its descendants, reaped by it.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    log_.note(std::string("cannot become the child subreaper: ") + std::strerror(errno));
  if (fallback_asked(inv)) {
    log_.note("containment: subreaper (asked for)");
    return;
  }
  auto parent = writable_cgroup2_parent();
  if (!parent) {
    log_.note("containment: subreaper (no cgroup: " + parent.error().message() + ")");
    return;
  }
  auto dir = create_cgroup(*parent, attempt_cgroup_name(inv.marker));
  if (!dir) {
    log_.note("containment: subreaper (no cgroup: " + dir.error().message() + ")");
    return;
  }
  procs_fd_ = ::open((*dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (procs_fd_ < 0) {
    log_.note("containment: subreaper (cannot open " + (*dir / "cgroup.procs").string() + ": " +
              std::strerror(errno) + ")");
    (void) remove_cgroup(*dir);
    return;
  }
  kind_ = containment_kind::cgroup;
  cgroup_ = dir->string();
  log_.note("containment: cgroup " + cgroup_);
}

attempt_processes::~attempt_processes() {
  if (procs_fd_ >= 0)
    ::close(procs_fd_);
}

void attempt_processes::agent_started(bool joined) {
  if (procs_fd_ >= 0) {
    ::close(procs_fd_);
    procs_fd_ = -1;
  }
  if (kind_ != containment_kind::cgroup || joined)
    return;
  log_.note("containment: subreaper (the agent could not join the cgroup " + cgroup_ + ")");
  (void) remove_cgroup(cgroup_);
  kind_ = containment_kind::subreaper;
  cgroup_.clear();
}

std::string attempt_processes::name_of(int pid) const {
  std::string argv0 = process_argv0(pid);
  if (!argv0.empty())
    return fs::path(argv0).filename().string();
  auto text = read_file("/proc/" + std::to_string(pid) + "/stat", 64 << 10);
  auto entry = text ? parse_process_stat(*text) : std::nullopt;
  return entry ? entry->comm : "?";
}

std::vector<int> attempt_processes::list() {
  const int self = self_;
  // Every process of the attempt started after the keeper: only the pids
  // handed out since need reading, unless the allocator may have gone round.
  auto recent = allocation_at_start_ ? list_processes_since(self, *allocation_at_start_) : std::nullopt;
  auto table = recent ? std::move(*recent) : list_processes();
  std::vector<int> pids = descendants_of(self, table);
  // The marker is this attempt's, made before the keeper started: only a
  // process started since can carry it.
  for (int pid : processes_with_marker(inv_.marker, table, start_ticks_))
    pids.push_back(pid);
  if (kind_ == containment_kind::cgroup)
    for (int pid : cgroup_members(cgroup_))
      pids.push_back(pid);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  std::vector<int> out;
  for (int pid : pids) {
    if (pid == self)
      continue;
    auto entry = std::find_if(table.begin(), table.end(), [&](const process_entry& e) { return e.pid == pid; });
    if (entry == table.end())
      continue; // gone, or a zombie waiting to be reaped
    if (kept_.count(pid) != 0)
      continue;
    if (!inv_.keep_alive.empty() &&
        kept_alive_by_name(entry->comm, process_argv0(pid), inv_.keep_alive)) {
      keep(pid);
      continue;
    }
    out.push_back(pid);
  }
  return out;
}

void attempt_processes::keep(int pid) {
  std::string name = name_of(pid);
  log_.note("kept alive by name: " + name + " (pid " + std::to_string(pid) + ")");
  kept_.emplace(pid, std::move(name));
  // Out of the attempt's cgroup into the keeper's own, so the cgroup can be
  // killed as one and removed.
  if (kind_ != containment_kind::cgroup)
    return;
  fs::path parent = fs::path(cgroup_).parent_path() / "cgroup.procs";
  int fd = ::open(parent.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  std::string text = std::to_string(pid);
  if (::write(fd, text.data(), text.size()) < 0)
    log_.note("cannot move pid " + text + " out of " + cgroup_ + ": " + std::strerror(errno));
  ::close(fd);
}

void attempt_processes::signal(const std::vector<int>& pids, int sig) {
  if (sig == SIGKILL && kind_ == containment_kind::cgroup)
    (void) kill_cgroup(cgroup_);
  for (int pid : pids)
    ::kill(pid, sig);
}

void attempt_processes::note_leftovers(const std::vector<int>& pids) {
  for (int pid : pids)
    if (ended_.count(pid) == 0) {
      std::string name = name_of(pid);
      log_.note("the agent left " + name + " (pid " + std::to_string(pid) + "): ending it");
      ended_.emplace(pid, std::move(name));
    }
}

containment_report attempt_processes::finish(bool gave_up) {
  containment_report out;
  out.kind = kind_;
  out.cgroup = cgroup_;
  out.ended = named(ended_);
  out.kept = named(kept_);
  out.gave_up = gave_up;
  if (kind_ == containment_kind::cgroup) {
    out.usage = read_cgroup_usage(cgroup_);
    // An exited member leaves the cgroup a moment after its exit.
    for (int i = 0; i < 50 && cgroup_populated(cgroup_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (auto st = remove_cgroup(cgroup_); !st)
      log_.note(st.message());
  }
  return out;
}

} // namespace ad::keeper

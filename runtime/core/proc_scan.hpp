#pragma once
// Reading the kernel's process table under /proc: the processes that carry
// an attempt's marker in their environment (the agent and everything it
// started inherit it), each process's parent, group and state, the
// descendants of a process, a process's argv[0]. Used by the liveness
// probes, the reactor and the keeper's containment. Reads /proc only; no
// state, no threads of its own. Error contract: never throws; a process that
// cannot be read (gone, another user's) is skipped.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ad::runtime {

// The variable that carries an attempt's marker in its processes'
// environment.
inline constexpr std::string_view attempt_marker_variable = "AGENT_DISPATCH_EXECUTION_ID";

// Whether a process whose /proc/<pid>/environ reads empty has no environment
// for good, judged from its /proc/<pid>/stat text: a zombie or a kernel thread
// (or unparsable text). Any other process may be inside execve, where the
// kernel lets readers into the new memory before it sets the environment range.
bool empty_environment_is_final(std::string_view stat);

// Pids whose environment holds AGENT_DISPATCH_EXECUTION_ID=<marker>, sorted.
// Unreadable entries (other users, vanished processes) are skipped. An empty
// marker matches nothing. A process whose environment reads empty may be
// inside execve and is read again for up to ~63 ms before it is passed over.
std::vector<int> processes_with_marker(std::string_view marker,
                                       const std::filesystem::path& proc_root = "/proc");

// One line of the process table.
struct process_entry {
  int pid = 0;
  int ppid = 0;
  int pgid = 0;
  char state = 0;   // R, S, D, Z, ...
  std::string comm; // the kernel's name (at most 15 bytes)
  // Field 22: when it started, in clock ticks after boot; none when the
  // line does not say.
  std::optional<unsigned long long> start_ticks;
};

// processes_with_marker over the processes of `table` that started at or
// after `started_since` (clock ticks after boot, as start_ticks), and those
// whose start the table does not know. A process cannot carry a marker made
// after it started, unless it inherited it: so a keeper passes its own
// start and reads the environment of the processes of its time instead of
// every process of the machine (most of them kernel threads and daemons).
std::vector<int> processes_with_marker(std::string_view marker,
                                       const std::vector<process_entry>& table,
                                       unsigned long long started_since,
                                       const std::filesystem::path& proc_root = "/proc");

// A /proc/<pid>/stat text; nullopt when malformed. The name may hold
// spaces and ')': the fields after it are found after the last ')'.
std::optional<process_entry> parse_process_stat(std::string_view stat);

// Every live process (zombies left out), by pid.
std::vector<process_entry> list_processes(const std::filesystem::path& proc_root = "/proc");

// --- the pids handed out since a moment ------------------------------------

// Where the kernel's pid allocator stands: the last pid it handed out in
// this pid namespace (sys/kernel/ns_last_pid), the forks since boot (the
// "processes" line of stat) and the largest pid (sys/kernel/pid_max), under
// proc_root. None when any of them cannot be read.
struct pid_allocation {
  int last_pid = 0;
  unsigned long long forks = 0;
  int pid_max = 0;
};
std::optional<pid_allocation> read_pid_allocation(const std::filesystem::path& proc_root = "/proc");

// The pids handed out after one pid up to the allocator's last: after <
// pid <= through, or, when the allocator went round from pid_max to the
// low pids, pid > after or pid <= through.
struct pid_window {
  int after = 0;
  int through = 0;
  bool contains(int pid) const noexcept;
};

// The window of the pids handed out after `first` (a process of ours, so
// its pid was handed out just before `then` was read) up to `now`. The
// allocator hands pids out in turn, so a process started since has one of
// them, as long as the allocator has not gone round the whole range of
// pids since. The forks between the two readings measure that, with half
// the range to spare for what they do not count (the forks between first's
// and the reading of `then`, forks that failed after taking a pid). None
// when that margin is used up, or the readings make no sense: then any pid
// may be a new one.
std::optional<pid_window> pids_handed_out_since(int first, const pid_allocation& then,
                                                const pid_allocation& now);

// The live processes started after `first`, for a process that read `then`
// right after `first` was started (the keeper, of itself): list_processes
// over the pids of pids_handed_out_since(first, then, the allocator read
// after the folder), so on a busy machine only the processes of the
// attempt's own time are read, not every process of the machine. None when
// the window cannot be known (the caller reads the whole table).
std::optional<std::vector<process_entry>> list_processes_since(int first, const pid_allocation& then,
                                                               const std::filesystem::path& proc_root = "/proc");

// The pids below `ancestor` in the table (children, their children, ...),
// sorted; the ancestor itself is not one.
std::vector<int> descendants_of(int ancestor, const std::vector<process_entry>& table);

// argv[0] of a process as /proc/<pid>/cmdline gives it; empty when it
// cannot be read (a kernel thread, a zombie, gone).
std::string process_argv0(int pid, const std::filesystem::path& proc_root = "/proc");

} // namespace ad::runtime

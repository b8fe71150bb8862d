#pragma once
// The processes of one attempt as the keeper sees them (docs/keeper.md,
// "Containment"): it chooses the mechanism at its start (a cgroup v2 of the
// attempt's own where the hierarchy is writable and the fallback is not
// asked for; the subreaper and the marker scan always), lists what is left
// of the attempt after the agent's end (the cgroup's members, the keeper's
// descendants, the processes carrying the marker; those kept alive by name
// left out), signals them, and at the end reads the cgroup's usage and
// removes it. The keeper's only thread calls it; never throws except
// std::bad_alloc.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/proc_scan.hpp"

#include "runtime/keeper/keeper_args.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "tools/keeper/keeper_log.hpp"

namespace ad::keeper {

// At most this many ended and kept processes are named in exit.json.
inline constexpr std::size_t max_named_leftovers = 100;

class attempt_processes {
public:
  // Makes the keeper the child subreaper and, unless the fallback is asked
  // for (inv.containment, or AD_KEEPER_CONTAINMENT=subreaper), creates the
  // attempt's cgroup; notes the choice (and why a cgroup could not be had)
  // in the log.
  attempt_processes(const runtime::keeper_invocation& inv, keeper_log& log);
  ~attempt_processes();
  attempt_processes(const attempt_processes&) = delete;
  attempt_processes& operator=(const attempt_processes&) = delete;

  runtime::containment_kind kind() const noexcept { return kind_; }
  const std::string& cgroup() const noexcept { return cgroup_; }
  // The cgroup's cgroup.procs opened for writing (close-on-exec), for the
  // agent to enter before it execs ("0": the writer); -1 without a cgroup.
  int procs_fd() const noexcept { return procs_fd_; }

  // The agent started; it joined the cgroup before its exec, or (joined
  // false) could not: then the cgroup is given up for the fallback, noted.
  void agent_started(bool joined);

  // Every live process of the attempt but the keeper (while the agent
  // runs, the agent is one of them), sorted; those named by --keep-alive
  // are remembered as kept and left out.
  std::vector<int> list();

  // Sends sig to each of pids; SIGKILL also kills the cgroup as one.
  void signal(const std::vector<int>& pids, int sig);

  // Remembers pids as left by the agent and ended by the keeper (call
  // after the agent's end, before signalling them).
  void note_leftovers(const std::vector<int>& pids);

  // After the agent's end: the report for exit.json; removes the cgroup
  // once it is empty.
  runtime::containment_report finish(bool gave_up);

private:
  std::string name_of(int pid) const;
  // Remembers pid as kept alive and moves it out of the attempt's cgroup.
  void keep(int pid);

  const runtime::keeper_invocation& inv_;
  keeper_log& log_;
  const int self_;
  // Read first of all: where the pid allocator stood at the keeper's start
  // (to read only the processes started since) and the keeper's own start.
  const std::optional<runtime::pid_allocation> allocation_at_start_;
  const unsigned long long start_ticks_;
  runtime::containment_kind kind_ = runtime::containment_kind::subreaper;
  std::string cgroup_;
  int procs_fd_ = -1;
  std::map<int, std::string> ended_;
  std::map<int, std::string> kept_;
};

} // namespace ad::keeper

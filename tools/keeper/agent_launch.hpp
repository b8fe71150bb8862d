#pragma once
// Starting the agent under ad-keeper with vfork + exec, so the child can ask
// to die with the keeper before it execs: PR_SET_PDEATHSIG=SIGKILL, then a
// getppid() check (the keeper may already be gone). The child gets its own
// session and process group (pgid = its pid), stdin from /dev/null, stdout
// and stderr into two pipes, the keeper's environment plus
// AGENT_DISPATCH_EXECUTION_ID=<marker> and each --env (replacing earlier
// values of the same names), default signal dispositions and an empty
// signal mask, its own cgroup when the keeper made one (a failure to join
// is reported, and the agent runs on), and --cwd as its working directory;
// argv is searched in PATH
// by execvp. An exec or chdir failure comes back to the keeper through a
// close-on-exec pipe as an errno. Call once, from the keeper's only thread.
// Error contract: a child that could not start is a launch failure value
// ("command not found: <argv0>" for ENOENT, "cannot execute <argv0>:
// <error>" otherwise), never a crash; the caller owns the returned fds.

#include <string>
#include <variant>

#include "runtime/keeper/keeper_args.hpp"

namespace ad::keeper {

struct launched_agent {
  int pid = -1;
  int stdout_fd = -1; // read ends, non-blocking, close-on-exec
  int stderr_fd = -1;
  bool joined_cgroup = true; // false: it was asked to and could not
};

struct agent_launch_failure {
  int error = 0; // errno
  std::string reason;
};

// cgroup_procs_fd: the attempt's cgroup.procs open for writing (the child
// joins it before it execs), or -1.
std::variant<launched_agent, agent_launch_failure> launch_agent(const runtime::keeper_invocation& inv,
                                                                int cgroup_procs_fd = -1);

} // namespace ad::keeper

#pragma once
// Starting one child with posix_spawn: a new session and process group
// (POSIX_SPAWN_SETSID), cwd set to the workspace, argv as a vector (never a
// shell string), stdin from /dev/null (or the request's stdin_fd), stdout and stderr into two fresh
// pipes whose read ends come back non-blocking and close-on-exec, the
// environment of the parent plus AGENT_DISPATCH_EXECUTION_ID=<marker> and the
// extra variables, signal mask and dispositions reset to defaults. Callable
// from any thread; keeps no state. Error contract: a child that could not be
// started (command not found, not executable, missing cwd) is a value of
// launch_failure with a human reason, never a crash; a failure to create
// pipes is reported the same way (with its errno text).

#include <string>
#include <variant>
#include <vector>

#include "runtime/keeper/keeper_records.hpp" // launch_failure_exit_code
#include "runtime/process/process_events.hpp"

namespace ad::runtime {

struct spawned_child {
  int pid = -1;
  int stdout_fd = -1; // read end, O_NONBLOCK | O_CLOEXEC, owned by the caller
  int stderr_fd = -1;
};

struct launch_failure {
  int error = 0;      // errno value
  std::string reason; // "command not found: foo", ...
};

// The environment the child gets: parent's environ with the marker and the
// additions replacing earlier values of the same names.
std::vector<std::string> child_environment(const spawn_request& request);

std::variant<spawned_child, launch_failure> spawn_child(const spawn_request& request);

} // namespace ad::runtime

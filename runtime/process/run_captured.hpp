#pragma once
// Runs one short command to its end and returns what it printed: the quota
// probes and the agent CLIs' capability probes (`--version`, `--help`). The
// child is started like an agent (spawn.hpp: posix_spawn, own session and
// process group, stdin from /dev/null or stdin_fd, argv never a shell
// string); stdout and stderr are read until both close or the timeout passes
// (or `cancel` is set), then the process group is killed. It blocks its caller: call it before the actor system
// runs, or from a detached actor or thread. Never throws: a command that
// cannot start exits 127 with the reason in stderr_text, a timed-out one
// exits 124.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ad::runtime {

struct captured_run {
  int exit_code = 0;
  std::string stdout_text;
  std::string stderr_text;
  bool timed_out = false;
};

struct capture_options {
  std::string cwd = ".";
  std::vector<std::pair<std::string, std::string>> env_additions;
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
  std::size_t max_bytes = std::size_t{1} << 20; // per stream; the rest is read and dropped
  int stdin_fd = -1; // the command's stdin (the caller closes it); -1: /dev/null
  // Set from another thread: the command is killed as at its timeout
  // (looked at every 100 ms). Null: only the timeout ends it early.
  const std::atomic<bool>* cancel = nullptr;
};

captured_run run_captured(const std::vector<std::string>& argv, const capture_options& options);

} // namespace ad::runtime

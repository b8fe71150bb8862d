#pragma once
// Runs one agent process to its end, synchronously, the way an attempt sees
// it: started with runtime/process spawn_child (own session and process
// group, the workspace as cwd, AGENT_DISPATCH_EXECUTION_ID set), stdout and
// stderr split into lines in arrival order, then the exit status. Test-only.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ad::test {

enum class sim_channel : uint8_t { out, err };

struct sim_line {
  sim_channel channel = sim_channel::out;
  std::string text;
};

struct sim_run {
  bool launched = false;
  std::string launch_error; // spawn_child's reason when not launched
  bool signaled = false;
  int exit_code = -1; // when exited
  int signal = 0;     // when signaled
  bool timed_out = false;
  bool terminated_by_test = false; // stop_when asked for SIGTERM
  std::vector<sim_line> lines;
};

struct sim_request {
  std::vector<std::string> argv;
  std::filesystem::path cwd;
  std::vector<std::pair<std::string, std::string>> env;
  std::string marker;
  // Called on each line; returning true sends SIGTERM to the process group
  // (once), as an attempt does on a review-control violation or a stall.
  std::function<bool(const sim_line&)> stop_when;
  std::chrono::milliseconds timeout{30000}; // then SIGKILL to the group
};

sim_run run_to_exit(const sim_request& request);

} // namespace ad::test

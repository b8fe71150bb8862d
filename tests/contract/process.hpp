#pragma once
// Runs a program for the contract tests: posix_spawn with an argv vector
// (never a shell), a given environment and working directory, stdin from
// /dev/null, stdout and stderr into files, in a process group of its own.
// run_to_end waits with a hard timeout and then kills the whole group;
// spawned_process is the same for a long-lived helper (the mock provider),
// killed with its group when destroyed. Test-only; failures are reported
// through the returned values, never thrown.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ad::contract {

struct spawn_spec {
  std::vector<std::string> argv;    // argv[0] is the program's path
  std::vector<std::string> env;     // NAME=value
  std::filesystem::path cwd;        // empty: the test's cwd
  std::filesystem::path stdout_file;
  std::filesystem::path stderr_file;
};

struct run_outcome {
  bool started = false;
  std::string start_error;   // when !started
  bool timed_out = false;    // killed at the timeout
  int exit_code = -1;        // or 128 + signal
  double seconds = 0;
};

// Runs spec to its end or to the timeout; the process group is killed
// either way so no helper of the program outlives the call.
run_outcome run_to_end(const spawn_spec& spec, std::chrono::milliseconds timeout);

class spawned_process {
public:
  spawned_process() = default;
  ~spawned_process();
  spawned_process(const spawned_process&) = delete;
  spawned_process& operator=(const spawned_process&) = delete;

  // Starts spec; returns "" or what went wrong.
  std::string start(const spawn_spec& spec);
  bool running() const { return pid_ > 0; }
  // SIGTERM, up to `grace` to exit, then SIGKILL of the group; the exit code.
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(5));

private:
  pid_t pid_ = -1;
};

// The value of NAME in this process's environment, or "".
std::string getenv_or_empty(const char* name);

} // namespace ad::contract

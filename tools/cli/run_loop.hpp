#pragma once
// The real `agent-dispatch run` (not --dry-run): resolves the workspace and
// its state root, takes the workspace lock (a second dispatcher exits 3
// naming the owner), opens the durable state (corruption or an identity
// mismatch exits 2 with the message), loads the policy, spawns the state
// store, supervisor, process edge, attempt host and scheduler actors on a
// threaded CAF scheduler, waits for the scheduler's exit code, and shuts the
// actors down. Prints only the final summary (live output is the output
// actor's job). Returns the process exit code.

#include <string>

namespace ad::cli {

struct run_loop_options {
  std::string workspace; // resolved workspace root
  std::string task_group;
  std::string policy_file;
  int max_parallel = 0;
  bool retry_blocked = false;
  bool json = false;
  std::string trace_file; // --trace: record a message trace there
  int verbosity = 0;      // -v count: console log level (runtime/report/logging.hpp)
};

int run_loop(const run_loop_options& opt);

} // namespace ad::cli

#pragma once
// The real `agent-dispatch run` (not --dry-run): resolves the workspace and
// its state root, takes the workspace lock (a second dispatcher exits 3
// naming the owner), opens the durable state (corruption or an identity
// mismatch exits 2 with the message), loads the policy, spawns the state
// store, supervisor, process edge, attempt host and scheduler actors on a
// threaded CAF scheduler, waits for the scheduler's exit code, and shuts the
// actors down. Prints only the final summary (live output is the output
// actor's job). Returns the process exit code.

#include <cstdint>
#include <string>
#include <vector>

#include "tools/cli/distributed_setup.hpp"

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
  // Distributed mode (docs/distributed.md): worker nodes as HOST:PORT; with
  // any, agents run on the nodes and on local_slots local ones.
  std::vector<std::string> nodes;
  int local_slots = 0;
  int64_t lease_ms = 0;        // 0: runtime::lease_terms' default
  int64_t lease_margin_ms = 0; // 0: runtime::lease_terms' default
  tls_files tls;
  // --web ADDR [--token FILE]: the run's dashboard (docs/dashboard.md).
  std::string web;
  std::string web_token_file;
};

int run_loop(const run_loop_options& opt);

} // namespace ad::cli

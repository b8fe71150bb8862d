#pragma once
// The run registry: one JSON line per simulated agent run, appended to the file
// named by AGENT_SIM_REGISTRY with O_APPEND, under flock, in a single write,
// so concurrent runs never interleave. Fields: task, role, attempt, marker
// (AGENT_DISPATCH_EXECUTION_ID), cli, pid, pgid, argv, cwd, start_ms, end_ms,
// start, end (ISO), files_written, refused_paths, children, exit {code|signal}.
// check_registry() asserts the invariants tests rely on: never two live runs
// of one task, never two concurrent writers of one path, at most N runs alive
// at once. A run killed by SIGKILL writes no line. Errors are status values.

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"

namespace ad::agent_sim {

struct run_record {
  std::string task;
  std::string role;
  int attempt = 0;
  std::string marker;
  std::string cli;
  int pid = 0;
  int pgid = 0;
  std::vector<std::string> argv;
  std::string cwd;
  runtime::millis start_ms = 0;
  runtime::millis end_ms = 0;
  std::vector<std::string> files_written;
  std::vector<std::string> refused_paths;
  std::vector<int> children;  // pids of spawned processes that may outlive the run
  int exit_code = 0;
  std::string exit_signal;  // "SIGTERM", or empty when the run exited
};

runtime::json to_json(const run_record& r);
runtime::result<run_record> record_from_json(const runtime::json& j);

// Appends one line atomically (O_APPEND + flock + one write()).
runtime::status append_record(const std::filesystem::path& registry, const run_record& r);

// Reads every line; a malformed line is invalid_argument naming its number.
runtime::result<std::vector<run_record>> read_registry(const std::filesystem::path& registry);

enum class violation_kind : uint8_t { task_overlap, path_overlap, too_many_alive };

struct registry_violation {
  violation_kind kind;
  std::string message;
};

// max_parallel 0 = unlimited. Runs overlap when one starts before the other
// ends (a run ending exactly when another starts does not overlap it).
std::vector<registry_violation> check_registry(const std::vector<run_record>& runs, int max_parallel);

// Attempt counter shared by runs: increments and returns the count for
// (task, role) in a small JSON file, under flock.
runtime::result<int> next_attempt(const std::filesystem::path& counter_file, const std::string& task,
                                  const std::string& role);

} // namespace ad::agent_sim

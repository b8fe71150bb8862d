#pragma once
// Test-only harness for the supervision end-to-end tests (SPEC section 7):
// one small hand-written workspace with a policy overlay and an agent-sim
// scenario, dispatcher runs through the fleet helpers (own process group,
// optional test-only crash point), and readers for what the tests assert on:
// the simulator registry (one JSON object per agent run, with the prompt it
// received), `agent-dispatch status --json` task rows, and locator files.
// Assertions go through GoogleTest; nothing here throws.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "tests/e2e/fleet/fleet_support.hpp"
#include "tests/support/text_lines.hpp"

namespace ad::test {

// One agent run as the simulator recorded it.
struct sim_run {
  runtime::json raw;
  std::string cli, role, task, marker;
  int attempt = 0;
  int exit_code = -1; // -1 when killed by a signal
  int64_t start_ms = 0, end_ms = 0;
  std::vector<std::string> argv;
  std::string prompt; // the prompt argument for the run's CLI
};

class supervision_ws {
public:
  supervision_ws();
  ~supervision_ws();

  const std::filesystem::path& workspace() const { return f_.workspace; }
  const fleet& env() const { return f_; }

  // PLAN + CODE_REVIEW of one task (SPEC section 2) claiming files
  // (workspace-relative); the files themselves are not created.
  void write_task(const std::string& task, const std::string& lane,
                  const std::vector<std::string>& files) const;
  // agent-dispatch.json: fast backoff and timeouts, then overlay's keys.
  void write_policy(const runtime::json& overlay) const;
  void write_scenario(const runtime::json& scenario) const;

  // Runs the dispatcher to its end (AD_TEST_CRASH_AT=crash_at when given).
  struct outcome {
    int code = -1;
    std::string out, err;
  };
  outcome run(const std::vector<std::string>& extra_args = {}, const std::string& crash_at = {},
              std::chrono::seconds timeout = std::chrono::seconds(120)) const;
  child_run start(const std::vector<std::string>& extra_args = {}) const;

  std::vector<sim_run> runs() const;
  std::vector<sim_run> runs_of(const std::string& role) const;
  // The output of `agent-dispatch status --json` (one JSON object a line).
  std::string status_json() const;
  // The `task` row of `agent-dispatch status --json`, null when absent.
  runtime::json status_of(const std::string& task) const;
  // Exit code of agent-sim check-registry (0 = the invariants hold).
  int check_registry(std::string* report = nullptr) const;
  std::filesystem::path archived(const std::string& task) const;

private:
  fleet f_;
};

std::string prompt_of(const std::vector<std::string>& argv, const std::string& cli);
std::vector<std::string> read_cmdline(int pid);

// A scenario whose task runs its worker attempts as by_attempt says.
runtime::json worker_attempts(const std::string& task, const runtime::json& by_attempt);

} // namespace ad::test

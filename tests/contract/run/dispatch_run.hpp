#pragma once
// One contract run of a real agent CLI through `agent-dispatch run --json`:
// a fresh temporary folder with a workspace holding one task (a PLAN whose
// Modified Files Summary names the files the mock makes the CLI write, and
// its CODE_REVIEW), a policy whose worker rule ranks the real CLI first and
// the simulator (build/agent-sim as a `command` target) after it, with the
// simulator as promotion and review target; the mock provider on a loopback
// port with the case's script (or nothing listening there); the CLI's
// private HOME and configuration from tests/contract/cli-env.sh, given as
// the real target's `env`. The dispatcher runs to its end or is killed at a
// hard timeout, and so is every agent it left behind (found by a marker in
// their environment). While it runs, every attempt folder is copied as it
// changes: a task that completes loses its attempt folders, and the copies
// keep their locators, heartbeat logs and pi session files for the
// assertions. Test-only; setup problems come back in dispatch_run::failure.

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tests/contract/mock_setup.hpp"
#include "tests/contract/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::contract {

// Target ids in the policy of every run.
std::string real_target(cli c);           // "codex-real", "claude-real", "pi-real"
inline constexpr const char* sim_worker = "sim-worker";
inline constexpr const char* sim_review = "sim-review";
inline constexpr const char* task_name = "g/01_a";

struct dispatch_case {
  cli which = cli::codex;
  std::string script;             // tests/contract/scripts/<cli>/<script>.json, or
  nlohmann::json script_doc;      // a script written for this run (wins when not null)
  bool listening = true;          // false: nothing listens on the CLI's port
  std::vector<std::string> env_options; // cli-env.sh options
  std::string lane = "cloud";
  std::vector<std::string> files; // the PLAN's Modified Files Summary
  bool simulator_candidate = true; // the simulator after the real CLI (rule and promotion)
  nlohmann::json target = nlohmann::json::object(); // merged into the real CLI's target
  nlohmann::json target_env = nlohmann::json::object(); // added to its env (cli-env.sh's)
  nlohmann::json policy = nlohmann::json::object(); // top-level keys merged into the policy
  nlohmann::json timeouts = nlohmann::json::object(); // merged into policy timeouts
  nlohmann::json scenario;        // agent-sim scenario; null: a competent, slowed review
  std::chrono::seconds timeout{120};
};

struct dispatch_run {
  std::shared_ptr<test::temp_dir> dir;
  std::filesystem::path ws, home, state, kept;
  std::string failure;            // a setup step that went wrong, "" if none
  run_outcome outcome;
  std::string out, err;
  std::vector<nlohmann::json> events;   // the `run --json` lines
  std::vector<nlohmann::json> requests; // the mock's request log
  int port = 0;

  // The events of one kind, in order.
  std::vector<nlohmann::json> of(std::string_view event) const;
  // attempt_finished events of the worker stage, in order.
  std::vector<nlohmann::json> worker_attempts() const;
  // The copy of the attempt folder an attempt_finished event names.
  std::filesystem::path kept_folder(const nlohmann::json& finished) const;
  // Its last locator.json (null when none was copied).
  nlohmann::json locator(const nlohmann::json& finished) const;
  // A file of its copy ("" when absent).
  std::string kept_file(const nlohmann::json& finished, const std::string& name) const;
  // The task's archive folder (empty when the task was not archived).
  std::filesystem::path archived() const;
  // The mock's dumped request bodies (--dump-dir), in order.
  std::vector<nlohmann::json> dumped_requests() const;
  // Exit code, events and stderr, for failure messages.
  std::string describe() const;
};

dispatch_run run_dispatch(const dispatch_case& c);

// A free loopback port nothing listens on (bound, then closed).
int closed_port();

} // namespace ad::contract

#pragma once
// One contract-test run: a fresh temporary folder (workspace, private HOME,
// logs), the mock provider started on a script from tests/contract/scripts,
// the CLI's configuration written by tests/contract/cli-env.sh, then the
// real CLI from tests/contract/node_modules run directly on its captured
// argv with a hard timeout. Also the check that the pinned CLIs are
// installed. Test-only; setup problems come back in scenario_run::failure.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/contract/mock_setup.hpp"
#include "tests/contract/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::contract {

// "" when tests/contract/node_modules holds the pinned CLIs; otherwise a
// message saying to run tests/contract/install-clis.sh.
std::string missing_clis();

struct scenario {
  cli which = cli::codex;
  std::string script;                    // tests/contract/scripts/<cli>/<script>.json
  std::string prompt;
  std::vector<std::string> env_options;  // cli-env.sh options (--retries 1, ...)
  std::vector<std::string> extra_args;   // CLI arguments before the prompt
  std::vector<std::pair<std::string, std::string>> files; // workspace files to create
  std::chrono::milliseconds timeout = std::chrono::seconds(60);
};

struct scenario_run {
  std::shared_ptr<test::temp_dir> dir;
  std::filesystem::path ws, home, sessions;
  std::string failure; // a setup step that went wrong, "" if none
  run_outcome outcome;
  std::string out, err;
  std::vector<nlohmann::json> requests; // the mock's request log
};

// Runs the scenario. With `previous` the run reuses its folder (workspace,
// HOME, pi's sessions), as a resumed session needs.
scenario_run run_scenario(const scenario& s, const scenario_run* previous = nullptr);

// The file's content, or "<missing>".
std::string file_text(const std::filesystem::path& path);

} // namespace ad::contract

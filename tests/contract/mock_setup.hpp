#pragma once
// What every contract test needs before a real CLI runs, however it is
// started (directly by contract_run, or by agent-dispatch in tests/contract/
// run): where the pinned CLIs and the mock scripts are, the mock provider
// (tools/mock-provider) for one CLI's API on an OS-chosen loopback port, and
// the environment tests/contract/cli-env.sh prints for a CLI's private HOME.
// Test-only; setup problems come back as text ("" when none), never thrown.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/contract/process.hpp"

namespace ad::contract {

enum class cli : uint8_t { codex, claude, pi };

const char* name_of(cli c);

// tests/contract, its node_modules/.bin, and one CLI's binary in it.
std::filesystem::path contract_dir();
std::filesystem::path cli_bin_dir();
std::filesystem::path cli_binary(cli c);
// tests/contract/scripts/<cli>/<script>.json
std::filesystem::path script_path(cli c, const std::string& script);
// The mock's --api for the CLI: responses, messages or chat.
const char* api_of(cli c);

// ad-mock-provider on one script, its log (and extra arguments such as
// --dump-dir) in a folder of the caller's; killed with its group when
// destroyed.
class mock_provider {
public:
  // Starts the mock and waits for its port; "" or what went wrong.
  std::string start(cli c, const std::filesystem::path& script, const std::filesystem::path& folder,
                    const std::vector<std::string>& extra_args = {});
  int port() const { return port_; }
  void stop();
  // The request log so far, one JSON object per request.
  std::vector<nlohmann::json> requests() const;

private:
  spawned_process process_;
  std::filesystem::path log_;
  int port_ = 0;
};

// The NAME=value lines cli-env.sh prints after writing the CLI's
// configuration for 127.0.0.1:port into home; its output files go to folder.
struct cli_environment {
  std::vector<std::string> env;
  std::string failure; // "" when cli-env.sh succeeded
};
cli_environment run_cli_env(cli c, int port, const std::filesystem::path& home,
                            const std::vector<std::string>& options,
                            const std::filesystem::path& folder);

// The whole file, or "" when it cannot be read.
std::string read_all(const std::filesystem::path& p);

} // namespace ad::contract

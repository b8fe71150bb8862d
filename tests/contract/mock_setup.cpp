#include "tests/contract/mock_setup.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/temp_dir.hpp"

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Waits for the mock's port file; 0 when it does not appear.
int wait_for_port(const fs::path& file, spawned_process& mock) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    if (fs::exists(file, ec)) {
      int port = std::atoi(read_all(file).c_str());
      if (port > 0) return port;
    }
    if (!mock.running()) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

} // namespace

const char* name_of(cli c) {
  switch (c) {
  case cli::codex: return "codex";
  case cli::claude: return "claude";
  case cli::pi: return "pi";
  }
  return "";
}

fs::path contract_dir() { return test::source_dir() / "tests" / "contract"; }

fs::path cli_bin_dir() { return contract_dir() / "node_modules" / ".bin"; }

fs::path cli_binary(cli c) { return cli_bin_dir() / name_of(c); }

fs::path script_path(cli c, const std::string& script) {
  return contract_dir() / "scripts" / name_of(c) / (script + ".json");
}

const char* api_of(cli c) {
  switch (c) {
  case cli::codex: return "responses";
  case cli::claude: return "messages";
  case cli::pi: return "chat";
  }
  return "";
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string mock_provider::start(cli c, const fs::path& script, const fs::path& folder,
                                 const std::vector<std::string>& extra_args) {
  const fs::path port_file = folder / "mock.port";
  log_ = folder / "mock.log";
  std::error_code ec;
  fs::remove(port_file, ec);
  fs::remove(log_, ec);
  spawn_spec m;
  m.argv = {(test::binary_dir() / "ad-mock-provider").string(), "--api", api_of(c),
            "--script", script.string(), "--log", log_.string(),
            "--port-file", port_file.string(), "--max-seconds", "300"};
  m.argv.insert(m.argv.end(), extra_args.begin(), extra_args.end());
  m.env = {"PATH=" + getenv_or_empty("PATH")};
  m.stderr_file = folder / "mock.stderr";
  if (auto e = process_.start(m); !e.empty()) return "cannot start the mock provider: " + e;
  port_ = wait_for_port(port_file, process_);
  if (port_ == 0) return "the mock provider did not start: " + read_all(folder / "mock.stderr");
  return {};
}

void mock_provider::stop() {
  if (process_.running()) process_.stop();
}

std::vector<json> mock_provider::requests() const {
  std::vector<json> out;
  std::istringstream log(read_all(log_));
  for (std::string line; std::getline(log, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

cli_environment run_cli_env(cli c, int port, const fs::path& home,
                            const std::vector<std::string>& options, const fs::path& folder) {
  cli_environment out;
  spawn_spec e;
  e.argv = {"/bin/bash", (contract_dir() / "cli-env.sh").string()};
  e.argv.insert(e.argv.end(), options.begin(), options.end());
  e.argv.insert(e.argv.end(), {name_of(c), std::to_string(port), home.string()});
  e.env = {"PATH=" + getenv_or_empty("PATH")};
  e.stdout_file = folder / "cli-env.out";
  e.stderr_file = folder / "cli-env.err";
  auto run = run_to_end(e, std::chrono::seconds(20));
  if (!run.started || run.exit_code != 0) {
    out.failure = "cli-env.sh failed: " + run.start_error + read_all(e.stderr_file);
    return out;
  }
  std::istringstream lines(read_all(e.stdout_file));
  for (std::string line; std::getline(lines, line);)
    if (line.find('=') != std::string::npos) out.env.push_back(line);
  return out;
}

} // namespace ad::contract

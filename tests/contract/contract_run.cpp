#include "tests/contract/contract_run.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path contract_dir() { return test::source_dir() / "tests" / "contract"; }

fs::path cli_binary(cli c) { return contract_dir() / "node_modules" / ".bin" / name_of(c); }

const char* api_of(cli c) {
  switch (c) {
  case cli::codex: return "responses";
  case cli::claude: return "messages";
  case cli::pi: return "chat";
  }
  return "";
}

struct pinned {
  cli which;
  const char* package;
  const char* version;
};

constexpr pinned pins[] = {
    {cli::codex, "@openai/codex", "0.171.0"},
    {cli::claude, "@anthropic-ai/claude-code", "2.1.332"},
    {cli::pi, "@mariozechner/pi-coding-agent", "0.73.1"},
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> cli_argv(const scenario& s, const scenario_run& r) {
  std::vector<std::string> argv{cli_binary(s.which).string()};
  std::vector<std::string> head;
  switch (s.which) {
  case cli::codex:
    head = {"exec", "--json", "-C", r.ws.string(), "-m", "mock-model",
            "-c", "model_reasoning_effort=\"high\"", "--dangerously-bypass-approvals-and-sandbox"};
    break;
  case cli::claude:
    head = {"-p", "--output-format", "stream-json", "--verbose",
            "--session-id", "3f0c6a52-7f44-4c1e-9d4b-2a6f1e0b8c11",
            "--model", "claude-opus-4-8", "--effort", "high",
            "--dangerously-skip-permissions"};
    break;
  case cli::pi:
    head = {"-p", "--mode", "json", "--provider", "iop", "--model", "laguna-s",
            "--thinking", "high", "--session-dir", r.sessions.string()};
    break;
  }
  argv.insert(argv.end(), head.begin(), head.end());
  argv.insert(argv.end(), s.extra_args.begin(), s.extra_args.end());
  argv.push_back(s.prompt);
  return argv;
}

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

std::string missing_clis() {
  std::string problems;
  for (const auto& p : pins) {
    auto bin = cli_binary(p.which);
    auto manifest = contract_dir() / "node_modules" / p.package / "package.json";
    auto doc = json::parse(read_all(manifest), nullptr, false);
    std::string version = doc.is_object() && doc.contains("version") && doc["version"].is_string()
                              ? doc["version"].get<std::string>()
                              : "";
    if (::access(bin.c_str(), X_OK) != 0)
      problems += " " + bin.string() + " is missing;";
    else if (version != p.version)
      problems += std::string(" ") + p.package + " is " + (version.empty() ? "absent" : version) +
                  ", not " + p.version + ";";
  }
  // claude's postinstall replaces a small placeholder by the native binary.
  std::error_code ec;
  auto claude = fs::canonical(cli_binary(cli::claude), ec);
  if (!ec && fs::file_size(claude, ec) < (1u << 20))
    problems += " claude is still the npm placeholder (its postinstall did not run);";
  if (problems.empty()) return {};
  return "the pinned agent CLIs are not installed:" + problems +
         " run tests/contract/install-clis.sh first";
}

scenario_run run_scenario(const scenario& s, const scenario_run* previous) {
  scenario_run r;
  if (previous) {
    r.dir = previous->dir;
  } else {
    r.dir = std::make_shared<test::temp_dir>();
  }
  const fs::path root = r.dir->path();
  r.ws = root / "ws";
  r.home = root / "home";
  r.sessions = root / "sessions";
  fs::create_directories(r.ws);
  fs::create_directories(r.home);
  for (const auto& [path, content] : s.files) r.dir->write("ws/" + path, content);

  // The mock provider, on a fresh port and log for every run.
  const fs::path port_file = root / "mock.port", log_file = root / "mock.log";
  std::error_code ec;
  fs::remove(port_file, ec);
  fs::remove(log_file, ec);
  auto script = contract_dir() / "scripts" / name_of(s.which) / (s.script + ".json");
  spawned_process mock;
  spawn_spec m;
  m.argv = {(test::binary_dir() / "ad-mock-provider").string(), "--api", api_of(s.which),
            "--script", script.string(), "--log", log_file.string(),
            "--port-file", port_file.string(), "--max-seconds", "300"};
  m.env = {"PATH=" + getenv_or_empty("PATH")};
  m.stderr_file = root / "mock.stderr";
  if (auto e = mock.start(m); !e.empty()) {
    r.failure = "cannot start the mock provider: " + e;
    return r;
  }
  int port = wait_for_port(port_file, mock);
  if (port == 0) {
    r.failure = "the mock provider did not start: " + read_all(root / "mock.stderr");
    return r;
  }

  // The CLI's configuration and environment, from cli-env.sh.
  spawn_spec e;
  e.argv = {"/bin/bash", (contract_dir() / "cli-env.sh").string()};
  e.argv.insert(e.argv.end(), s.env_options.begin(), s.env_options.end());
  e.argv.insert(e.argv.end(), {name_of(s.which), std::to_string(port), r.home.string()});
  e.env = {"PATH=" + getenv_or_empty("PATH")};
  e.stdout_file = root / "cli-env.out";
  e.stderr_file = root / "cli-env.err";
  auto env_run = run_to_end(e, std::chrono::seconds(20));
  if (!env_run.started || env_run.exit_code != 0) {
    r.failure = "cli-env.sh failed: " + env_run.start_error + read_all(e.stderr_file);
    return r;
  }
  spawn_spec c;
  c.argv = cli_argv(s, r);
  c.env = {"PATH=" + getenv_or_empty("PATH")};
  std::istringstream lines(read_all(e.stdout_file));
  for (std::string line; std::getline(lines, line);)
    if (line.find('=') != std::string::npos) c.env.push_back(line);
  c.cwd = r.ws;
  c.stdout_file = root / (std::string(name_of(s.which)) + ".stdout");
  c.stderr_file = root / (std::string(name_of(s.which)) + ".stderr");
  r.outcome = run_to_end(c, s.timeout);
  mock.stop();

  if (!r.outcome.started) r.failure = "cannot start the CLI: " + r.outcome.start_error;
  r.out = read_all(c.stdout_file);
  r.err = read_all(c.stderr_file);
  std::istringstream log(read_all(log_file));
  for (std::string line; std::getline(log, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) r.requests.push_back(std::move(j));
  }
  return r;
}

std::string file_text(const std::filesystem::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return "<missing>";
  return read_all(path);
}

} // namespace ad::contract

#include "tests/contract/contract_run.hpp"

#include <unistd.h>

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

} // namespace

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
  mock_provider mock;
  if (auto e = mock.start(s.which, script_path(s.which, s.script), root); !e.empty()) {
    r.failure = e;
    return r;
  }

  // The CLI's configuration and environment, from cli-env.sh.
  auto cli_env = run_cli_env(s.which, mock.port(), r.home, s.env_options, root);
  if (!cli_env.failure.empty()) {
    r.failure = cli_env.failure;
    return r;
  }
  spawn_spec c;
  c.argv = cli_argv(s, r);
  c.env = {"PATH=" + getenv_or_empty("PATH")};
  c.env.insert(c.env.end(), cli_env.env.begin(), cli_env.env.end());
  c.cwd = r.ws;
  c.stdout_file = root / (std::string(name_of(s.which)) + ".stdout");
  c.stderr_file = root / (std::string(name_of(s.which)) + ".stderr");
  r.outcome = run_to_end(c, s.timeout);
  mock.stop();

  if (!r.outcome.started) r.failure = "cannot start the CLI: " + r.outcome.start_error;
  r.out = read_all(c.stdout_file);
  r.err = read_all(c.stderr_file);
  r.requests = mock.requests();
  return r;
}

std::string file_text(const std::filesystem::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return "<missing>";
  return read_all(path);
}

} // namespace ad::contract

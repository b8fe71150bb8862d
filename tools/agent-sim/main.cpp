// agent-sim entry point: the only place that prints to the terminal and picks
// the exit code. Chooses the impersonated CLI from argv[0] or `--as NAME`, or
// runs one of the simulator's own modes (check-registry, validate-scenario,
// demo-scenario, --help).
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "tools/agent-sim/demo_scenario.hpp"
#include "tools/agent-sim/help_text.hpp"
#include "tools/agent-sim/invocation.hpp"
#include "tools/agent-sim/registry.hpp"
#include "tools/agent-sim/runner.hpp"
#include "tools/agent-sim/scenario.hpp"

namespace ad::agent_sim {
namespace {

// What the real CLI prints for `--version` (the versions the captures in
// tests/fixtures/realcli come from).
std::string version_text(persona as) {
  switch (as) {
    case persona::codex: return "codex-cli 0.171.0";
    case persona::claude: return "2.1.332 (Claude Code)";
    case persona::pi: return "0.73.1";
    case persona::agy: return "agy 0.0.0-agent-sim";
    case persona::command: break;
  }
  return "agent-sim";
}

// The options `--help` lists, as far as an adapter reads them: pi lists
// --approve and --session-id only as the original dispatcher's build
// (AGENT_SIM_PI_FLAVOR=dispatcher).
std::string help_of(persona as) {
  std::string out = "Usage: " + std::string(to_string(as)) + " [options] [prompt]\n\nOptions:\n";
  if (as == persona::pi) {
    const char* flavor = std::getenv("AGENT_SIM_PI_FLAVOR");
    bool dispatcher = flavor != nullptr && std::string_view(flavor) == "dispatcher";
    out += "  --provider <name>\n  --model <id>\n  --thinking <level>\n  --mode <mode>\n"
           "  --print, -p\n  --session <path>\n  --session-dir <dir>\n";
    if (dispatcher)
      out += "  --approve\n  --session-id <uuid>\n";
  }
  out += "  --help, -h\n  --version, -v\n";
  return out;
}

int impersonate(persona as, std::vector<std::string> argv, std::size_t skip) {
  std::vector<std::string> args(argv.begin() + static_cast<long>(skip), argv.end());
  if (args.size() == 1 && (args[0] == "--version" || args[0] == "-v" || args[0] == "-V")) {
    // pi prints its version on stderr when stdin is not a terminal.
    (as == persona::pi && ::isatty(0) != 1 ? std::cerr : std::cout) << version_text(as) << std::endl;
    return 0;
  }
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << help_of(as);
    return 0;
  }
  auto inv = parse_invocation(as, args);
  if (!inv) {
    std::cerr << "agent-sim: " << inv.error().message() << std::endl;
    return 2;
  }
  inv->argv = std::move(argv);
  return run_agent(*inv, environment_from_process(), std::cout, std::cerr);
}

int own_modes(int argc, char** argv) {
  CLI::App app{"agent-sim"};
  app.set_help_flag();
  bool help = false;
  app.add_flag("-h,--help", help);
  app.require_subcommand(0, 1);

  std::string registry;
  int max_parallel = 0;
  auto* check = app.add_subcommand("check-registry", "check the run registry's invariants");
  check->add_option("file", registry)->required();
  check->add_option("--max-parallel", max_parallel)->check(CLI::NonNegativeNumber);

  std::string scenario_file;
  auto* validate = app.add_subcommand("validate-scenario", "parse a scenario file");
  validate->add_option("file", scenario_file)->required();

  std::string out;
  std::vector<std::string> tasks;
  auto* demo = app.add_subcommand("demo-scenario", "write the demo scenario");
  demo->add_option("--out", out)->required();
  demo->add_option("--task", tasks);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::cerr << "agent-sim: " << e.what() << "\n(see agent-sim --help)" << std::endl;
    return 2;
  }
  if (help || app.get_subcommands().empty()) {
    std::cout << help_text();
    return help ? 0 : 2;
  }
  if (check->parsed()) {
    auto runs = read_registry(registry);
    if (!runs) {
      std::cerr << "agent-sim: " << runs.error().message() << std::endl;
      return 2;
    }
    auto violations = check_registry(*runs, max_parallel);
    for (const auto& v : violations) std::cout << v.message << "\n";
    if (violations.empty()) std::cout << runs->size() << " runs, no violations\n";
    return violations.empty() ? 0 : 1;
  }
  if (validate->parsed()) {
    auto s = load_scenario_file(scenario_file);
    if (!s) {
      std::cerr << "agent-sim: " << s.error().message() << std::endl;
      return 2;
    }
    std::cout << scenario_file << ": ok, " << s->tasks.size() << " tasks\n";
    return 0;
  }
  auto st = runtime::write_file_atomic(out, runtime::dump_json(demo_scenario(tasks), 2) + "\n");
  if (!st) {
    std::cerr << "agent-sim: " << st.message() << std::endl;
    return 2;
  }
  return 0;
}

int main_impl(int argc, char** argv) {
  std::vector<std::string> all(argv, argv + argc);
  std::string self = std::filesystem::path(all[0]).filename().string();
  if (auto p = persona_from(self); p && *p != persona::command) return impersonate(*p, all, 1);
  if (argc >= 3 && all[1] == "--as") {
    auto p = persona_from(all[2]);
    if (!p) {
      std::cerr << "agent-sim: unknown --as \"" << all[2] << "\" (codex, claude, agy, pi, command)" << std::endl;
      return 2;
    }
    return impersonate(*p, all, 3);
  }
  return own_modes(argc, argv);
}

} // namespace
} // namespace ad::agent_sim

int main(int argc, char** argv) {
  try {
    return ad::agent_sim::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "agent-sim: internal error: " << e.what() << std::endl;
    return 70;
  }
}

#include "tools/agent-sim/invocation.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

namespace ad::agent_sim {

std::string_view to_string(persona p) {
  switch (p) {
    case persona::codex: return "codex";
    case persona::claude: return "claude";
    case persona::agy: return "agy";
    case persona::pi: return "pi";
    case persona::command: return "command";
  }
  return "command";
}

std::optional<persona> persona_from(std::string_view name) {
  for (persona p : {persona::codex, persona::claude, persona::agy, persona::pi, persona::command})
    if (to_string(p) == name) return p;
  return std::nullopt;
}

runtime::result<invocation> parse_invocation(persona as, const std::vector<std::string>& args) {
  invocation inv;
  inv.as = as;
  CLI::App app{"agent-sim as " + std::string(to_string(as))};
  app.allow_extras();
  app.set_help_flag();  // a real agent's --help is not ours to answer
  std::vector<std::string> positionals;
  std::vector<std::string> configs;
  std::string ignored;
  switch (as) {
    case persona::codex:
      // codex exec --json -C <ws> -m <model> -c key="v" --dangerously-... <prompt>
      app.add_flag("--json");
      app.add_option("-C,--cd", inv.workspace);
      app.add_option("-m,--model", inv.model);
      app.add_option("-c,--config", configs)->allow_extra_args(false);
      app.add_flag("--dangerously-bypass-approvals-and-sandbox");
      break;
    case persona::claude:
      app.add_flag("-p,--print");
      app.add_option("--output-format", ignored);
      app.add_flag("--verbose");
      app.add_option("--session-id", inv.session_id);
      app.add_option("--model", inv.model);
      app.add_option("--effort", inv.effort);
      app.add_flag("--dangerously-skip-permissions");
      break;
    case persona::agy:
      app.add_option("--print", inv.prompt);
      app.add_option("--print-timeout", ignored);
      app.add_option("--model", inv.model);
      app.add_flag("--dangerously-skip-permissions");
      app.add_option("--log-file", inv.log_file);
      break;
    case persona::pi:
      app.add_flag("-p,--print");
      app.add_option("--mode", ignored);
      app.add_flag("--approve");
      app.add_option("--provider", inv.provider);
      app.add_option("--model", inv.model);
      app.add_option("--thinking", inv.effort);
      app.add_option("--session-id", inv.session_id);
      app.add_option("--session-dir", inv.session_dir);
      app.add_option("--session", inv.session_file);
      break;
    case persona::command:
      app.add_option("--task", inv.task);
      app.add_option("--role", inv.role);
      app.add_option("--workspace", inv.workspace);
      app.add_option("--scenario", inv.scenario);
      app.add_option("--model", inv.model);
      app.add_option("--prompt", inv.prompt);
      break;
  }
  app.add_option("args", positionals);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return runtime::status::invalid_argument(std::string(to_string(as)) + " arguments: " + e.what());
  }
  if (as == persona::pi) {
    for (const auto& a : args) {
      std::string name = a.substr(0, a.find('='));
      if ((name == "--approve" || name == "--session-id") &&
          std::find(inv.pi_dispatcher_options.begin(), inv.pi_dispatcher_options.end(), name) ==
              inv.pi_dispatcher_options.end())
        inv.pi_dispatcher_options.push_back(name);
    }
  }
  for (const auto& c : configs) {
    const std::string key = "model_reasoning_effort=";
    if (c.rfind(key, 0) == 0) {
      inv.effort = c.substr(key.size());
      if (inv.effort.size() >= 2 && inv.effort.front() == '"' && inv.effort.back() == '"')
        inv.effort = inv.effort.substr(1, inv.effort.size() - 2);
    }
  }
  // codex: positionals are "exec" then the prompt; others: the prompt last.
  if (inv.prompt.empty() && !positionals.empty()) {
    if (as == persona::codex && positionals.front() == "exec") positionals.erase(positionals.begin());
    if (!positionals.empty()) inv.prompt = positionals.back();
  }
  if (inv.prompt.empty() && as != persona::command)
    return runtime::status::invalid_argument(std::string(to_string(as)) + " arguments: no prompt");
  return inv;
}

} // namespace ad::agent_sim

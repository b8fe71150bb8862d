// `agent-dispatch doctor [--policy FILE] [--workspace DIR] [--json]`: every
// agent CLI the effective policy names, with its version and what was
// detected, then every target with what will not work and the fix
// (docs/agents.md), and the workspace's state root as every command opens it
// (runtime::open_state_root). Exits 0 when every target can run and the
// state root can be read, 2 otherwise (also for a policy that does not load).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>

#include "runtime/agents/cli_doctor.hpp"
#include "runtime/agents/cli_probe.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/process/run_captured.hpp"
#include "runtime/state/root.hpp"
#include "tools/cli/commands.hpp"

namespace ad::cli {

namespace {

struct doctor_options {
  std::string policy_file;
  std::string workspace;
  bool json = false;
};

int run_doctor(const doctor_options& opt) {
  std::optional<std::filesystem::path> file;
  if (!opt.policy_file.empty())
    file = opt.policy_file;
  std::error_code ec;
  std::filesystem::path ws = opt.workspace.empty() ? std::filesystem::current_path(ec)
                                                   : std::filesystem::path(opt.workspace);
  auto loaded = runtime::load_policy(file, ws);
  if (!loaded) {
    std::cerr << "doctor: policy: " << loaded.error().message() << "\n";
    return exit_blocked;
  }
  std::map<std::string, runtime::cli_probe_result> probes;
  std::vector<runtime::doctor_target> targets;
  for (const auto& t : loaded->value.targets) {
    targets.push_back({t.id, t.adapter, t.model, t.provider, t.env});
    auto kind = runtime::parse_adapter_kind(t.adapter);
    if (!kind.is_ok() || *kind == runtime::adapter_kind::command || probes.contains(t.adapter))
      continue;
    probes.emplace(t.adapter, runtime::probe_cli(*kind, runtime::cli_executable_name(*kind)));
  }
  runtime::doctor_facts facts;
  facts.root = ::geteuid() == 0;
  if (const char* sandbox = std::getenv("IS_SANDBOX"))
    facts.is_sandbox_env = sandbox;
  if (auto pi = probes.find("pi"); pi != probes.end() && pi->second.found) {
    runtime::capture_options options;
    options.timeout = std::chrono::seconds(30);
    auto listed = runtime::run_captured({pi->second.resolved.string(), "--list-models"}, options);
    // pi prints the table on stderr when stdout is not a terminal (as it
    // does --version), on stdout otherwise.
    if (listed.exit_code == 0)
      facts.pi_models_table = listed.stdout_text + listed.stderr_text;
  }
  auto findings = runtime::doctor_findings(targets, probes, facts);
  size_t broken = 0;
  for (const auto& f : findings)
    broken += f.ok() ? 0 : 1;
  // The workspace's durable state, checked as every reader opens it.
  std::string root_path, root_state, root_problem;
  if (auto identity = runtime::identify_workspace(ws); !identity.is_ok()) {
    root_state = "damaged";
    root_problem = identity.error().message();
  } else if (auto root = runtime::open_state_root(*identity, runtime::state_env::from_process());
             !root.is_ok()) {
    root_state = "damaged";
    root_problem = root.error().message(); // it names the path
  } else {
    root_path = root->path.string();
    root_state = root->kind == runtime::state_root_kind::fresh ? "fresh" : "existing";
  }
  const bool root_ok = root_problem.empty();

  if (opt.json) {
    runtime::json clis = runtime::json::array();
    for (const auto& [adapter, p] : probes)
      clis.push_back({{"adapter", adapter},
                      {"found", p.found},
                      {"path", p.resolved.string()},
                      {"version", p.caps.version},
                      {"pi_approve", p.caps.pi_approve},
                      {"pi_session_id", p.caps.pi_session_id},
                      {"problems", p.problems}});
    runtime::json list = runtime::json::array();
    for (const auto& f : findings)
      list.push_back({{"target", f.target},
                      {"adapter", f.adapter},
                      {"model", f.model},
                      {"ok", f.ok()},
                      {"problems", f.problems},
                      {"notes", f.notes}});
    runtime::json state_root{{"path", root_path}, {"state", root_state}};
    if (!root_ok)
      state_root["problem"] = root_problem;
    std::cout << runtime::dump_json(runtime::json{{"policy", loaded->source},
                                                  {"clis", clis},
                                                  {"targets", list},
                                                  {"state_root", state_root},
                                                  {"broken", broken}},
                                    2)
              << "\n";
    return broken == 0 && root_ok ? exit_ok : exit_blocked;
  }
  std::cout << "policy: " << loaded->source << "\n";
  for (const auto& [adapter, p] : probes)
    std::cout << runtime::describe_probe(p) << "\n";
  for (const auto& f : findings) {
    std::cout << "target " << f.target << " (" << f.adapter << ", model " << f.model << "): "
              << (f.ok() ? "ok" : "will not work") << "\n";
    for (const auto& p : f.problems)
      std::cout << "  - " << p << "\n";
  }
  if (root_ok)
    std::cout << "state root " << root_path << ": "
              << (root_state == "fresh" ? "no durable state yet" : "durable state present") << "\n";
  else
    std::cout << "state root: will not work\n  - " << root_problem << "\n";
  std::cout << "doctor: " << (findings.size() - broken) << " of " << findings.size()
            << " targets can run\n";
  return broken == 0 && root_ok ? exit_ok : exit_blocked;
}

} // namespace

void add_doctor_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<doctor_options>();
  auto* cmd = app.add_subcommand(
    "doctor", "Check every target's agent CLI (found, version, detected options, what will not "
              "work with the fix) and the workspace's state root; exit 2 when a target cannot run "
              "or the state root is damaged");
  cmd->add_option("--policy", opt->policy_file,
                  "policy file (default: <workspace>/agent-dispatch.json, else the embedded "
                  "policy)");
  cmd->add_option("--workspace", opt->workspace, "workspace root (default: current folder)");
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([opt, &out] { out = [opt] { return run_doctor(*opt); }; });
}

} // namespace ad::cli

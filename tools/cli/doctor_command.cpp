// `agent-dispatch doctor [--policy FILE] [--workspace DIR] [--json]`: every
// agent CLI the effective policy names, with its version and what was
// detected, then every target with what will not work and the fix
// (docs/agents.md). Exits 0 when every target can run, 2 otherwise (also for
// a policy that does not load).
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
    std::cout << runtime::dump_json(runtime::json{{"policy", loaded->source},
                                                  {"clis", clis},
                                                  {"targets", list},
                                                  {"broken", broken}},
                                    2)
              << "\n";
    return broken == 0 ? exit_ok : exit_blocked;
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
  std::cout << "doctor: " << (findings.size() - broken) << " of " << findings.size()
            << " targets can run\n";
  return broken == 0 ? exit_ok : exit_blocked;
}

} // namespace

void add_doctor_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<doctor_options>();
  auto* cmd = app.add_subcommand(
    "doctor", "Check every target's agent CLI: found, version, detected options, and what will "
              "not work with the fix; exit 2 when a target cannot run");
  cmd->add_option("--policy", opt->policy_file,
                  "policy file (default: <workspace>/agent-dispatch.json, else the embedded "
                  "policy)");
  cmd->add_option("--workspace", opt->workspace, "workspace root (default: current folder)");
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([opt, &out] { out = [opt] { return run_doctor(*opt); }; });
}

} // namespace ad::cli

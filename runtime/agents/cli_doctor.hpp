#pragma once
// `agent-dispatch doctor`: for every target of a policy, whether its agent
// CLI will work on this machine, in plain words with the fix
// (docs/agents.md). Built from facts gathered elsewhere (the capability
// probes of cli_probe.hpp, whether the dispatcher runs as root, pi's
// `--list-models` table), so every rule is a pure function: no I/O, never
// throws.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/agents/cli_probe.hpp"

namespace ad::runtime {

struct doctor_target {
  std::string id;
  std::string adapter;
  std::string model;
  std::string provider;                   // pi: "" = iop
  std::map<std::string, std::string> env; // the target's env from the policy
};

struct doctor_facts {
  bool root = false;          // the dispatcher runs with euid 0
  std::string is_sandbox_env; // IS_SANDBOX of the dispatcher's environment
  // What `pi --list-models` printed, when pi was found and answered.
  std::optional<std::string> pi_models_table;
};

struct doctor_finding {
  std::string target;
  std::string adapter;
  std::string model;
  std::vector<std::string> problems; // each "what will not work. Fix: ..."
  std::vector<std::string> notes;    // what was detected
  bool ok() const { return problems.empty(); }
};

// One line per CLI the policy uses: "codex: codex-cli 0.171.0 (/usr/bin/codex)".
std::string describe_probe(const cli_probe_result& probe);

// The provider/model pairs of a `pi --list-models` table (header skipped).
std::vector<std::pair<std::string, std::string>> parse_pi_model_table(const std::string& table);

std::vector<doctor_finding> doctor_findings(const std::vector<doctor_target>& targets,
                                            const std::map<std::string, cli_probe_result>& probes,
                                            const doctor_facts& facts);

} // namespace ad::runtime

#include "runtime/agents/cli_doctor.hpp"

#include <sstream>

namespace ad::runtime {

namespace {

std::string pi_flags_note(const cli_capabilities& caps) {
  if (caps.pi_session_id && caps.pi_approve)
    return "accepts --approve and --session-id (the original dispatcher's build)";
  std::string note = caps.pi_session_id ? "accepts --session-id"
                                        : "names its own session files (no --session-id)";
  note += caps.pi_approve ? ", accepts --approve" : ", no --approve (not needed in -p mode)";
  return note;
}

} // namespace

std::string describe_probe(const cli_probe_result& probe) {
  std::string name(to_string(probe.kind));
  if (!probe.found)
    return name + ": not found on PATH";
  std::string out = name + ": "
                    + (probe.caps.version.empty() ? std::string("version unknown")
                                                  : probe.caps.version)
                    + " (" + probe.resolved.string() + ")";
  if (probe.kind == adapter_kind::pi && probe.caps.detected)
    out += "; " + pi_flags_note(probe.caps);
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_pi_model_table(const std::string& table) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(table);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string provider, model;
    if (!(words >> provider >> model))
      continue;
    if (header && provider == "provider" && model == "model") {
      header = false;
      continue;
    }
    if (header)
      continue; // no table (pi printed a message instead)
    out.emplace_back(provider, model);
  }
  return out;
}

std::vector<doctor_finding> doctor_findings(const std::vector<doctor_target>& targets,
                                            const std::map<std::string, cli_probe_result>& probes,
                                            const doctor_facts& facts) {
  std::vector<doctor_finding> out;
  std::vector<std::pair<std::string, std::string>> pi_models;
  if (facts.pi_models_table)
    pi_models = parse_pi_model_table(*facts.pi_models_table);
  for (const auto& t : targets) {
    doctor_finding f;
    f.target = t.id;
    f.adapter = t.adapter;
    f.model = t.model;
    auto probe = probes.find(t.adapter);
    if (t.adapter == "command") {
      f.notes.push_back("a command template: not probed");
      out.push_back(std::move(f));
      continue;
    }
    if (probe == probes.end() || !probe->second.found) {
      f.problems.push_back(t.adapter + " is not on PATH, so no attempt on this target can start. "
                           "Fix: install the " + t.adapter + " CLI (docs/agents.md) or remove the "
                           "target from the policy.");
      out.push_back(std::move(f));
      continue;
    }
    const auto& p = probe->second;
    for (const auto& problem : p.problems)
      f.problems.push_back(problem + ". Fix: check that the CLI runs by hand.");
    if (t.adapter == "agy")
      f.notes.push_back("agy has no public release to test against: its adapter is unverified");
    if (t.adapter == "claude" && facts.root) {
      auto env = t.env.find("IS_SANDBOX");
      std::string sandbox = env != t.env.end() ? env->second : facts.is_sandbox_env;
      if (sandbox != "1")
        f.problems.push_back(
          "claude refuses --dangerously-skip-permissions when run as root, and agent-dispatch "
          "runs as root. Fix: run agent-dispatch as an ordinary user, or, if this machine is a "
          "disposable sandbox, set \"env\": {\"IS_SANDBOX\": \"1\"} on this target.");
    }
    if (t.adapter == "pi") {
      std::string provider = t.provider.empty() ? std::string(default_pi_provider) : t.provider;
      if (facts.pi_models_table) {
        bool listed = false;
        for (const auto& [prov, model] : pi_models)
          if (prov == provider && model == t.model)
            listed = true;
        if (!listed)
          f.problems.push_back(
            "pi lists no model \"" + t.model + "\" for provider \"" + provider
            + "\" (`pi --list-models`), so the attempt's first request will fail. Fix: log in to "
              "the provider with pi, add the model to ~/.pi/agent/models.json, or set the "
              "target's provider and model to ones `pi --list-models` shows.");
      }
      if (p.caps.detected)
        f.notes.push_back(pi_flags_note(p.caps));
    }
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace ad::runtime

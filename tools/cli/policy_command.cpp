// `agent-dispatch policy check [FILE] [--workspace DIR]`: validates a policy
// file (or the workspace's agent-dispatch.json, or the embedded default) merged
// over the defaults, including its time zone; prints every error with file,
// JSON pointer, expected and found on stderr and exits 2.
// `agent-dispatch policy show [--policy FILE] [--workspace DIR]`: prints the
// effective policy as JSON.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "tools/cli/commands.hpp"

namespace ad::cli {

namespace {

struct policy_options {
  std::string file;
  std::string workspace;
};

runtime::result<runtime::loaded_policy> load(const policy_options& opt) {
  std::optional<std::filesystem::path> file;
  if (!opt.file.empty())
    file = opt.file;
  std::error_code ec;
  std::filesystem::path ws =
    opt.workspace.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(opt.workspace);
  auto loaded = runtime::load_policy(file, ws);
  if (!loaded)
    return loaded;
  auto zone = runtime::load_time_zone(loaded->value.timezone);
  if (!zone)
    return runtime::status::invalid_argument(loaded->source + ": /timezone: expected a zone of the tz database, found \"" +
                                             loaded->value.timezone + "\" (" + zone.error().message() + ")");
  return loaded;
}

int run_check(const policy_options& opt) {
  auto loaded = load(opt);
  if (!loaded) {
    std::cerr << "policy check failed:\n" << loaded.error().message() << "\n";
    return exit_blocked;
  }
  const runtime::policy& p = loaded->value;
  std::string spending;
  std::string priced;
  for (const auto& [target, prices] : p.prices)
    priced += (priced.empty() ? "" : ", ") + target;
  if (!priced.empty())
    spending += "; prices for " + priced;
  if (!p.limits.empty())
    spending += "; ceilings: " + runtime::describe_limits(p.limits);
  std::cout << "policy OK: " << loaded->source << " (" << p.targets.size() << " targets, "
            << p.rules.size() << " rules, time zone " << p.timezone << spending << ")\n";
  for (const auto& line : runtime::describe_notify(p.notify))
    std::cout << "notify " << line << "\n";
  return exit_ok;
}

int run_show(const policy_options& opt) {
  auto loaded = load(opt);
  if (!loaded) {
    std::cerr << "policy show: " << loaded.error().message() << "\n";
    return exit_blocked;
  }
  std::cout << runtime::dump_json(runtime::policy_to_json(loaded->value), 2) << "\n";
  return exit_ok;
}

} // namespace

void add_policy_command(CLI::App& app, handler& out) {
  auto* cmd = app.add_subcommand("policy", "Check or show the execution policy");
  cmd->require_subcommand(1);

  auto check = std::make_shared<policy_options>();
  auto* c = cmd->add_subcommand(
    "check", "Validate a policy file merged over the defaults (default: the workspace's "
             "agent-dispatch.json, else the embedded policy); exit 2 with every error");
  c->add_option("FILE", check->file, "the policy file");
  c->add_option("--workspace", check->workspace, "workspace root (default: current folder)");
  c->callback([check, &out] { out = [check] { return run_check(*check); }; });

  auto show = std::make_shared<policy_options>();
  auto* s = cmd->add_subcommand("show", "Print the effective policy as JSON");
  s->add_option("--policy", show->file, "a policy file to merge over the defaults");
  s->add_option("--workspace", show->workspace, "workspace root (default: current folder)");
  s->callback([show, &out] { out = [show] { return run_show(*show); }; });
}

} // namespace ad::cli

// `agent-dispatch status [--workspace DIR] [--json] [--policy FILE]`: shows
// each task's stage, status, reason, attempts, current target, failure
// budget used and its live attempt with the locator, read from the durable
// state WITHOUT taking the lock, so it works while a dispatcher runs. Writes
// nothing. Exit 0 when shown, 2 when the workspace or the state cannot be
// read: a damaged state root (open_state_root) is an error naming the path
// and the fix, never shown as an empty state.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "runtime/observe/state_reader.hpp"
#include "runtime/observe/status_view.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/state/root.hpp"
#include "runtime/workspace/task_scan.hpp"
#include "tools/cli/commands.hpp"

namespace ad::cli {
namespace {

namespace fs = std::filesystem;

struct status_options {
  std::string workspace;
  std::string policy;
  std::string task_group;
  bool json = false;
};

int fail(const std::string& what) {
  std::cerr << "status: " << what << "\n";
  return exit_blocked;
}

int run_status(const status_options& opt) {
  std::error_code ec;
  fs::path workspace = runtime::chosen_workspace(opt.workspace, fs::current_path(ec));
  std::optional<std::string> group;
  if (!opt.task_group.empty())
    group = opt.task_group;
  auto scan = runtime::scan_workspace(workspace, group);
  if (!scan)
    return fail(scan.error().message());
  auto identity = runtime::identify_workspace(scan->workspace);
  if (!identity)
    return fail(identity.error().message());
  auto root = runtime::open_state_root(*identity, runtime::state_env::from_process());
  if (!root)
    return fail(root.error().message());
  std::optional<fs::path> policy_file;
  if (!opt.policy.empty())
    policy_file = opt.policy;
  auto pol = runtime::load_policy(policy_file, scan->workspace);
  if (!pol)
    return fail(pol.error().message());
  auto state = runtime::read_state_unlocked(*root, identity->path, identity->id);
  if (!state)
    return fail(state.error().message());

  runtime::system_clock clk;
  runtime::status_input in;
  in.scan = &*scan;
  in.state = &*state;
  in.pol = &pol->value;
  in.where.workspace = identity->path;
  in.where.workspace_id = identity->id;
  in.where.runs_dir = root->path / "runs";
  in.state_root = root->path.string();
  in.group = group;
  auto report = runtime::build_status_report(in, clk);
  if (opt.json)
    std::cout << runtime::render_status_json_lines(report);
  else
    std::cout << runtime::render_status_text(report, clk);
  std::cout.flush();
  return exit_ok;
}

} // namespace

void add_status_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<status_options>();
  auto* cmd = app.add_subcommand(
    "status", "Show every task's stage, status, attempts and live agents (read-only, no lock)");
  cmd->add_option("--workspace", opt->workspace,
                  "workspace root holding agent-task/ (default: nearest ancestor of the "
                  "current folder holding agent-task/)");
  cmd->add_option("--task-group", opt->task_group, "only this task group");
  cmd->add_option("--policy", opt->policy,
                  "policy file (default: <workspace>/agent-dispatch.json, else the embedded one)");
  cmd->add_flag("--json", opt->json,
                "print JSON Lines: a dispatcher object, one task object per line, then a summary");
  cmd->callback([opt, &out] { out = [opt] { return run_status(*opt); }; });
}

} // namespace ad::cli

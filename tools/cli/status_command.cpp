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

#include "runtime/observe/status_view.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/status_reading.hpp"

namespace ad::cli {
namespace {

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
  runtime::system_clock clk;
  auto reading = read_status({opt.workspace, opt.policy, opt.task_group}, clk,
                             after_reading::keep_until_exit);
  if (!reading)
    return fail(reading.error().message());
  if (opt.json)
    std::cout << runtime::render_status_json_lines(reading->report);
  else
    std::cout << runtime::render_status_text(reading->report, clk);
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

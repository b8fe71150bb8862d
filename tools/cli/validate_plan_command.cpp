// `agent-dispatch validate-plan PATH [--workspace DIR]`: prints the canonical
// write set of a PLAN, or its diagnostics on stderr with exit 2.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "runtime/workspace/task_scan.hpp"
#include "runtime/workspace/write_set.hpp"
#include "tools/cli/commands.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

namespace {

struct validate_plan_options {
  std::string plan;
  std::string workspace;
};

int run_validate_plan(const validate_plan_options& opt) {
  std::error_code ec;
  fs::path plan = opt.plan;
  if (!fs::exists(plan, ec)) {
    std::cerr << "validate-plan: " << opt.plan << ": no such file\n";
    return exit_blocked;
  }
  if (fs::is_directory(plan, ec)) {
    std::cerr << "validate-plan: " << opt.plan << " is a folder; pass a PLAN file\n";
    return exit_blocked;
  }
  fs::path workspace;
  if (!opt.workspace.empty()) {
    workspace = opt.workspace;
    if (!fs::is_directory(workspace, ec)) {
      std::cerr << "validate-plan: workspace " << opt.workspace << " is not a folder\n";
      return exit_blocked;
    }
  } else {
    auto root = runtime::find_workspace_root(plan);
    if (!root.is_ok()) {
      std::cerr << "validate-plan: cannot find the workspace: " << root.error().message()
                << "; pass --workspace DIR\n";
      return exit_blocked;
    }
    workspace = *root;
  }
  auto report = runtime::inspect_write_set_file(plan, workspace, opt.plan);
  if (!report.valid()) {
    for (const auto& d : report.diagnostics)
      std::cerr << "error: " << d.message << "\n";
    return exit_blocked;
  }
  for (const auto& path : report.paths)
    std::cout << path << "\n";
  return exit_ok;
}

} // namespace

void add_validate_plan_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<validate_plan_options>();
  auto* cmd = app.add_subcommand(
      "validate-plan",
      "Check a PLAN's Modified Files Summary and print each claimed canonical path "
      "(exit 0), or each problem on stderr (exit 2)");
  cmd->set_version_flag("--version", AD_VERSION);
  cmd->add_option("PATH", opt->plan, "the PLAN file")->required();
  cmd->add_option("--workspace", opt->workspace,
                  "workspace root (default: nearest ancestor of PATH holding agent-task/)");
  cmd->callback([opt, &out] { out = [opt] { return run_validate_plan(*opt); }; });
}

} // namespace ad::cli

// `agent-dispatch run [--workspace DIR] [--task-group G] [--max-parallel N]
// [--dry-run] [--retry-blocked] [--policy FILE] [--json] [--trace FILE]`: with --dry-run,
// classifies every task and prints what the dispatcher would do, writing
// nothing; otherwise runs the dispatch loop (tools/cli/run_loop.hpp).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "runtime/workspace/dry_run.hpp"
#include "runtime/workspace/dry_run_render.hpp"
#include "runtime/workspace/task_scan.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/distributed_setup.hpp"
#include "tools/cli/number_option.hpp"
#include "tools/cli/run_loop.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

namespace {

struct run_options {
  std::string workspace;
  std::string task_group;
  int max_parallel = 0;
  bool dry_run = false;
  bool retry_blocked = false;
  std::string policy_file;
  bool json = false;
  std::string trace_file;
  int verbosity = 0;
  std::vector<std::string> nodes;
  int local_slots = 0;
  int64_t lease_ms = 0;
  int64_t lease_margin_ms = 0;
  tls_files tls;
  std::string web;
  std::string token_file;
};

int run_run(const run_options& opt) {
  std::error_code ec;
  fs::path workspace = runtime::chosen_workspace(opt.workspace, fs::current_path(ec));
  if (!opt.dry_run) {
    run_loop_options loop;
    loop.workspace = workspace.string();
    loop.task_group = opt.task_group;
    loop.policy_file = opt.policy_file;
    loop.max_parallel = opt.max_parallel;
    loop.retry_blocked = opt.retry_blocked;
    loop.json = opt.json;
    loop.trace_file = opt.trace_file;
    loop.verbosity = opt.verbosity;
    loop.nodes = opt.nodes;
    loop.local_slots = opt.local_slots;
    loop.lease_ms = opt.lease_ms;
    loop.lease_margin_ms = opt.lease_margin_ms;
    loop.tls = opt.tls;
    loop.web = opt.web;
    loop.web_token_file = opt.token_file;
    return run_loop(loop);
  }
  std::optional<std::string> group;
  if (!opt.task_group.empty())
    group = opt.task_group;
  auto scan = runtime::scan_workspace(workspace, group);
  if (!scan.is_ok()) {
    std::cerr << "run: " << scan.error().message() << "\n";
    return exit_blocked;
  }
  for (const auto& w : scan->warnings)
    std::cerr << "warning: " << w << "\n";

  runtime::dry_run_input input;
  input.scan = &*scan;
  input.group = group;
  input.max_parallel = opt.max_parallel;
  auto report = runtime::plan_dry_run(input);
  if (opt.json)
    std::cout << runtime::render_dry_run_json_lines(report);
  else
    std::cout << runtime::render_dry_run_text(report);
  std::cout.flush();
  return report.summary.exit_code;
}

} // namespace

void add_run_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<run_options>();
  auto* cmd = app.add_subcommand("run", "Dispatch every ready task until nothing is left to run");
  cmd->set_version_flag("--version", AD_VERSION);
  cmd->add_option("--workspace", opt->workspace,
                  "workspace root holding agent-task/ (default: nearest ancestor of the "
                  "current folder holding agent-task/)");
  cmd->add_option("--task-group", opt->task_group, "only this task group (a folder under agent-task/)");
  add_number_option(*cmd, "--max-parallel", opt->max_parallel,
                    "cap on running tasks (0 = unlimited)", 0);
  cmd->add_flag("--dry-run", opt->dry_run,
                "classify every task and print its stage, route, dependency state, status "
                "and reason; write nothing");
  cmd->add_flag("--retry-blocked", opt->retry_blocked,
                "clear blocks and failure budgets before running (a worker blocked by a "
                "failover-qualified failure fails over on its next attempt)");
  cmd->add_option("--policy", opt->policy_file,
                  "policy file (default: <workspace>/agent-dispatch.json, else the embedded "
                  "default)");
  cmd->add_flag("--json", opt->json,
                "stdout is JSON Lines: with --dry-run one task object per line, then a "
                "summary; otherwise the run events of docs/events.md");
  cmd->add_option("--trace", opt->trace_file,
                  "record a message trace (JSON Lines) of the run's edges and decisions to FILE "
                  "(see docs/traces.md; replay it with `agent-dispatch replay FILE`)");
  cmd->add_flag("-v,--verbose", opt->verbosity,
                "more detail on stderr: -v info, -vv debug (the debug log "
                "<state root>/logs/agent-dispatch.log always has everything)");
  cmd->add_option("--node", opt->nodes,
                  "a worker node (`agent-dispatch node`) as HOST:PORT; repeatable. With nodes, "
                  "agents run on them only, unless --local-slots (docs/distributed.md)");
  add_number_option(*cmd, "--local-slots", opt->local_slots,
                    "with --node: also run this many agents on this host", 0);
  add_number_option(*cmd, "--lease-ms", opt->lease_ms,
                    "with --node: the nodes' lease (default 10000; the nodes' --lease-ms must match)",
                    int64_t{0});
  add_number_option(*cmd, "--lease-margin-ms", opt->lease_margin_ms,
                    "with --node: how long past a lost node's lease its attempts are replaced "
                    "(default 10000)",
                    int64_t{0});
  add_tls_options(*cmd, opt->tls);
  cmd->add_option("--web", opt->web,
                  "serve this run's live dashboard on HOST:PORT (port 0: any free port; the "
                  "address is printed on stderr); beyond loopback only with --token "
                  "(docs/dashboard.md)");
  cmd->add_option("--token", opt->token_file,
                  "with --web: a file holding the token the page and the API ask for");
  cmd->footer("Every agent runs under ad-keeper ($AD_KEEPER, else beside agent-dispatch, else "
              "on PATH), so it outlives a dispatcher crash or upgrade: a restarted run adopts "
              "it (docs/restart.md).");
  cmd->callback([opt, &out] { out = [opt] { return run_run(*opt); }; });
}

} // namespace ad::cli

// `agent-dispatch serve --listen ADDR [--workspace DIR] [--token FILE]
// [--task-group G] [--policy FILE]`: the dashboard (docs/dashboard.md) of a
// workspace, read from its state root through the same check as `status`
// (tools/cli/status_reading.hpp), without the lock and without writing,
// whether or not a run is active. It re-reads when the journal or the
// snapshot changed (checked every second) and at least every 5 seconds
// (the workspace's folders), and tells the event streams when what it
// shows changed. Runs until SIGINT or SIGTERM; exit 0 then, 2 when the
// workspace, the state or the address is not usable at start.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/observe/attempt_log.hpp"
#include "runtime/observe/dashboard_state.hpp"
#include "runtime/observe/task_intervention.hpp"
#include "runtime/report/output_tail.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/dashboard_server.hpp"
#include "tools/cli/retry_command.hpp"
#include "tools/cli/status_reading.hpp"

namespace ad::cli {
namespace {

namespace fs = std::filesystem;

struct serve_options {
  status_request request;
  std::string listen;
  std::string token_file;
};

struct served_state {
  std::mutex mutex;
  status_reading reading;
  std::string retry_prefix;
  runtime::system_clock clk;
};

int run_serve(const serve_options& opt) {
  auto view = std::make_shared<served_state>();
  auto first = read_status(opt.request, view->clk);
  if (!first) {
    std::cerr << "serve: " << first.error().message() << "\n";
    return exit_blocked;
  }
  view->reading = std::move(*first);
  view->retry_prefix = retry_command(view->reading.workspace);
  auto output = [](const std::string&, const std::string& locator) {
    return runtime::read_attempt_live(locator);
  };
  dashboard_source source;
  source.state = [view, output] {
    std::lock_guard lock(view->mutex);
    return runtime::dashboard_state_of(view->reading.report, view->clk.now(), view->retry_prefix,
                                       output);
  };
  source.task = [view, output, workspace = view->reading.workspace](const std::string& name) {
    std::optional<runtime::json> j;
    {
      std::lock_guard lock(view->mutex);
      j = runtime::dashboard_task_of(view->reading.report, name, view->clk.now(),
                                     view->retry_prefix, output);
    }
    if (j)
      (*j)["work_log"] = runtime::task_work_log_rows(workspace, name);
    return j;
  };
  source.log = [runs = (fs::path(view->reading.state_root) / "runs").string()](
                 const std::string& identity, const std::string& file, uint64_t offset,
                 size_t limit) { return runtime::attempt_log_page(runs, identity, file, offset, limit); };
  source.targets = [view, output] {
    std::lock_guard lock(view->mutex);
    return runtime::dashboard_targets_of(view->reading.report, view->clk.now(), output);
  };
  source.nodes = [view, output] {
    std::lock_guard lock(view->mutex);
    return runtime::dashboard_nodes_of(view->reading.report, view->clk.now(), output);
  };

  // SIGINT/SIGTERM are taken by sigtimedwait below, on this thread only:
  // blocked before the server's threads start, so they inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto events = std::make_shared<runtime::event_fanout>();
  auto server = dashboard_server::start({opt.listen, opt.token_file, "--listen"}, source, events);
  if (!server) {
    std::cerr << "serve: " << server.error().message() << "\n";
    return exit_blocked;
  }
  std::cout << "serve: dashboard of " << view->reading.workspace << " at " << (*server)->url()
            << ((*server)->needs_token() ? " (the page and the API ask for the --token)" : "")
            << "; reading " << view->reading.state_root << " without writing" << std::endl;

  auto shown = [&] {
    auto j = source.state();
    j.erase("time");
    return runtime::dump_json(j);
  };
  std::string last_shown = shown();
  std::string stamp = runtime::state_files_stamp(view->reading.state_root);
  auto last_read = std::chrono::steady_clock::now();
  for (;;) {
    timespec second{1, 0};
    int signo = sigtimedwait(&stop_signals, nullptr, &second);
    if (signo == SIGINT || signo == SIGTERM)
      break;
    auto now_stamp = runtime::state_files_stamp(view->reading.state_root);
    bool due = std::chrono::steady_clock::now() - last_read >= std::chrono::seconds(5);
    if (now_stamp == stamp && !due)
      continue;
    stamp = now_stamp;
    last_read = std::chrono::steady_clock::now();
    auto next = read_status(opt.request, view->clk);
    if (!next) {
      std::cerr << "serve: " << next.error().message() << " (showing the last reading)\n";
      continue;
    }
    {
      std::lock_guard lock(view->mutex);
      view->reading = std::move(*next);
    }
    auto now_shown = shown();
    if (now_shown != last_shown) {
      last_shown = std::move(now_shown);
      events->publish(sse_message("state_changed", runtime::json{{"seq", view->reading.report.seq}}));
    }
  }
  std::cout << "serve: stopped" << std::endl;
  return exit_ok;
}

} // namespace

void add_serve_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<serve_options>();
  auto* cmd = app.add_subcommand(
    "serve", "Serve the live dashboard of a workspace from its state (read-only, no lock)");
  cmd->add_option("--listen", opt->listen,
                  "address to serve on, HOST:PORT (port 0: any free port); beyond loopback only "
                  "with --token")
    ->required();
  cmd->add_option("--workspace", opt->request.workspace,
                  "workspace root holding agent-task/ (default: nearest ancestor of the "
                  "current folder holding agent-task/)");
  cmd->add_option("--token", opt->token_file,
                  "a file holding the token the page and the API ask for (bearer header); "
                  "needed beyond loopback");
  cmd->add_option("--task-group", opt->request.task_group, "only this task group");
  cmd->add_option("--policy", opt->request.policy,
                  "policy file (default: <workspace>/agent-dispatch.json, else the embedded one)");
  cmd->footer("The page is at the printed address; the JSON API and the event stream are in "
              "docs/events.md, the pages in docs/dashboard.md.");
  cmd->callback([opt, &out] { out = [opt] { return run_serve(*opt); }; });
}

} // namespace ad::cli

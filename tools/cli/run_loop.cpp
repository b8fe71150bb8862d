#include "tools/cli/run_loop.hpp"

#include <filesystem>
#include <future>
#include <map>
#include <iostream>
#include <memory>
#include <cstdlib>
#include <optional>
#include <unistd.h>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/attempt/attempt_host.hpp"
#include "actors/claims/claim_watcher.hpp"
#include "actors/node/node_pool.hpp"
#include "actors/output/output_actor.hpp"
#include "actors/output/signal_watcher.hpp"
#include "actors/process/process_actor.hpp"
#include "actors/scheduler/scheduler_actor.hpp"
#include "actors/scheduler/scheduler_io.hpp"
#include "actors/state/spawn.hpp"
#include "actors/supervisor/supervisor_actor.hpp"
#include "messages/types.hpp"
#include "runtime/agents/cli_probe.hpp"
#include "runtime/core/parallel.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/heap_tuning.hpp"
#include "runtime/distributed/lease.hpp"
#include "runtime/distributed/node_protocol.hpp"
#include "runtime/keeper/keeper_binary.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/report/logging.hpp"
#include "runtime/report/output_tail.hpp"
#include "runtime/report/terminal_text.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/lock.hpp"
#include "runtime/state/root.hpp"
#include "runtime/workspace/early_scan.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/retry_command.hpp"
#include "tools/cli/run_dashboard.hpp"
#include "tools/cli/run_notifier.hpp"
#include "tools/cli/scheduler_setup.hpp"
#include "tools/cli/trace_setup.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> node_texts(const std::vector<runtime::node_endpoint>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes)
    out.push_back(n.text());
  return out;
}

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

// The node pool's settings; writes the file by which each node checks that
// it shares the state folder (runtime::judge_shared_files). The epoch is
// the wall clock in ms at start, so a later coordinator has a larger one.
runtime::result<actors::node_pool_config>
node_pool_config_for(const std::vector<runtime::node_endpoint>& nodes,
                     const runtime::lease_terms& terms, const runtime::workspace_identity& ws,
                     const fs::path& runs, const run_loop_options& opt,
                     const runtime::clock& clk) {
  actors::node_pool_config pc;
  pc.nodes = nodes;
  pc.tls = opt.tls.given();
  pc.epoch = clk.now();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  pc.coordinator = std::string(host) + " pid " + std::to_string(::getpid());
  pc.terms = terms;
  pc.local_slots = opt.local_slots;
  pc.steady_ms = steady_ms;
  pc.files.workspace = ws.path;
  pc.files.runs_dir = runs.string();
  pc.files.probe_file = (runs / ".node-probe").string();
  pc.files.probe_token = pc.coordinator + " epoch " + std::to_string(pc.epoch);
  if (auto st = runtime::write_file_atomic(pc.files.probe_file, pc.files.probe_token);
      !st.is_ok())
    return st;
  return pc;
}

void shut_down(caf::actor_system& sys, std::initializer_list<caf::actor> actors) {
  for (const auto& a : actors)
    if (a)
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  sys.await_all_actors_done();
}

// What each agent CLI the policy's targets name accepts, learned once per
// binary before any attempt (docs/agents.md); the CLIs are probed at the
// same time (runtime/agents/cli_probe.hpp).
std::map<std::string, runtime::cli_capabilities>
probe_target_clis(const std::vector<runtime::policy_target>& targets) {
  std::vector<std::pair<runtime::adapter_kind, std::string>> wanted;
  for (const auto& t : targets) {
    auto kind = runtime::parse_adapter_kind(t.adapter);
    if (kind.is_ok() && *kind != runtime::adapter_kind::agy
        && *kind != runtime::adapter_kind::command)
      wanted.emplace_back(*kind, runtime::cli_executable_name(*kind));
  }
  auto probes = runtime::probe_clis(wanted);
  std::map<std::string, runtime::cli_capabilities> out;
  for (const auto& t : targets) {
    auto kind = runtime::parse_adapter_kind(t.adapter);
    if (!kind.is_ok() || out.contains(t.adapter))
      continue;
    auto it = probes.find({*kind, runtime::cli_executable_name(*kind)});
    if (it == probes.end() || !it->second.found)
      continue;
    const auto& probe = it->second;
    for (const auto& problem : probe.problems)
      spdlog::warn("run: {}: {}", t.adapter, problem);
    spdlog::info("run: {} is {} ({})", t.adapter, probe.resolved.string(),
                 probe.caps.version.empty() ? "no version" : probe.caps.version);
    out[t.adapter] = probe.caps;
  }
  return out;
}

} // namespace

int run_loop(const run_loop_options& opt) {
  // Distributed mode: the nodes' addresses, the lease and TLS are checked
  // before anything is opened.
  std::vector<runtime::node_endpoint> nodes;
  for (const auto& text : opt.nodes) {
    auto e = runtime::parse_node_endpoint(text, "--node");
    if (!e.is_ok()) {
      std::cerr << "run: " << e.error().message() << "\n";
      return exit_blocked;
    }
    nodes.push_back(*e);
  }
  runtime::lease_terms terms;
  if (opt.lease_ms > 0)
    terms.lease_ms = opt.lease_ms;
  if (opt.lease_margin_ms > 0)
    terms.margin_ms = opt.lease_margin_ms;
  if (auto st = opt.tls.check(); !st.is_ok()) {
    std::cerr << "run: " << st.message() << "\n";
    return exit_blocked;
  }
  auto identity = runtime::identify_workspace(opt.workspace);
  if (!identity.is_ok()) {
    std::cerr << "run: " << identity.error().message() << "\n";
    return exit_blocked;
  }
  auto checked_root = runtime::open_state_root(*identity, runtime::state_env::from_process());
  if (!checked_root.is_ok()) {
    std::cerr << "run: " << checked_root.error().message() << "\n";
    return exit_blocked;
  }
  const fs::path root = checked_root->path;
  fs::path runs = root / "runs";
  if (auto st = runtime::make_directories(runs); !st.is_ok()) {
    std::cerr << "run: " << st.message() << "\n";
    return exit_blocked;
  }
  auto clk = std::make_shared<runtime::system_clock>();
  // The dashboard first: a bad --web stops the run before it takes the lock.
  std::unique_ptr<run_dashboard> web;
  if (!opt.web.empty()) {
    runtime::dashboard_options web_options;
    web_options.board.retry_command = retry_command(identity->path);
    auto started =
      run_dashboard::start({opt.web, opt.web_token_file, "--web"}, web_options, clk, runs.string(),
                           identity->path);
    if (!started) {
      std::cerr << "run: " << started.error().message() << "\n";
      return exit_blocked;
    }
    web = std::move(*started);
    std::cerr << "run: dashboard at " << web->server().url()
              << (web->server().needs_token() ? " (the page and the API ask for the --token)" : "")
              << std::endl;
  }
  auto lock = runtime::state_lock::acquire(root, runtime::current_lock_owner(*clk));
  if (!lock.is_ok()) {
    std::cerr << "run: " << lock.error().message() << "\n";
    return lock.error().is_conflict() ? exit_waiting : exit_blocked;
  }
  // The debug log lives in the state root, which this dispatcher now owns.
  if (auto st = runtime::setup_logging(root, {opt.verbosity}); !st.is_ok())
    std::cerr << "warning: " << st.message() << "\n";
  spdlog::info("run: workspace {} state root {} pid {}", identity->path, root.string(), getpid());
  // runtime/core/heap_tuning.hpp: a large state is read in large heap steps,
  // until the first admission.
  const auto state_bytes = runtime::stored_state_bytes(root);
  runtime::grow_heap_for_state(state_bytes);
  // The workspace's first scan runs while the state is read: neither needs
  // the other, and at thousands of tasks each takes a good part of a
  // restart (runtime/workspace/early_scan.hpp). The scheduler takes it.
  // Beside a large state's reading it starts first, on a heap of its own.
  const bool scan_on_own_heap = runtime::large_heap_steps_wanted(state_bytes);
  auto first_scan = std::make_shared<std::unique_ptr<runtime::early_scan>>();
  auto begin_scan = [&] {
    *first_scan = std::make_unique<runtime::early_scan>(
      identity->path,
      opt.task_group.empty() ? std::nullopt : std::optional<std::string>(opt.task_group),
      runtime::scanner_watch::inotify, scan_on_own_heap);
  };
  if (scan_on_own_heap)
    begin_scan();
  // The policy is read before the state, so that its agent CLIs are probed
  // while the state is read; its errors are still told after the state's.
  std::optional<fs::path> policy_file;
  if (!opt.policy_file.empty())
    policy_file = opt.policy_file;
  auto pol = runtime::load_policy(policy_file, identity->path);
  std::future<std::map<std::string, runtime::cli_capabilities>> probing;
  if (pol.is_ok())
    probing = runtime::start_beside(
      [&targets = pol->value.targets] { return probe_target_clis(targets); });
  if (!scan_on_own_heap)
    begin_scan();
  auto store = runtime::durable_store::open(root, *identity, runtime::posix_file_layer());
  if (!store.is_ok()) {
    std::cerr << "run: state error: " << store.error().message() << "\n";
    return exit_blocked;
  }
  for (const auto& w : (*store)->report().warnings)
    std::cerr << "warning: " << w << "\n";
  if (!pol.is_ok()) {
    std::cerr << "run: policy: " << pol.error().message() << "\n";
    return exit_blocked;
  }
  if (web)
    web->read_interventions(runtime::task_intervention_reader(
      root, identity->path, identity->id, pol->value.prompts.intervention));
  auto zone = runtime::load_time_zone(pol->value.timezone);
  if (!zone.is_ok()) {
    std::cerr << "run: policy time zone: " << zone.error().message() << "\n";
    return exit_blocked;
  }
  // Compiled once for every attempt of the run.
  auto patterns = runtime::policy_failure_patterns(pol->value.failure_patterns);
  if (!patterns.is_ok()) {
    std::cerr << "run: policy failure patterns: " << patterns.error().message() << "\n";
    return exit_blocked;
  }
  // Without --node, the policy's nodes.
  if (nodes.empty())
    for (std::size_t i = 0; i < pol->value.nodes.size(); ++i) {
      auto e = runtime::parse_node_endpoint(pol->value.nodes[i],
                                            "policy /nodes/" + std::to_string(i));
      if (!e.is_ok()) {
        std::cerr << "run: " << e.error().message() << "\n";
        return exit_blocked;
      }
      nodes.push_back(*e);
    }
  // Every agent runs under its keeper, so that it outlives this process
  // (docs/keeper.md).
  auto keeper = runtime::find_keeper_binary();
  if (!keeper.is_ok()) {
    std::cerr << "run: " << keeper.error().message() << "\n";
    return exit_blocked;
  }

  auto cli_caps = probing.get();

  std::shared_ptr<runtime::trace_writer> trace;
  if (!opt.trace_file.empty()) {
    const char* home = std::getenv("HOME");
    auto opened = open_run_trace({opt.trace_file, identity->path, identity->id, root,
                                  home ? home : "", opt.task_group, opt.max_parallel,
                                  opt.retry_blocked, node_texts(nodes), cli_caps},
                                 pol->value);
    if (!opened.is_ok()) {
      std::cerr << "run: " << opened.error().message() << "\n";
      return exit_blocked;
    }
    trace = *opened;
  }

  if (!nodes.empty()) {
    auto grace = runtime::attempt_timing_of(pol->value).terminate_grace_ms;
    if (auto st = runtime::check_lease_terms(terms, grace); !st.is_ok()) {
      std::cerr << "run: " << st.message() << "\n";
      return exit_blocked;
    }
  }

  if (nodes.empty() && (opt.local_slots > 0 || opt.tls.given())) {
    std::cerr << "run: --local-slots and --tls-* go with nodes (--node or the policy's nodes)\n";
    return exit_blocked;
  }

  // The nodes' settings, and the file by which each checks that it shares
  // the state folder, before any actor runs.
  std::optional<actors::node_pool_config> pool_cfg;
  if (!nodes.empty()) {
    auto made = node_pool_config_for(nodes, terms, *identity, runs, opt, *clk);
    if (!made.is_ok()) {
      std::cerr << "run: " << made.error().message() << "\n";
      return exit_blocked;
    }
    pool_cfg = std::move(*made);
  }

  caf::actor_system_config cfg;
  messages::register_message_types(cfg);
  if (!nodes.empty())
    configure_middleman(cfg, terms.lease_ms, opt.tls);
  // Attempt and state actors block on fsync; with only two workers they
  // starve the scheduler and the task actors (docs/bench.md).
  configure_scheduler(cfg, 8);
  caf::actor_system sys{cfg};
  auto state = actors::spawn_state_actors(sys, std::move(*store));
  actors::cooldown_observer cooldowns;
  if (web)
    cooldowns = [w = web.get()](const runtime::target_cooldowns& c) { w->observe_cooldowns(c); };
  auto supervisor = actors::spawn_supervisor(sys, pol->value, *zone, trace, std::move(cooldowns));
  auto process = sys.spawn(actors::process_actor_impl, actors::process_actor_config{});
  auto attempt_cfg = actors::make_attempt_config(process, trace);
  attempt_cfg.keeper = keeper->string();
  attempt_cfg.failure_patterns =
    std::make_shared<const runtime::compiled_failure_patterns>(std::move(*patterns));

  auto ctx = std::make_shared<actors::run_context>();
  ctx->workspace = identity->path;
  ctx->workspace_id = identity->id;
  ctx->task_root = (fs::path(identity->path) / "agent-task").string();
  ctx->runs_dir = runs.string();
  ctx->task_group = opt.task_group;
  ctx->max_parallel = opt.max_parallel;
  ctx->retry_blocked = opt.retry_blocked;
  ctx->pol = pol->value;
  ctx->zone = *zone;
  ctx->clk = clk;
  ctx->cli_caps = std::move(cli_caps);
  ctx->timing = runtime::attempt_timing_of(pol->value);
  ctx->store = state.store;
  ctx->supervisor = supervisor;
  ctx->trace = trace;
  ctx->scheduler_io_factory = [first_scan](const actors::run_context& c) {
    return actors::make_file_scheduler_io(c, std::move(*first_scan));
  };

  actors::output_config out_cfg;
  out_cfg.format = actors::choose_output_format(
    ::isatty(STDOUT_FILENO) ? actors::stdout_kind::terminal : actors::stdout_kind::pipe,
    opt.json ? actors::json_request::on : actors::json_request::off);
  out_cfg.stream = std::shared_ptr<std::ostream>(&std::cout, [](std::ostream*) {});
  out_cfg.clock = clk;
  out_cfg.colours = runtime::colour_mode_from_env(std::getenv("NO_COLOR"));
  out_cfg.terminal = [] { return runtime::read_terminal_size(STDOUT_FILENO); };
  out_cfg.live_output = [reader = std::make_shared<runtime::attempt_output_reader>(runs.string())](
                          const std::string& identity, const std::string& locator) {
    return reader->live(identity, locator);
  };
  out_cfg.board.utc_offset = runtime::system_utc_offset;
  out_cfg.board.retry_command = retry_command(identity->path);
  // The policy's notify rules (docs/notify.md): a queue and one worker
  // thread; the output actor never waits on them.
  std::unique_ptr<run_notifier> notifier;
  if (!pol->value.notify.empty())
    notifier = std::make_unique<run_notifier>(pol->value.notify, identity->path);
  if (web || notifier)
    out_cfg.observer = [w = web.get(), n = notifier.get()](const runtime::run_event& e) {
      if (w)
        w->observe(e);
      if (n)
        n->observe(e);
    };
  // A warning written to the terminal the board is on would break its
  // redraw: the board shows it among its recent lines instead (and the
  // log file has it), until the output actor has stopped.
  bool hold = out_cfg.format == actors::output_format::board && ::isatty(STDERR_FILENO);
  if (hold) {
    runtime::hold_console(true);
    out_cfg.console_lines = [] { return runtime::take_held_console_lines(); };
  }
  auto output = actors::spawn_output(sys, out_cfg);
  ctx->out = output;

  // Writes outside a task's claim (docs/claims.md).
  actors::claim_watcher_config claims_cfg;
  claims_cfg.workspace = identity->path;
  claims_cfg.state_root = root.string();
  claims_cfg.runs_dir = runs.string();
  claims_cfg.policy = pol->value.claims;
  claims_cfg.store = state.store;
  claims_cfg.out = output;
  claims_cfg.clock = clk;
  auto claims = sys.spawn(actors::claim_watcher_impl, std::move(claims_cfg));
  attempt_cfg.claims = claims;
  ctx->claims = claims;
  auto host = sys.spawn(actors::attempt_host_impl, std::move(attempt_cfg));
  ctx->host = host;
  messages::node_pool_actor pool;
  if (pool_cfg) {
    pool_cfg->local = host;
    pool_cfg->out = output;
    pool_cfg->clock = clk;
    pool = sys.spawn(actors::node_pool_impl, std::move(*pool_cfg));
    ctx->host = caf::actor_cast<messages::attempt_host_actor>(pool);
    ctx->place_on_nodes = true;
  }

  messages::run_finished done{exit_blocked, "run ended without a result", {}};
  {
    caf::scoped_actor self{sys};
    auto waiter = caf::actor_cast<messages::run_waiter_actor>(self);
    auto scheduler = sys.spawn(actors::scheduler_impl, actors::run_context_ptr(ctx), waiter);
    self->monitor(scheduler);
    caf::anon_send(claims, messages::claim_listener_set{scheduler});
    auto signals = actors::watch_shutdown_signals(
      caf::actor_cast<messages::shutdown_listener>(scheduler), clk);
    if (!signals.is_ok())
      std::cerr << "warning: signals: " << signals.error().message() << "\n";
    bool running = true;
    while (running)
      self->receive([&](messages::run_finished& f) { done = std::move(f); },
                    [&](caf::down_msg&) { running = false; });
    self->request(output, std::chrono::seconds(30), messages::stop_output{})
      .receive([](const messages::output_flushed&) {}, [](const caf::error&) {});
  }
  if (hold)
    runtime::hold_console(false);  // what came after the last frame goes below it
  shut_down(sys, {caf::actor_cast<caf::actor>(pool), caf::actor_cast<caf::actor>(claims),
                  caf::actor_cast<caf::actor>(host), caf::actor_cast<caf::actor>(process),
                  caf::actor_cast<caf::actor>(supervisor),
                  caf::actor_cast<caf::actor>(state.store),
                  caf::actor_cast<caf::actor>(state.serializer)});
  // Pending notifications, the run's end first, get the policy's grace.
  if (notifier)
    notifier->finish();
  if (trace)
    if (auto st = trace->stop(); !st.is_ok())
      std::cerr << "warning: " << st.message() << "\n";
  spdlog::info("run: exit {}: {}", done.exit_code, done.summary);
  spdlog::default_logger()->flush();
  if (opt.json)
    return done.exit_code; // the run_summary event carried it
  std::cout << "run: " << done.summary << "\n";
  for (const auto& d : done.details)
    std::cout << "  " << d << "\n";
  std::cout.flush();
  return done.exit_code;
}

} // namespace ad::cli

// `agent-dispatch node --listen HOST:PORT [--name NAME] [--slots N]
// [--adapters LIST] [--lease-ms N] [--tls-cert F --tls-key F --tls-ca F]`:
// a worker host for a coordinator's `run --node` (docs/distributed.md). It
// publishes the node actor (actors/node) and runs until SIGINT or SIGTERM;
// then it removes its lease file, so its keepers stop their agents.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/attempt/attempt_host.hpp"
#include "actors/node/node_actor.hpp"
#include "actors/process/process_actor.hpp"
#include "messages/types.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"
#include "runtime/distributed/lease.hpp"
#include "runtime/distributed/lease_file.hpp"
#include "runtime/distributed/node_protocol.hpp"
#include "runtime/distributed/node_setup.hpp"
#include "runtime/keeper/keeper_binary.hpp"
#include "runtime/report/logging.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/distributed_setup.hpp"
#include "tools/cli/number_option.hpp"
#include "tools/cli/scheduler_setup.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

namespace {

struct node_options {
  std::string listen;
  std::string name;
  int slots = 4;
  std::string adapters;
  int64_t lease_ms = runtime::lease_terms{}.lease_ms;
  tls_files tls;
  int verbosity = 0;
};

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

// Where a node keeps its log and lease file: $XDG_STATE_HOME (else
// ~/.local/state)/agent-dispatch/nodes/<name>.
runtime::result<fs::path> node_folder(const std::string& name) {
  fs::path base;
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && fs::path(x).is_absolute())
    base = x;
  else if (const char* h = std::getenv("HOME"))
    base = fs::path(h) / ".local" / "state";
  else
    return runtime::status::invalid_argument("node: neither XDG_STATE_HOME nor HOME is set");
  std::string safe = name;
  for (auto& c : safe)
    if (c == '/' || c == ':' || c == '[' || c == ']')
      c = '_';
  auto dir = base / "agent-dispatch" / "nodes" / safe;
  if (auto st = runtime::make_directories(dir); !st.is_ok())
    return st;
  return dir;
}

int run_node(const node_options& opt) {
  auto listen = runtime::parse_node_endpoint(opt.listen, "--listen");
  if (!listen.is_ok()) {
    std::cerr << "node: " << listen.error().message() << "\n";
    return exit_blocked;
  }
  if (auto st = opt.tls.check(); !st.is_ok()) {
    std::cerr << "node: " << st.message() << "\n";
    return exit_blocked;
  }
  if (auto st = runtime::check_node_listen(*listen, opt.tls.given()); !st.is_ok()) {
    std::cerr << "node: " << st.message() << "\n";
    return exit_blocked;
  }
  if (auto st = runtime::check_lease_terms({opt.lease_ms, 1'000'000}, 0); !st.is_ok()) {
    std::cerr << "node: " << st.message() << "\n";
    return exit_blocked;
  }
  std::vector<std::string> adapters;
  if (!opt.adapters.empty()) {
    auto parsed = runtime::parse_adapter_list(opt.adapters);
    if (!parsed.is_ok()) {
      std::cerr << "node: " << parsed.error().message() << "\n";
      return exit_blocked;
    }
    adapters = std::move(*parsed);
  } else {
    const char* path = std::getenv("PATH");
    adapters = runtime::adapters_on_path(path ? path : "");
  }
  std::string name = opt.name.empty() ? listen->text() : opt.name;
  auto dir = node_folder(name);
  if (!dir.is_ok()) {
    std::cerr << "node: " << dir.error().message() << "\n";
    return exit_blocked;
  }
  if (auto st = runtime::setup_logging(*dir, {opt.verbosity}); !st.is_ok())
    std::cerr << "warning: " << st.message() << "\n";
  auto keeper = runtime::find_keeper_binary();
  if (!keeper.is_ok()) {
    std::cerr << "node: " << keeper.error().message() << "\n";
    return exit_blocked;
  }
  auto lease_file = runtime::node_lease_file(*dir, ::getpid());

  // Every thread CAF starts inherits the mask: the signals wait for sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  caf::actor_system_config cfg;
  messages::register_message_types(cfg);
  // Attempt actors block on fsync: a thread more than there are slots,
  // and no more than a run uses (docs/bench.md); idle workers cost CPU.
  configure_scheduler(cfg, static_cast<size_t>(std::clamp(opt.slots + 2, 4, 8)));
  configure_middleman(cfg, opt.lease_ms, opt.tls);
  caf::actor_system sys{cfg};
  auto process = sys.spawn(actors::process_actor_impl, actors::process_actor_config{});
  auto attempt_cfg = actors::make_attempt_config(process);
  attempt_cfg.keeper = keeper->string();
  attempt_cfg.keeper_lease_file = lease_file.string();
  attempt_cfg.keeper_lease_ms = opt.lease_ms;
  auto host = sys.spawn(actors::attempt_host_impl, std::move(attempt_cfg));
  actors::node_config node_cfg;
  node_cfg.name = name;
  node_cfg.slots = opt.slots;
  node_cfg.adapters = adapters;
  node_cfg.lease_ms = opt.lease_ms;
  node_cfg.lease_file = lease_file.string();
  node_cfg.host = host;
  node_cfg.steady_ms = steady_ms;
  auto node = sys.spawn(actors::node_actor_impl, std::move(node_cfg));
  // 0.0.0.0 and :: mean every address.
  const char* address =
    listen->host == "0.0.0.0" || listen->host == "::" ? nullptr : listen->host.c_str();
  auto published = opt.tls.given()
                     ? caf::openssl::publish(node, listen->port, address, true)
                     : sys.middleman().publish(node, listen->port, address, true);
  int code = exit_ok;
  if (!published) {
    std::cerr << "node: cannot listen on " << listen->text() << ": "
              << sys.render(published.error()) << "\n";
    code = exit_blocked;
  } else {
    std::cout << "node " << name << " listening on " << listen->text() << " ("
              << (opt.tls.given() ? "mutual TLS" : "plain TCP, loopback") << "), " << opt.slots
              << " slots, adapters ";
    for (std::size_t i = 0; i < adapters.size(); ++i)
      std::cout << (i ? "," : "") << adapters[i];
    std::cout << ", lease " << opt.lease_ms << " ms" << std::endl;
    spdlog::info("node {}: listening on {}, pid {}", name, listen->text(), ::getpid());
    int sig = 0;
    sigwait(&stop_signals, &sig);
    spdlog::info("node {}: stopping on signal {}", name, sig);
    code = sig == SIGINT ? 130 : exit_ok;
  }
  // Without the file the keepers stop their agents within a second.
  std::error_code ec;
  fs::remove(lease_file, ec);
  for (const auto& a : {caf::actor_cast<caf::actor>(node), caf::actor_cast<caf::actor>(host),
                        caf::actor_cast<caf::actor>(process)})
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  sys.await_all_actors_done();
  spdlog::default_logger()->flush();
  return code;
}

} // namespace

void add_node_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<node_options>();
  auto* cmd = app.add_subcommand(
    "node", "Run attempts for a coordinator (`run --node HOST:PORT`) on this host");
  cmd->add_option("--listen", opt->listen,
                  "address to listen on, HOST:PORT; beyond loopback only with --tls-*")
    ->required();
  cmd->add_option("--name", opt->name, "this node's name in events and status (default: HOST:PORT)");
  add_number_option(*cmd, "--slots", opt->slots, "attempts this node runs at once", 1)
    ->default_str(std::to_string(opt->slots));
  cmd->add_option("--adapters", opt->adapters,
                  "adapters this node runs, e.g. codex,pi (default: those whose CLI is on PATH, "
                  "and command)");
  add_number_option(*cmd, "--lease-ms", opt->lease_ms,
                    "the lease; the same as the coordinator's --lease-ms. Without a renewal for "
                    "this long the node stops its agents",
                    int64_t{0})
    ->default_str(std::to_string(opt->lease_ms));
  add_tls_options(*cmd, opt->tls);
  cmd->add_flag("-v,--verbose", opt->verbosity,
                "more detail on stderr (the log in the node's state folder has everything)");
  cmd->footer("The workspace and the coordinator's state folder must be at the same paths on "
              "this host (a shared file system); docs/distributed.md.");
  cmd->callback([opt, &out] { out = [opt] { return run_node(*opt); }; });
}

} // namespace ad::cli

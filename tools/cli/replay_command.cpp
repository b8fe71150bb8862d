// `agent-dispatch replay TRACE [--policy FILE]`: replays a message trace
// recorded by `run --trace` (tools/replay/replay_run.hpp) and exits 0 when
// every replayed decision equals the recorded one; otherwise prints the
// first divergence (record index, the message that led to it, expected,
// actual, the recent inbound messages) and exits 1. With --policy the
// decisions are made under that policy (merged over the default, as `run`
// does), showing where it would have decided differently. A trace that
// cannot be read, or a policy that does not load, exits 2.
#include <iostream>
#include <memory>
#include <string>

#include "runtime/core/files.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "tools/cli/commands.hpp"
#include "tools/replay/replay_run.hpp"

namespace ad::cli {

namespace {

struct replay_options {
  std::string trace;
  std::string policy_file;
};

int run_replay(const replay_options& opt) {
  auto trace = runtime::read_trace(opt.trace);
  if (!trace.is_ok()) {
    std::cerr << "replay: " << trace.error().message() << "\n";
    return exit_blocked;
  }
  if (trace->cut_last_line != 0)
    std::cerr << "replay: " << opt.trace << ":" << trace->cut_last_line
              << ": the last line was cut off (the run did not end cleanly); replaying the "
              << trace->records.size() << " records before it\n";
  auto pol = tools::recorded_policy(*trace);
  if (!opt.policy_file.empty()) {
    auto text = runtime::read_file(opt.policy_file);
    if (!text.is_ok()) {
      std::cerr << "replay: policy: " << text.error().message() << "\n";
      return exit_blocked;
    }
    auto loaded = runtime::parse_policy_text(*text, opt.policy_file);
    if (!loaded.is_ok()) {
      std::cerr << "replay: policy: " << loaded.error().message() << "\n";
      return exit_blocked;
    }
    pol = std::move(loaded->value);
  }
  if (!pol.is_ok()) {
    std::cerr << "replay: recorded policy: " << pol.error().message() << "\n";
    return exit_blocked;
  }
  auto report = tools::replay_recorded_run(*trace, *pol);
  if (!report.is_ok()) {
    std::cerr << "replay: " << opt.trace << ": " << report.error().message() << "\n";
    return exit_blocked;
  }
  if (report->divergence) {
    std::cout << runtime::render_divergence(*report->divergence);
    std::cout << "replay: " << runtime::render_replay_summary(*report) << " before the divergence\n";
    return 1;
  }
  std::cout << "replay: identical: " << runtime::render_replay_summary(*report) << "\n";
  return exit_ok;
}

} // namespace

void add_replay_command(CLI::App& app, handler& out) {
  auto opt = std::make_shared<replay_options>();
  auto* cmd = app.add_subcommand(
    "replay", "Replay a message trace recorded by `run --trace` and compare every decision");
  cmd->add_option("trace", opt->trace, "trace file (JSON Lines)")->required();
  cmd->footer("Exit codes: 0 every decision matches, 1 a decision diverged (the first one is "
              "printed), 2 unreadable trace or policy.");
  cmd->add_option("--policy", opt->policy_file,
                  "decide under this policy file (merged over the default) instead of the "
                  "recorded one");
  cmd->callback([opt, &out] { out = [opt] { return run_replay(*opt); }; });
}

} // namespace ad::cli

#pragma once
// Test-only harness for the large end-to-end runs: a generated workspace with
// its simulator environment (scenario, registry, state home, sim-bin first on
// PATH), a dispatcher child process that can be waited for with a timeout or
// signalled, and a scan of /proc for live agents carrying the dispatcher's
// marker (AGENT_DISPATCH_EXECUTION_ID) and this fleet's registry path, so
// parallel tests never see each other's agents. The test process becomes a
// child subreaper: agents orphaned by a killed dispatcher are re-parented to
// it and reaped by every wait, so a finished agent never lingers as a zombie.
// Assertions go through GoogleTest; nothing here throws.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "runtime/core/token_usage.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/workspace-gen/workspace_gen.hpp"

namespace ad::test {

// A workspace plus everything a dispatcher run over it needs.
struct fleet {
  temp_dir dir;
  std::filesystem::path workspace;  // dir/ws
  std::filesystem::path scenario;   // dir/scenario.json
  std::filesystem::path registry;   // dir/registry.jsonl
  std::filesystem::path state_home; // dir/state (XDG_STATE_HOME)
  workspace_gen::gen_plan plan;
  double time_scale = 0.01;         // AGENT_SIM_TIME_SCALE

  // Plans and writes the workspace, a fast policy and the given scenario.
  void create(const workspace_gen::gen_options& options, const runtime::json& scenario_doc);
  // The dispatcher's environment: ours with sim-bin first on PATH, the
  // simulator variables, XDG_STATE_HOME and NO_COLOR set.
  std::vector<std::string> environment() const;
  // Tasks whose archive folder holds complete.log, by task name.
  std::map<std::string, int> archived_tasks() const;
};

// `run --workspace <fleet's> --max-parallel <max_parallel>`.
std::vector<std::string> run_args(const fleet& f, int max_parallel);

// A spawned process (own process group), stdout and stderr to files.
class child_run {
public:
  child_run() = default;
  // Starts `program` (default <build>/agent-dispatch) with args.
  static child_run start_dispatcher(const fleet& f, const std::vector<std::string>& args,
                                    const std::string& log_name,
                                    const std::filesystem::path& program = {});

  pid_t pid() const { return pid_; }
  // Exit code (128 + signal when killed), or nullopt when still running at the timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  void send(int sig) const;
  std::string out() const;
  std::string err() const;
  // Last lines of stdout and stderr, for failure messages.
  std::string tail() const;

private:
  pid_t pid_ = -1;
  std::optional<int> exit_;
  std::filesystem::path out_, err_;
};

struct live_agent {
  pid_t pid = 0;
  std::string marker;
  std::string task_key;  // the safe task name inside the marker
};

// Every live process whose environment holds AGENT_DISPATCH_EXECUTION_ID and
// AGENT_SIM_REGISTRY=<registry>: agents and every process they started.
struct marked_process {
  pid_t pid = 0;
  pid_t ppid = 0; // its parent, from /proc/PID/stat
  std::string marker;
  std::string cmdline; // arguments joined by spaces
};
std::vector<marked_process> scan_marked_processes(const std::filesystem::path& registry);
// One process per marker, ordered by pid: the agent itself, the one whose
// parent is not in its marker's group (its children and a sanitizer's tracer
// share its marker and may have lower pids once pids wrap).
std::vector<marked_process> agents_of(std::vector<marked_process> processes);

// Live processes whose environment holds AGENT_DISPATCH_EXECUTION_ID and
// AGENT_SIM_REGISTRY=<registry>. Zombies have no readable environment and
// are not counted.
std::vector<live_agent> scan_live_agents(const std::filesystem::path& registry);
// Duplicate task keys among live agents, as "task: pid, pid" lines.
std::vector<std::string> duplicate_live_agents(const std::vector<live_agent>& agents);

// SIGKILLs every marked process of this registry and its process group
// (cleanup after a failed test, so nothing outlives it); returns how many
// agents (markers) it found.
int kill_live_agents(const std::filesystem::path& registry);

// Test teardown: SIGKILLs every run still going, then fails the test for
// each live agent of the fleet (and kills it), so none outlives the test.
void stop_runs_and_agents(std::vector<std::unique_ptr<child_run>>& runs, const fleet& f);

// Orphans reaped since the fleet was created (not dispatchers waited for)
// that died by a signal, counted by signal name ("SIGPIPE": 3).
std::map<std::string, int> orphan_signal_deaths();

// Makes this process a child subreaper (once) and reaps every finished child
// that is not being waited for explicitly.
void adopt_orphans();
void reap_orphans();

// Sleeps for `total`, reaping orphans; calls `sample` about every `step`.
template <class F>
void sample_for(std::chrono::milliseconds total, std::chrono::milliseconds step, F&& sample);

std::string read_text(const std::filesystem::path& p);

// What the `attempt_finished` events of dispatcher --json outputs report,
// summed: the whole and per target, and how many attempts reported usage.
// Checked against the state's totals (the `summary` event, status --json),
// this proves each attempt counted once.
struct reported_usage {
  runtime::token_usage total;
  std::map<std::string, runtime::token_usage> by_target;
  int attempts = 0;
};
reported_usage usage_reported(const std::vector<std::string>& outputs);
// The `usage` and `usage_by_target` of the last `summary` event of a
// --json output, as typed records (empty when absent): `status --json`
// has both, a run's summary the total only.
struct summary_usage {
  runtime::token_usage total;
  std::map<std::string, runtime::token_usage> by_target;
};
summary_usage usage_summarized(const std::string& output);
// EXPECTs a and b to hold the same fields and counts, and costs equal to
// within a rounding error (sums in another order); `what` names them.
void expect_same_usage(const runtime::token_usage& a, const runtime::token_usage& b,
                       const std::string& what);

} // namespace ad::test

#include <thread>

namespace ad::test {
template <class F>
void sample_for(std::chrono::milliseconds total, std::chrono::milliseconds step, F&& sample) {
  auto until = std::chrono::steady_clock::now() + total;
  while (std::chrono::steady_clock::now() < until) {
    reap_orphans();
    sample();
    std::this_thread::sleep_for(step);
  }
}
} // namespace ad::test

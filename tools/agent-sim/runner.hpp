#pragma once
// One simulated agent run: resolve the task, role and attempt, pick the
// scenario's actions, perform them in order (workspace effects, events,
// silence, hang, failures, outliving child), and record the run in the
// registry. SIGTERM/SIGINT/SIGHUP are held blocked and waited for during
// sleeps, so a terminated run still records itself and then dies by that
// signal, as a dispatcher expects. Process-global effects (signal mask, fork,
// raise); call once per process, from the entry point only. Returns the exit
// code, or does not return when the run ends by a signal.

#include <ostream>
#include <string>

#include "tools/agent-sim/emitter.hpp"
#include "tools/agent-sim/invocation.hpp"

namespace ad::agent_sim {

// Settings read from the environment (see docs/agent-sim.md).
struct run_environment {
  std::string scenario_path;  // AGENT_SIM_SCENARIO (command mode: --scenario wins)
  std::string registry_path;  // AGENT_SIM_REGISTRY
  std::string counter_path;   // AGENT_SIM_COUNTER; default <registry>.attempts, else <scenario>.attempts
  std::string marker;         // AGENT_DISPATCH_EXECUTION_ID
  std::string fixed_time;     // AGENT_SIM_FIXED_TIME: ISO time for event timestamps and archive dates
  std::string seed;           // AGENT_SIM_SEED: makes generated ids repeatable
  double time_scale = 1.0;    // AGENT_SIM_TIME_SCALE: multiplies every wait
  bool pi_dispatcher_flavor = false;  // AGENT_SIM_PI_FLAVOR=dispatcher: pi takes --approve, --session-id
  // What the CLIs read: with AGENT_SIM_NATIVE_SESSIONS=1 the codex home
  // ($CODEX_HOME, else $HOME/.codex) and claude's projects folder
  // ($CLAUDE_CONFIG_DIR/projects, else $HOME/.claude/projects);
  // CLAUDE_CODE_MAX_RETRIES, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY,
  // OPENAI_BASE_URL, the time zone (TZ, else /etc/localtime) and whether
  // stdin is a terminal.
  cli_environment cli;
  std::string cwd;
};

run_environment environment_from_process();

int run_agent(const invocation& inv, const run_environment& env, std::ostream& out, std::ostream& err);

} // namespace ad::agent_sim

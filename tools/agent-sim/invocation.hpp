#pragma once
// How the simulator was called: which CLI it impersonates (from the name it
// was invoked under, or `--as NAME`) and the parts of that CLI's argv (SPEC
// section 5) it needs: prompt, model, workspace, session id/dir/file, agy log
// file; `command` mode adds --task/--role/--workspace/--scenario. Options it
// does not need are accepted and ignored. Parsing uses CLI11 and returns
// invalid_argument on a malformed command line; nothing here prints or exits.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::agent_sim {

enum class persona : uint8_t { codex, claude, agy, pi, command };

std::string_view to_string(persona p);
std::optional<persona> persona_from(std::string_view name);

struct invocation {
  persona as = persona::command;
  std::vector<std::string> argv;  // as received, program name first
  std::string prompt;
  std::string model;
  std::string effort;
  std::string provider;      // pi --provider
  // pi: --approve and --session-id as given, in argv order (the public pi
  // has neither; docs/agent-sim.md)
  std::vector<std::string> pi_dispatcher_options;
  std::string workspace;     // codex -C, command --workspace; empty: the cwd
  std::string session_id;    // claude/pi --session-id
  std::string session_dir;   // pi --session-dir
  std::string session_file;  // pi --session (resume)
  std::string log_file;      // agy --log-file
  std::string task;          // command --task
  std::string role;          // command --role
  std::string scenario;      // command --scenario
};

// args excludes the program name and any leading `--as NAME`.
runtime::result<invocation> parse_invocation(persona as, const std::vector<std::string>& args);

} // namespace ad::agent_sim

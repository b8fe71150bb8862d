#pragma once
// Agent adapters: which CLI an attempt runs and the exact argv it is started
// with (SPEC section 5). build_argv is a pure function of a launch_spec: it
// never touches the file system, never spawns, and never joins arguments into
// a shell string. For the `command` adapter the policy's argv template is
// expanded element by element; a substituted value is never re-scanned, so a
// prompt that contains "{workspace}" stays literal. Errors: invalid_argument
// naming the missing or malformed field (an empty model, a claude session id
// that is not a UUID, an unknown {placeholder} in a template).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class adapter_kind : uint8_t { codex, claude, agy, pi, command };

// "codex", "claude", "agy", "pi", "command".
std::string_view to_string(adapter_kind kind);
// The inverse of to_string; invalid_argument for any other name.
result<adapter_kind> parse_adapter_kind(std::string_view name);

// Effort used when a launch_spec leaves it empty (codex and claude only).
inline constexpr std::string_view default_reasoning_effort = "xhigh";
// pi's --thinking level when a launch_spec leaves the effort empty.
inline constexpr std::string_view default_pi_thinking = "high";
// pi's --provider when a launch_spec leaves it empty (the original setup's).
inline constexpr std::string_view default_pi_provider = "iop";

// What the installed CLI accepts, as detected once per binary
// (cli_probe.hpp). Not detected: the public releases' command lines.
struct cli_capabilities {
  bool detected = false;
  std::string version;        // as the CLI prints it: "codex-cli 0.171.0"
  bool pi_approve = false;    // pi accepts --approve (the original dispatcher's build)
  bool pi_session_id = false; // pi accepts --session-id <uuid>
};

// Everything needed to build one attempt's command line.
struct launch_spec {
  adapter_kind kind = adapter_kind::command;
  // Replaces argv[0] (the CLI name, or the template's first element), so tests
  // can point an adapter at a simulator. Empty: the adapter's own CLI name.
  std::string executable;
  std::string model;
  std::string effort; // codex/claude; empty means default_reasoning_effort
  std::filesystem::path workspace;
  std::filesystem::path attempt_dir;
  std::string prompt;
  std::string session_id; // claude, and pi when it takes --session-id: the UUID given
  std::string provider;   // pi: --provider; empty means default_pi_provider
  cli_capabilities caps;
  // pi: a native session file to resume (`--session <file> --session-dir
  // <its folder>`); empty starts a new session under <attempt_dir>/pi-sessions.
  std::filesystem::path native_session_file;
  std::string role;
  std::string task;
  std::filesystem::path plan_path;
  std::filesystem::path review_path;
  // `command` adapter only: the argv template from the policy. Placeholders:
  // {prompt} {workspace} {model} {session_id} {attempt_dir} {role} {task}
  // {plan} {review}.
  std::vector<std::string> command_template;
};

// The effort actually passed to codex/claude (spec.effort or the default).
std::string effective_effort(const launch_spec& spec);

// The argv for spec.kind, per SPEC section 5 and what the installed CLI
// accepts: pi gets --approve and --session-id only when its capabilities say
// it takes them; otherwise it names its session file itself in
// --session-dir.
result<std::vector<std::string>> build_argv(const launch_spec& spec);

// Whether a pi launch passes its own session id (--session-id): a detected
// pi that accepts it, starting a new session.
bool pi_takes_session_id(const launch_spec& spec);

// Expands one template element; invalid_argument naming an unknown
// placeholder. Exposed for policy validation.
result<std::string> expand_command_element(std::string_view element, const launch_spec& spec);

// Where agy writes its CLI log: <attempt_dir>/agy-cli.log.
std::filesystem::path agy_cli_log_path(const std::filesystem::path& attempt_dir);
// Where a fresh pi session lives: <attempt_dir>/pi-sessions.
std::filesystem::path pi_session_dir(const std::filesystem::path& attempt_dir);

// True for the canonical 8-4-4-4-12 hex form.
bool is_uuid(std::string_view text);

} // namespace ad::runtime

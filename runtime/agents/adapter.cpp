#include "runtime/agents/adapter.hpp"

#include <array>
#include <utility>

namespace ad::runtime {

namespace {

constexpr std::array<std::pair<adapter_kind, std::string_view>, 5> kind_names{{
  {adapter_kind::codex, "codex"},
  {adapter_kind::claude, "claude"},
  {adapter_kind::agy, "agy"},
  {adapter_kind::pi, "pi"},
  {adapter_kind::command, "command"},
}};

status require(bool present, std::string_view adapter, std::string_view field) {
  if (present)
    return status::ok();
  return status::invalid_argument(std::string(adapter) + " launch needs a " + std::string(field));
}

std::string executable_or(const launch_spec& spec, std::string_view fallback) {
  return spec.executable.empty() ? std::string(fallback) : spec.executable;
}

bool is_placeholder_char(char c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}

std::optional<std::string> placeholder_value(std::string_view name, const launch_spec& spec) {
  if (name == "prompt")
    return spec.prompt;
  if (name == "workspace")
    return spec.workspace.string();
  if (name == "model")
    return spec.model;
  if (name == "session_id")
    return spec.session_id;
  if (name == "attempt_dir")
    return spec.attempt_dir.string();
  if (name == "role")
    return spec.role;
  if (name == "task")
    return spec.task;
  if (name == "plan")
    return spec.plan_path.string();
  if (name == "review")
    return spec.review_path.string();
  return std::nullopt;
}

result<std::vector<std::string>> codex_argv(const launch_spec& spec) {
  if (auto st = require(!spec.model.empty(), "codex", "model"); !st)
    return st;
  if (auto st = require(!spec.workspace.empty(), "codex", "workspace"); !st)
    return st;
  std::string effort = effective_effort(spec);
  if (effort.find_first_of("\"\n\r") != std::string::npos)
    return status::invalid_argument("codex effort must not contain quotes or newlines: " + effort);
  return std::vector<std::string>{
    executable_or(spec, "codex"),
    "exec",
    "--json",
    "-C",
    spec.workspace.string(),
    "-m",
    spec.model,
    "-c",
    "model_reasoning_effort=\"" + effort + "\"",
    "--dangerously-bypass-approvals-and-sandbox",
    spec.prompt,
  };
}

result<std::vector<std::string>> claude_argv(const launch_spec& spec) {
  if (auto st = require(!spec.model.empty(), "claude", "model"); !st)
    return st;
  if (!is_uuid(spec.session_id))
    return status::invalid_argument("claude launch needs a UUID session id, got '"
                                    + spec.session_id + "'");
  return std::vector<std::string>{
    executable_or(spec, "claude"),
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--session-id",
    spec.session_id,
    "--model",
    spec.model,
    "--effort",
    effective_effort(spec),
    "--dangerously-skip-permissions",
    spec.prompt,
  };
}

result<std::vector<std::string>> agy_argv(const launch_spec& spec) {
  if (auto st = require(!spec.model.empty(), "agy", "model"); !st)
    return st;
  if (auto st = require(!spec.attempt_dir.empty(), "agy", "attempt folder"); !st)
    return st;
  // --print takes the very next argument as the prompt, so it comes first.
  return std::vector<std::string>{
    executable_or(spec, "agy"),
    "--print",
    spec.prompt,
    "--print-timeout",
    "8h",
    "--model",
    spec.model,
    "--dangerously-skip-permissions",
    "--log-file",
    agy_cli_log_path(spec.attempt_dir).string(),
  };
}

result<std::vector<std::string>> pi_argv(const launch_spec& spec) {
  if (auto st = require(!spec.model.empty(), "pi", "model"); !st)
    return st;
  std::vector<std::string> argv{executable_or(spec, "pi"), "-p", "--mode", "json"};
  if (spec.caps.pi_approve)
    argv.push_back("--approve");
  argv.insert(argv.end(), {"--provider",
                           spec.provider.empty() ? std::string(default_pi_provider) : spec.provider,
                           "--model", spec.model, "--thinking",
                           spec.effort.empty() ? std::string(default_pi_thinking) : spec.effort});
  if (!spec.native_session_file.empty()) {
    argv.insert(argv.end(), {"--session", spec.native_session_file.string(), "--session-dir",
                             spec.native_session_file.parent_path().string()});
  } else {
    if (auto st = require(!spec.attempt_dir.empty(), "pi", "attempt folder"); !st)
      return st;
    if (pi_takes_session_id(spec)) {
      if (auto st = require(!spec.session_id.empty(), "pi", "session id"); !st)
        return st;
      argv.insert(argv.end(), {"--session-id", spec.session_id});
    }
    argv.insert(argv.end(), {"--session-dir", pi_session_dir(spec.attempt_dir).string()});
  }
  argv.push_back(spec.prompt);
  return argv;
}

result<std::vector<std::string>> command_argv(const launch_spec& spec) {
  if (spec.command_template.empty())
    return status::invalid_argument("command launch needs a non-empty argv template");
  std::vector<std::string> argv;
  argv.reserve(spec.command_template.size());
  for (const auto& element : spec.command_template) {
    auto expanded = expand_command_element(element, spec);
    if (!expanded)
      return expanded.error();
    argv.push_back(std::move(expanded.value()));
  }
  if (!spec.executable.empty())
    argv[0] = spec.executable;
  if (argv[0].empty())
    return status::invalid_argument("command template expands to an empty executable");
  return argv;
}

} // namespace

std::string_view to_string(adapter_kind kind) {
  for (const auto& [k, name] : kind_names)
    if (k == kind)
      return name;
  return "command";
}

result<adapter_kind> parse_adapter_kind(std::string_view name) {
  for (const auto& [k, n] : kind_names)
    if (n == name)
      return k;
  return status::invalid_argument("unknown adapter '" + std::string(name)
                                  + "' (expected codex, claude, agy, pi or command)");
}

bool pi_takes_session_id(const launch_spec& spec) {
  return spec.kind == adapter_kind::pi && spec.native_session_file.empty()
         && spec.caps.pi_session_id;
}

std::string effective_effort(const launch_spec& spec) {
  return spec.effort.empty() ? std::string(default_reasoning_effort) : spec.effort;
}

result<std::string> expand_command_element(std::string_view element, const launch_spec& spec) {
  std::string out;
  out.reserve(element.size());
  size_t i = 0;
  while (i < element.size()) {
    if (element[i] == '{') {
      size_t j = i + 1;
      while (j < element.size() && is_placeholder_char(element[j]))
        ++j;
      if (j < element.size() && element[j] == '}' && j > i + 1) {
        std::string_view name = element.substr(i + 1, j - i - 1);
        auto value = placeholder_value(name, spec);
        if (!value)
          return status::invalid_argument("unknown placeholder {" + std::string(name)
                                          + "} in command template element '"
                                          + std::string(element) + "'");
        out += *value;
        i = j + 1;
        continue;
      }
    }
    out += element[i++];
  }
  return out;
}

result<std::vector<std::string>> build_argv(const launch_spec& spec) {
  switch (spec.kind) {
    case adapter_kind::codex:
      return codex_argv(spec);
    case adapter_kind::claude:
      return claude_argv(spec);
    case adapter_kind::agy:
      return agy_argv(spec);
    case adapter_kind::pi:
      return pi_argv(spec);
    case adapter_kind::command:
      return command_argv(spec);
  }
  return status::internal("unhandled adapter kind");
}

std::filesystem::path agy_cli_log_path(const std::filesystem::path& attempt_dir) {
  return attempt_dir / "agy-cli.log";
}

std::filesystem::path pi_session_dir(const std::filesystem::path& attempt_dir) {
  return attempt_dir / "pi-sessions";
}

bool is_uuid(std::string_view text) {
  if (text.size() != 36)
    return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-')
        return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

} // namespace ad::runtime

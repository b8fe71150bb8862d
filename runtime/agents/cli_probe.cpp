#include "runtime/agents/cli_probe.hpp"

#include <cstdlib>
#include <future>
#include <unistd.h>

#include "runtime/core/parallel.hpp"
#include "runtime/process/run_captured.hpp"

namespace ad::runtime {

namespace {

std::string first_line(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos)
    return {};
  text.remove_prefix(start);
  auto nl = text.find_first_of("\r\n");
  return std::string(text.substr(0, nl));
}

// Whether help text lists an option (as "--name" followed by a space, '=',
// ',', a newline or the end).
bool lists_option(std::string_view help, std::string_view option) {
  size_t pos = 0;
  while ((pos = help.find(option, pos)) != std::string_view::npos) {
    size_t end = pos + option.size();
    bool left_ok = pos == 0 || help[pos - 1] == ' ' || help[pos - 1] == '\t'
                   || help[pos - 1] == ',' || help[pos - 1] == '\n' || help[pos - 1] == '[';
    bool right_ok = end == help.size() || help[end] == ' ' || help[end] == '='
                    || help[end] == ',' || help[end] == '\n' || help[end] == '\r'
                    || help[end] == ']' || help[end] == '\t';
    if (left_ok && right_ok)
      return true;
    pos = end;
  }
  return false;
}

} // namespace

cli_capabilities capabilities_from_output(adapter_kind kind, std::string_view version_text,
                                          std::string_view help_text) {
  cli_capabilities caps;
  caps.detected = true;
  caps.version = first_line(version_text);
  if (kind == adapter_kind::pi) {
    caps.pi_approve = lists_option(help_text, "--approve");
    caps.pi_session_id = lists_option(help_text, "--session-id");
  }
  return caps;
}

std::filesystem::path resolve_executable(std::string_view executable,
                                         std::string_view path_value) {
  if (executable.empty())
    return {};
  auto usable = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (executable.find('/') != std::string_view::npos) {
    std::filesystem::path p{std::string(executable)};
    return usable(p) ? p : std::filesystem::path{};
  }
  size_t start = 0;
  while (start <= path_value.size()) {
    size_t colon = path_value.find(':', start);
    std::string_view dir = path_value.substr(start, colon == std::string_view::npos
                                                      ? std::string_view::npos
                                                      : colon - start);
    std::filesystem::path candidate =
      std::filesystem::path{dir.empty() ? std::string(".") : std::string(dir)}
      / std::string(executable);
    if (usable(candidate))
      return candidate;
    if (colon == std::string_view::npos)
      break;
    start = colon + 1;
  }
  return {};
}

std::string cli_executable_name(adapter_kind kind) {
  return std::string(to_string(kind));
}

cli_probe_result probe_cli(adapter_kind kind, const std::string& executable,
                           const probe_options& options) {
  cli_probe_result out;
  out.kind = kind;
  out.executable = executable;
  std::string path_value;
  for (const auto& [name, value] : options.env_additions)
    if (name == "PATH")
      path_value = value;
  if (path_value.empty())
    if (const char* p = std::getenv("PATH"))
      path_value = p;
  out.resolved = resolve_executable(executable, path_value);
  out.found = !out.resolved.empty();
  if (!out.found) {
    out.problems.push_back(executable + " is not on PATH (or not executable): install it or "
                                        "put its folder on PATH");
    return out;
  }
  if (kind == adapter_kind::agy || kind == adapter_kind::command)
    return out;
  capture_options run_options;
  run_options.env_additions = options.env_additions;
  run_options.timeout = options.timeout;
  run_options.max_bytes = 256 * 1024;
  // pi's --help is asked beside its --version: each start of a node CLI
  // takes a good part of a second.
  std::future<captured_run> help;
  if (kind == adapter_kind::pi)
    help = start_beside(
      [argv = std::vector<std::string>{out.resolved.string(), "--help"}, run_options] {
        return run_captured(argv, run_options);
      });
  auto version = run_captured({out.resolved.string(), "--version"}, run_options);
  std::string help_text;
  if (help.valid()) {
    auto h = help.get();
    help_text = h.stdout_text + h.stderr_text;
  }
  // pi prints its version on stderr when stdin is not a terminal.
  out.caps = capabilities_from_output(
    kind, first_line(version.stdout_text).empty() ? version.stderr_text : version.stdout_text,
    help_text);
  if (version.exit_code != 0 || out.caps.version.empty()) {
    std::string why = version.timed_out ? "did not answer `--version` in time"
                                        : "`--version` failed (exit "
                                            + std::to_string(version.exit_code) + ")";
    std::string said = first_line(version.stderr_text);
    out.problems.push_back(out.resolved.string() + " " + why
                           + (said.empty() ? std::string() : ": " + said));
  }
  return out;
}

std::map<std::pair<adapter_kind, std::string>, cli_probe_result>
probe_clis(const std::vector<std::pair<adapter_kind, std::string>>& wanted,
           const probe_options& options) {
  std::map<std::pair<adapter_kind, std::string>, std::future<cli_probe_result>> running;
  for (const auto& key : wanted) {
    if (running.contains(key))
      continue;
    running.emplace(key, start_beside([key, &options] {
                      return probe_cli(key.first, key.second, options);
                    }));
  }
  std::map<std::pair<adapter_kind, std::string>, cli_probe_result> out;
  for (auto& [key, probe] : running)
    out.emplace(key, probe.get());
  return out;
}

} // namespace ad::runtime

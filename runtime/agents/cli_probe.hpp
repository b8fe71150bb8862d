#pragma once
// Capability detection: what the installed agent CLI accepts, learned once
// per binary by running it with `--version` (and, for pi, `--help`) before
// any attempt starts, so the adapter builds a command line that works and
// the locator records the CLI's version (docs/agents.md). Reading the
// printed text is pure (capabilities_from_output); probe_cli resolves the
// executable in PATH and runs it (run_captured: argv, no shell, bounded
// time) and so blocks its caller; probe_clis runs each distinct
// executable once, all at the same time. Never throws: a CLI that is missing or fails to answer
// is a probe result with found false or an empty version and a problem in
// plain words.

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/agents/adapter.hpp"

namespace ad::runtime {

struct cli_probe_result {
  adapter_kind kind = adapter_kind::command;
  std::string executable;              // as asked for ("pi", or a path)
  std::filesystem::path resolved;      // the file PATH resolves it to; empty when missing
  bool found = false;
  cli_capabilities caps;
  std::vector<std::string> problems;   // what will not work, with the fix
};

// The capabilities read from what `--version` and `--help` printed.
cli_capabilities capabilities_from_output(adapter_kind kind, std::string_view version_text,
                                          std::string_view help_text);

// The executable as posix_spawn will find it: a name without '/' searched in
// path_value (a PATH string), a path as it is. Empty when not found or not
// executable.
std::filesystem::path resolve_executable(std::string_view executable, std::string_view path_value);

// The name an adapter's CLI goes by ("codex", "claude", "agy", "pi").
std::string cli_executable_name(adapter_kind kind);

struct probe_options {
  std::vector<std::pair<std::string, std::string>> env_additions;
  std::chrono::milliseconds timeout = std::chrono::seconds(20);
};

// Resolves and runs the CLI. codex, claude and pi are probed; agy and command
// agents are only looked up.
cli_probe_result probe_cli(adapter_kind kind, const std::string& executable,
                           const probe_options& options = {});

// Probes each distinct (adapter, executable) of `wanted` at the same time,
// each on a thread of its own, and waits for all: a probe waits on the CLI
// it starts (a node CLI takes a good part of a second to answer), not on
// this processor, so several take about as long as the slowest.
std::map<std::pair<adapter_kind, std::string>, cli_probe_result>
probe_clis(const std::vector<std::pair<adapter_kind, std::string>>& wanted,
           const probe_options& options = {});

} // namespace ad::runtime

#pragma once
// The command line of ad-keeper (docs/keeper.md), both ways: the dispatcher
// builds the argv of a keeper from a keeper_invocation, the keeper parses
// its argv back into one. An argv, never a shell string. Pure functions; no
// state. Error contract: parse_keeper_args returns invalid_argument whose
// message names the option at fault ("--grace-ms: expected a number of
// milliseconds, got 'x'"); nothing throws except std::bad_alloc.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/keeper/containment.hpp"
#include "runtime/keeper/stream_spool.hpp"

namespace ad::runtime {

struct keeper_invocation {
  std::filesystem::path attempt_dir;                         // --attempt-dir, required
  std::string marker;                                        // --marker, required
  std::filesystem::path cwd;                                 // --cwd; empty: the keeper's own
  std::vector<std::pair<std::string, std::string>> env;     // --env NAME=VALUE...
  int64_t grace_ms = 5000;                                   // --grace-ms
  uint64_t line_cap = spool_default_line_cap;                // --line-cap
  spool_retention retention = spool_default_retention;       // --head-bytes, --tail-bytes
  std::filesystem::path lease_file;                          // --lease-file; empty: no lease
  int64_t lease_ms = 0;                                      // --lease-ms
  // --containment auto|subreaper (auto: a cgroup where it can, docs/keeper.md)
  containment_request containment = containment_request::automatic;
  std::vector<std::string> keep_alive;                       // --keep-alive NAME...
  std::vector<std::string> agent_argv;                       // after --, required
  friend bool operator==(const keeper_invocation&, const keeper_invocation&) = default;
};

enum class keeper_command : uint8_t { run, help };

struct parsed_keeper_args {
  keeper_command command = keeper_command::run;
  keeper_invocation invocation; // run only
};

// args: argv without the program name.
result<parsed_keeper_args> parse_keeper_args(const std::vector<std::string_view>& args);

// The arguments that make parse_keeper_args return `invocation` (without
// the program name); options at their defaults are left out.
std::vector<std::string> keeper_arguments(const keeper_invocation& invocation);

// The usage text printed for --help and after a usage error.
std::string_view keeper_usage() noexcept;

} // namespace ad::runtime

#pragma once
// The settings a node and a coordinator derive alike (docs/distributed.md):
// the adapters a node offers, and the middleman's heartbeat and connection
// timeout, which must be the same on both sides (set on one side only they
// give false disconnects) and so follow from the lease both are given.
// Pure functions except adapters_on_path, which looks at the files PATH
// names.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// "codex,pi": each a known adapter, none twice.
result<std::vector<std::string>> parse_adapter_list(std::string_view text);

// Every adapter whose CLI PATH resolves (as `doctor` finds them), and
// "command", which runs whatever the policy names.
std::vector<std::string> adapters_on_path(std::string_view path_value);

struct middleman_timing {
  int64_t heartbeat_ms = 0;
  int64_t connection_timeout_ms = 0;
};

// A twentieth of the lease between 100 ms and 1 s; the timeout four beats.
middleman_timing middleman_timing_for(int64_t lease_ms) noexcept;

} // namespace ad::runtime

#pragma once
// The per-adapter rule for an agent that makes no progress while it keeps
// talking (docs/agents.md): codex that only prints `Reconnecting... waiting
// for network` (it does so about once a minute forever when its provider
// refuses connections), and a CLI that retries the same provider error for
// minutes (codex `Reconnecting... n/5 (...)`, claude `system/api_retry`,
// pi `auto_retry_start`). Fed every stdout event with the time it arrived,
// it answers once with the verdict that ends the attempt: the failure class
// the retried error means and the line that shows it. Any other event is
// progress and starts the count again. Waiting for network ends the attempt
// after network_wait_ms whatever else the policy allows (the CLI never
// gives up); retrying ends it after retrying_ms only when another candidate
// can take over (otherwise the CLI's own retries run out and it ends by
// itself). Plain state owned by one attempt: no I/O, never throws.

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "runtime/core/json.hpp"

namespace ad::runtime {

struct no_progress_settings {
  int64_t network_wait_ms = 0;   // 0: never end a network wait
  int64_t retrying_ms = 0;       // 0: never end a CLI's retries
  bool failover_available = false;
};

struct no_progress_stop {
  std::string failure_class;
  std::string evidence;
  std::string origin; // codex:network-wait, codex:retry, claude:api_retry, pi:auto_retry
};

class progress_watch {
public:
  progress_watch(adapter_kind kind, no_progress_settings settings)
      : kind_(kind), settings_(settings) {}

  // One stdout event at `at` (ms). Returns the stop once, at the event that
  // crosses a limit.
  std::optional<no_progress_stop> on_event(const json& event, int64_t at,
                                           const compiled_failure_patterns& table);

private:
  struct streak {
    int64_t since = -1;
    int64_t count = 0;
    std::string last;
  };
  std::optional<no_progress_stop> check(streak& s, int64_t limit, int64_t at,
                                        std::string failure_class, std::string origin);

  adapter_kind kind_;
  no_progress_settings settings_;
  streak network_;
  streak retrying_;
  bool stopped_ = false;
};

} // namespace ad::runtime

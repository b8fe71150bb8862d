#include "runtime/policy/launch_settings.hpp"

#include <cmath>

#include "runtime/core/numbers.hpp"

namespace ad::runtime {

namespace {

int64_t to_ms(double seconds) { return seconds_to_ms(seconds); }

} // namespace

launch_settings launch_settings_for(const policy& pol, const policy_target& target,
                                    const route_decision* decision, std::string_view stage) {
  launch_settings out;
  bool failover = stage != "review" && decision != nullptr && decision->candidates.size() > 1;
  std::map<std::string, std::string> env = target.env;
  if (target.adapter == "claude" && failover && pol.no_progress.cli_max_retries > 0
      && !env.contains("CLAUDE_CODE_MAX_RETRIES"))
    env["CLAUDE_CODE_MAX_RETRIES"] = std::to_string(pol.no_progress.cli_max_retries);
  for (const auto& [name, value] : env)
    out.env_additions.push_back(name + "=" + value);
  out.progress.network_wait_ms = to_ms(pol.no_progress.network_wait_s);
  out.progress.retrying_ms = to_ms(pol.no_progress.retrying_s);
  out.progress.failover_available = failover;
  return out;
}

} // namespace ad::runtime

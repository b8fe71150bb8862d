#pragma once
// What an attempt on a target is started with beyond its command line
// (docs/agents.md): the target's own environment from the policy, claude's
// retry count lowered to no_progress.cli_max_retries while another candidate
// could take over (CLAUDE_CODE_MAX_RETRIES, unless the target sets it), and
// the adapter's no-progress limits. Whether another candidate exists is the
// supervisor's failover condition: a worker or self-check whose decision
// ranked more than one candidate. Pure: no I/O, never throws.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/progress_watch.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/selection.hpp"

namespace ad::runtime {

struct launch_settings {
  std::vector<std::string> env_additions; // "NAME=value", in name order
  no_progress_settings progress;
};

// decision: the stage's current decision, or null (reviews, pinned stages).
launch_settings launch_settings_for(const policy& pol, const policy_target& target,
                                    const route_decision* decision, std::string_view stage);

} // namespace ad::runtime

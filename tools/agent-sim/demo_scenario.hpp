#pragma once
// A ready-made scenario for the demo workspace: given the demo's task names it
// scripts a few realistic failures (a rate limit with retry-after, a stream
// disconnect, "File already exists", a failed first review, a silent stretch)
// and lets every other run behave competently. Pure function; the caller
// writes the document where the demo's agents will find it.

#include <string>
#include <vector>

#include "runtime/core/json.hpp"

namespace ad::agent_sim {

// tasks: task names relative to agent-task/ (e.g. "auth/01_model"); empty uses
// a fixed sample set. The result always parses with parse_scenario().
runtime::json demo_scenario(const std::vector<std::string>& tasks);

} // namespace ad::agent_sim

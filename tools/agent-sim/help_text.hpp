#pragma once
// The text of `agent-sim --help`: modes, environment and the scenario format.
// A constant; no behaviour.

#include <string_view>

namespace ad::agent_sim {

std::string_view help_text();

} // namespace ad::agent_sim

#pragma once
// The attempt results the coordinator makes up itself for remote attempts
// whose agent's own result cannot reach it (docs/distributed.md): an
// attempt whose node was lost (failure class node-lost, which the
// supervisor treats as a transport failure), and an attempt cancelled
// while it still waited for a node (no agent started). Neither carries
// usage: the coordinator never heard what a lost node's agent spent (its
// locator on that node keeps it), and no agent ran for the other. Pure
// functions.

#include <string>

#include "runtime/core/clock.hpp"
#include "runtime/run/attempt_order.hpp"

namespace ad::runtime {

inline constexpr std::string_view node_lost_class = "node-lost";

attempt_result node_lost_result(const attempt_order& order, const std::string& node,
                                const std::string& why, millis now);

attempt_result cancelled_while_waiting(const attempt_order& order, millis now);

} // namespace ad::runtime

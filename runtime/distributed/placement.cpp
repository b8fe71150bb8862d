#include "runtime/distributed/placement.hpp"

#include <algorithm>
#include <tuple>

#include "runtime/agents/attempt_locator.hpp"

namespace ad::runtime {

namespace {

bool has_adapter(const node_load& n, const std::string& adapter) {
  return std::find(n.adapters.begin(), n.adapters.end(), adapter) != n.adapters.end();
}

} // namespace

placement place_attempt(const std::vector<node_load>& nodes, const std::string& adapter,
                        const std::string& previous_node) {
  placement out;
  int ready = 0, with_adapter = 0;
  auto busy = [&](const node_load& n) {
    return int64_t{n.running} + static_cast<int64_t>(n.orphans.size());
  };
  // Load as busy/slots compared without division: a/b < c/d as a*d < c*b.
  auto lighter = [&](std::size_t a, std::size_t b) {
    const auto& x = nodes[a];
    const auto& y = nodes[b];
    auto bx = busy(x), by = busy(y);
    auto lx = bx * y.slots, ly = by * x.slots;
    return std::tie(lx, bx, x.name) < std::tie(ly, by, y.name);
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (!n.ready)
      continue;
    ++ready;
    if (!has_adapter(n, adapter))
      continue;
    ++with_adapter;
    if (busy(n) >= n.slots)
      continue;
    if (!previous_node.empty() && n.name == previous_node)
      return {i, ""};
    if (!out.node || lighter(i, *out.node))
      out.node = i;
  }
  if (out.node)
    return out;
  if (nodes.empty())
    out.waiting_reason = "waiting for a node: none is configured";
  else if (ready == 0)
    out.waiting_reason = "waiting for a node: none of " + std::to_string(nodes.size()) +
                         " is connected";
  else if (with_adapter == 0)
    out.waiting_reason = "waiting for a node that runs " + adapter + ": none of the " +
                         std::to_string(ready) + " connected has it";
  else
    out.waiting_reason = "waiting for a free slot on a node that runs " + adapter + " (" +
                         std::to_string(with_adapter) + " busy)";
  return out;
}

std::string placement_hold(const std::vector<node_load>& nodes, const std::string& task,
                           bool all_greeted, int64_t since_start_ms, const lease_terms& terms) {
  if (!all_greeted && since_start_ms < terms.lease_ms + terms.margin_ms)
    return "waiting for a node: every node is greeted first, so that the agents of an earlier "
           "coordinator are adopted or stopped";
  auto key = safe_task_name(task) + "__p";
  for (const auto& n : nodes)
    for (const auto& orphan : n.orphans)
      if (orphan.starts_with(key))
        return "waiting for node " + n.name + " to stop " + orphan +
               ", an attempt of an earlier coordinator";
  return "";
}

} // namespace ad::runtime

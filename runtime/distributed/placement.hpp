#pragma once
// Where a remote attempt runs (docs/distributed.md): among the nodes that
// are ready (connected, welcomed, lease current) and have the attempt's
// adapter and a free slot, the node that ran the task's previous attempt
// if it qualifies, else the least loaded (fewest running per slot, then
// fewest running, then name). When none qualifies the answer says why, for
// the task's waiting reason. Pure function; no state.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ad::runtime {

struct node_load {
  std::string name;
  int32_t slots = 0;
  int32_t running = 0;
  std::vector<std::string> adapters;
  bool ready = false;  // connected, welcomed, its lease current
};

struct placement {
  std::optional<std::size_t> node;  // index into the nodes given
  std::string waiting_reason;       // when no node qualifies
};

placement place_attempt(const std::vector<node_load>& nodes, const std::string& adapter,
                        const std::string& previous_node);

} // namespace ad::runtime

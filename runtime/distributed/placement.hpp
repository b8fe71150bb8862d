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

#include "runtime/distributed/lease.hpp"

namespace ad::runtime {

struct node_load {
  std::string name;
  int32_t slots = 0;
  int32_t running = 0;  // this coordinator's attempts there, reserved ones included
  std::vector<std::string> adapters;
  bool ready = false;  // connected, welcomed, its lease current
  // Attempts of an earlier coordinator it still runs, not adopted (yet):
  // they hold slots as well.
  std::vector<std::string> orphans;
};

struct placement {
  std::optional<std::size_t> node;  // index into the nodes given
  std::string waiting_reason;       // when no node qualifies
};

placement place_attempt(const std::vector<node_load>& nodes, const std::string& adapter,
                        const std::string& previous_node);

// Why nothing may be placed for `task` yet ("" when it may): until every
// node has been greeted, unless lease + margin has passed since the
// coordinator started (by then an unreachable node has stopped what an
// earlier coordinator ran there), and while a node still runs an attempt
// of an earlier coordinator for this task (until it is adopted or stopped).
std::string placement_hold(const std::vector<node_load>& nodes, const std::string& task,
                           bool all_greeted, int64_t since_start_ms, const lease_terms& terms);

} // namespace ad::runtime

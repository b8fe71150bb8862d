#pragma once
// The worker node's actor (`agent-dispatch node`, docs/distributed.md):
// published on the node's address, it takes a coordinator's hello (checks
// the wire protocol, the lease and that the workspace and the state folder
// are shared at the same paths), renews its lease, runs each node_start
// through the node's local attempt host (the same attempt actor and keepers
// as a local run) and answers with the attempt's result.
//
// Fencing and adoption: a hello from the same coordinator, reconnected,
// keeps its attempts and names them (`held`) for node_follow. A hello from
// a newer epoch (a coordinator that took over) names the older epoch's
// attempts (`orphans`); each it adopts with node_follow within one lease
// goes on, the others are stopped. The result of an attempt that ends
// while no one listens is kept for an hour for node_follow. A lease that
// runs out (no renewal for lease_ms) stops every agent; the keepers stop
// them too, since the node touches their lease file only while the lease
// is current. An order from an older epoch is refused. Error contract: see
// messages/node.hpp.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "messages/node.hpp"

namespace ad::actors {

struct node_config {
  std::string name;
  int32_t slots = 1;
  std::vector<std::string> adapters;
  int64_t lease_ms = 10'000;   // must equal the coordinator's
  std::string lease_file;      // the keepers' lease file (lease_file.hpp)
  messages::attempt_host_actor host;
  std::function<int64_t()> steady_ms;  // for the lease
};

struct node_actor_state {
  static inline const char* name = "node";
  node_config cfg;
  int64_t epoch = 0;
  bool leased = false;
  int64_t last_renewed = 0;
  struct held {
    int64_t epoch = 0;
    // Of an older epoch: stopped at this time unless adopted (-1: being
    // stopped); 0: ordered by the current coordinator.
    int64_t orphan_until = 0;
    caf::typed_response_promise<messages::attempt_result> answer;
  };
  std::map<std::string, held> running;  // by attempt identity
  struct ended {
    messages::attempt_result result;
    int64_t at = 0;
  };
  std::map<std::string, ended> done;  // results kept for node_follow
};

messages::node_actor::behavior_type node_actor_impl(
  messages::node_actor::stateful_pointer<node_actor_state> self, node_config cfg);

} // namespace ad::actors

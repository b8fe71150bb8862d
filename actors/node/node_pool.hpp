#pragma once
// The coordinator's side of distributed mode (docs/distributed.md): an
// attempt host whose attempts run on worker nodes. It connects to every
// node without blocking an actor (a detached helper probes the port, then
// asks CAF's middleman), greets it (node_hello), renews each node's lease
// every quarter lease, and places each start_attempt with
// runtime::place_attempt: a task asks first (place_attempt), gets a node
// with a slot reserved for it, or the reason none fits, and then starts
// the attempt there (a start without a reservation waits in arrival order
// until a node fits).
//
// A node it cannot hear from is no longer used; an attempt on it is
// answered as node-lost (runtime::node_lost_result) only once lease +
// margin has passed since the node was last heard from, when the node has
// stopped its agent itself. A node that reconnects before then is asked
// for each such attempt again (node_follow) and the attempt goes on; one
// the node still runs that was replaced meanwhile is stopped.
//
// No attempt is placed before every node has been greeted or lease + margin has passed since the pool started, and none for a task
// whose attempt of an earlier coordinator a node still runs (an orphan,
// until it is adopted or stopped), so no agent of a previous coordinator
// runs beside its replacement. adopt_attempt of an attempt on a node (a
// coordinator's restart) is taken up through that node (node_follow);
// adopt_attempt of a local keeper and start_attempt with local slots go to
// the local attempt host. Error contract: start_attempt answers with the
// attempt's result, a node-lost result, or the node's error for a start it
// refused for another reason than a busy slot or lease (retried).

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/typed_response_promise.hpp>

#include "messages/node.hpp"
#include "messages/run_events.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/distributed/lease.hpp"
#include "runtime/distributed/node_protocol.hpp"
#include "runtime/distributed/node_status.hpp"

namespace ad::actors {

struct node_pool_config {
  std::vector<runtime::node_endpoint> nodes;
  bool tls = false;                 // connect with CAF's openssl module
  int64_t epoch = 0;
  std::string coordinator;          // host and pid, for the nodes' logs
  runtime::lease_terms terms;
  runtime::shared_files files;
  int32_t local_slots = 0;
  messages::attempt_host_actor local;
  std::shared_ptr<const runtime::clock> clock;  // wall clock for results
  std::function<int64_t()> steady_ms;
  int64_t probe_timeout_ms = 2000;
  // Told a node_status run event whenever a greeted node's slots, their use
  // or its lease change (runtime::node_status_changed); null: nobody.
  messages::output_actor out;
};

struct node_pool_state {
  static inline const char* name = "node_pool";
  node_pool_config cfg;
  struct node {
    runtime::node_endpoint endpoint;
    messages::node_actor handle;     // set while connected
    bool connecting = false;
    bool welcomed = false;
    bool greeted_once = false;
    std::string name;
    int32_t slots = 0;
    std::vector<std::string> adapters;
    int64_t last_heard = 0;
    int64_t next_connect = 0;
    std::string last_problem;
    // Attempts of an earlier coordinator the node still runs, not adopted
    // (yet): no replacement for their tasks starts meanwhile.
    std::vector<std::string> orphans;
    std::optional<runtime::node_status> shown;  // last published
  };
  std::vector<node> nodes;
  struct placed {
    caf::typed_response_promise<messages::attempt_result> answer;
    runtime::attempt_order order;
    int32_t node = -1;  // -1: the local host
    // While its node is unreachable: when the attempt counts as lost
    // (runtime::replacement_allowed_at from when the node was last heard).
    int64_t lost_at = 0;
    bool following = false;  // asked again with node_follow after a reconnect
  };
  std::map<std::string, placed> running;  // by attempt identity
  struct waiting {
    caf::typed_response_promise<messages::attempt_result> answer;
    runtime::attempt_order order;
  };
  std::deque<waiting> queue;
  // Slots promised by place_attempt to the start that follows, by
  // identity; a promise not taken within a minute lapses.
  struct reservation {
    int32_t node = -1;
    int64_t at = 0;
  };
  std::map<std::string, reservation> reserved;
  // Adoptions of attempts an earlier coordinator placed on a node, waiting
  // for that node's greeting; answered node-lost once lease + margin has
  // passed since this pool started without it.
  struct adoption {
    caf::typed_response_promise<messages::attempt_result> answer;
    runtime::attempt_order order;
  };
  std::vector<adoption> adoptions;
  std::map<std::string, std::string> last_node;  // task -> node of its last attempt
  int64_t started = 0;
  std::string last_wait_reason;
};

messages::node_pool_actor::behavior_type node_pool_impl(
  messages::node_pool_actor::stateful_pointer<node_pool_state> self, node_pool_config cfg);

} // namespace ad::actors

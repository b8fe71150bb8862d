#pragma once
// What the coordinator shows of a worker node (docs/distributed.md, the
// dashboard's node page): its slots, how many are in use, and the state of
// its lease as the coordinator sees it: held (renewed on time), expiring
// (the node missed renewals or its connection dropped; it stops its agents
// when the lease ends unless a renewal comes first) or lost (the lease has
// ended), with the lease's end as a wall-clock instant. Decided here; the
// node pool publishes it as a node_status run event whenever it is news.
// Pure functions over the coordinator's steady clock; never throws.

#include <cstdint>
#include <string>

#include "runtime/core/clock.hpp"
#include "runtime/distributed/lease.hpp"
#include "runtime/report/run_event.hpp"

namespace ad::runtime {

// A node as the pool knows it at `steady_now`.
struct node_observation {
  std::string name;
  bool connected = false;   // greeted and not disconnected since
  int32_t slots = 0;
  int32_t in_use = 0;       // attempts running or promised there
  int64_t last_heard = 0;   // steady ms of its last greeting or renewal
  std::string problem;      // why it is not connected, if known
};

struct node_status {
  std::string name;
  int32_t slots = 0;
  int32_t in_use = 0;
  std::string lease;        // lease_held, lease_expiring or lease_lost (run_event.hpp)
  millis lease_end = 0;     // wall clock: when the node's lease runs (ran) out
  std::string problem;
  friend bool operator==(const node_status&, const node_status&) = default;
};

// The lease is held while the node is connected and answered within two
// renew intervals, expiring when it did not or is not connected, and lost
// once the lease has run out since it was last heard from. The lease's end
// (its last renewal plus the lease) is put on the wall clock through
// `wall_now` and `steady_now`.
node_status decide_node_status(const node_observation& n, const lease_terms& terms,
                               int64_t steady_now, millis wall_now);

// Whether `next` is news after `shown` (the status last published): slots,
// use or lease state changed, the problem changed, or a held lease's end
// moved by half a lease or more (so a shown end is never more than half a
// lease behind).
bool node_status_changed(const node_status& shown, const node_status& next,
                         const lease_terms& terms);

// The node_status run event for `s` at `time`: node, slots, slots_in_use,
// lease, until (the lease's end), reason (the problem).
run_event node_status_event(const node_status& s, millis time);

} // namespace ad::runtime

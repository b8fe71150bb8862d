#include "runtime/distributed/node_status.hpp"

#include <cstdlib>

namespace ad::runtime {

node_status decide_node_status(const node_observation& n, const lease_terms& terms,
                               int64_t steady_now, millis wall_now) {
  node_status s;
  s.name = n.name;
  s.slots = n.slots;
  s.in_use = n.in_use;
  s.problem = n.connected ? "" : n.problem;
  auto end = n.last_heard + terms.lease_ms;
  s.lease_end = wall_now + (end - steady_now);
  auto silent = steady_now - n.last_heard;
  if (lease_expired(n.last_heard, steady_now, terms.lease_ms))
    s.lease = lease_lost;
  else if (!n.connected || silent > 2 * renew_interval_ms(terms))
    s.lease = lease_expiring;
  else
    s.lease = lease_held;
  return s;
}

bool node_status_changed(const node_status& shown, const node_status& next,
                         const lease_terms& terms) {
  if (shown.name != next.name || shown.slots != next.slots || shown.in_use != next.in_use ||
      shown.lease != next.lease || shown.problem != next.problem)
    return true;
  return next.lease == lease_held &&
         std::llabs(next.lease_end - shown.lease_end) * 2 >= terms.lease_ms;
}

run_event node_status_event(const node_status& s, millis time) {
  run_event e;
  e.kind = run_event_kind::node_status;
  e.time = time;
  e.node = s.name;
  e.slots = s.slots;
  e.slots_in_use = s.in_use;
  e.lease = s.lease;
  e.until = s.lease_end;
  e.reason = s.problem;
  return e;
}

} // namespace ad::runtime

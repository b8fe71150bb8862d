#pragma once
// The wire between a coordinator and its worker nodes (docs/distributed.md):
// the node actor's typed interface and the messages that cross hosts. Each
// struct is a value with a free inspect(); runtime::node_protocol_version
// is raised whenever one of them changes, and node_hello carries it so a
// node of another version refuses at connect instead of misreading.
//
// The order of things: the coordinator connects, sends node_hello (its
// epoch, lease terms, protocol, shared files) and gets node_welcome (name,
// slots, adapters). From then on it renews the lease (lease_renew) every
// quarter lease and places attempts (node_start, answered with the
// attempt's result when it ends). A node refuses any order whose epoch is
// older than the newest it has seen, and a node_start while its lease is
// not current. Error contract: refusals are errors with errc::
// invalid_request (protocol, workspace, epoch) or errc::conflict (lease
// not current), whose text says what differs. Registered by
// add_node_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/typed_actor.hpp>

#include "messages/attempt.hpp"

namespace ad::messages {

struct node_hello {
  int32_t protocol = 0;
  int64_t epoch = 0;
  std::string coordinator;  // host name and pid, for the node's log
  int64_t lease_ms = 0;
  std::string workspace;
  std::string runs_dir;
  std::string probe_file;
  std::string probe_token;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_hello& x) {
  return f(caf::meta::type_name("node_hello"), x.protocol, x.epoch, x.coordinator, x.lease_ms,
           x.workspace, x.runs_dir, x.probe_file, x.probe_token);
}

// The answer to node_hello: the attempts the node runs for this epoch
// (`held`: the same coordinator reconnected; node_follow takes them up)
// and those of an older epoch (`orphans`: a coordinator that restarted
// adopts them with node_follow within one lease, else the node stops
// them).
struct node_welcome {
  int32_t protocol = 0;
  std::string name;
  int32_t slots = 0;
  std::vector<std::string> adapters;
  std::vector<std::string> held;
  std::vector<std::string> orphans;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_welcome& x) {
  return f(caf::meta::type_name("node_welcome"), x.protocol, x.name, x.slots, x.adapters,
           x.held, x.orphans);
}

struct lease_renew {
  int64_t epoch = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lease_renew& x) {
  return f(caf::meta::type_name("lease_renew"), x.epoch);
}

// What the node runs now: attempts of an older epoch not yet adopted are
// `orphans` (no replacement for their tasks may start while they run).
struct lease_granted {
  int32_t running = 0;
  std::vector<std::string> orphans;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lease_granted& x) {
  return f(caf::meta::type_name("lease_granted"), x.running, x.orphans);
}

struct node_start {
  int64_t epoch = 0;
  runtime::attempt_order order;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_start& x) {
  return f(caf::meta::type_name("node_start"), x.epoch, x.order);
}

// After a reconnect, or a coordinator's restart (adoption): answered with
// the result of the attempt with this identity when it ends, or at once if
// it ended while the coordinator was away; errc::not_found when the node
// knows nothing of it (a restarted node process).
struct node_follow {
  int64_t epoch = 0;
  std::string identity;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_follow& x) {
  return f(caf::meta::type_name("node_follow"), x.epoch, x.identity);
}

struct node_cancel {
  int64_t epoch = 0;
  std::string identity;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_cancel& x) {
  return f(caf::meta::type_name("node_cancel"), x.epoch, x.identity);
}

// The node's own lease check (a timer to itself).
struct node_lease_check {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_lease_check&) {
  return f(caf::meta::type_name("node_lease_check"));
}

using node_actor =
  caf::typed_actor<caf::replies_to<node_hello>::with<node_welcome>,
                   caf::replies_to<lease_renew>::with<lease_granted>,
                   caf::replies_to<node_start>::with<attempt_result>,
                   caf::replies_to<node_follow>::with<attempt_result>,
                   caf::reacts_to<node_cancel>, caf::reacts_to<node_lease_check>>;

void add_node_messages(caf::actor_system_config& cfg);

} // namespace ad::messages

namespace ad::messages {

// Inside the coordinator: what its node pool (actors/node/node_pool)
// takes besides the attempt-host interface. A connect helper reports a
// connection (or why there is none) by the node's index; the pool's timer
// renews leases, judges lost nodes and retries connects.
struct node_connected {
  int32_t index = 0;
  node_actor node;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_connected& x) {
  return f(caf::meta::type_name("node_connected"), x.index, x.node);
}

struct node_unreachable {
  int32_t index = 0;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_unreachable& x) {
  return f(caf::meta::type_name("node_unreachable"), x.index, x.reason);
}

struct node_pool_tick {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_pool_tick&) {
  return f(caf::meta::type_name("node_pool_tick"));
}

using node_pool_actor = attempt_host_actor::extend<caf::reacts_to<node_connected>,
                                                   caf::reacts_to<node_unreachable>,
                                                   caf::reacts_to<node_pool_tick>>;

} // namespace ad::messages

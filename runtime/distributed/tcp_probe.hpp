#pragma once
// Whether a node's port accepts a TCP connection within a timeout: a
// non-blocking connect, polled. The coordinator probes before it asks
// CAF's middleman to connect, because the middleman connects blocking and
// an address that drops SYNs would stall every other connect
// (docs/distributed.md). Blocks its caller up to
// timeout_ms per address; the coordinator calls it from a connect helper
// of its own, never from an actor's handler. Error contract: status
// naming the address and what happened (refused, timed out, no address).

#include <cstdint>

#include "runtime/core/status.hpp"
#include "runtime/distributed/node_protocol.hpp"

namespace ad::runtime {

status probe_tcp(const node_endpoint& endpoint, int64_t timeout_ms);

} // namespace ad::runtime

#pragma once
// The quota prober: runs one admission batch of quota probes (SPEC section
// 5) with runtime::run_quota_probe_batch over a process_probe_runner and
// replies with the snapshot. Running a probe blocks, so the scheduler spawns
// this actor detached (its own thread) and linked to itself. It keeps no
// state and writes nothing. It answers every request; a plan from another
// host that does not decode fails in deserialization (messages/wire.hpp).

#include <chrono>

#include "messages/quota.hpp"

namespace ad::actors {

// probe_timeout: how long one probe may run before it is killed. (The
// argument also keeps CAF 0.17 from binding an empty argument tuple, which
// UBSan reports for spawn functions without arguments.)
messages::quota_prober_actor::behavior_type quota_prober_impl(
  messages::quota_prober_actor::pointer self, std::chrono::milliseconds probe_timeout);

} // namespace ad::actors

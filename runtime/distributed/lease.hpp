#pragma once
// The lease between a coordinator and a node (docs/distributed.md). The
// coordinator renews every renew_interval; the node notes when it last
// got a renewal from the current epoch. A node whose lease ran out stops
// its agents (and its keepers stop them too: they watch the node's lease
// file). The coordinator starts a replacement for an attempt on a node it
// cannot reach only once lease + margin has passed since it last heard from
// that node, so the node has fenced first: the node's last renewal comes
// before the coordinator hears its answer, and the margin covers the
// keeper's check interval and its stop grace. Pure functions over
// milliseconds of one clock each side (steady clocks; the hosts' wall
// clocks need not agree).

#include <cstdint>

#include "runtime/core/status.hpp"

namespace ad::runtime {

struct lease_terms {
  int64_t lease_ms = 10'000;
  int64_t margin_ms = 10'000;
  friend bool operator==(const lease_terms&, const lease_terms&) = default;
};

// How often the coordinator renews and the node checks: a quarter of the
// lease, at least 50 ms.
int64_t renew_interval_ms(const lease_terms& terms) noexcept;

// Node side: the lease last renewed at last_renewed has run out at now.
bool lease_expired(int64_t last_renewed, int64_t now, int64_t lease_ms) noexcept;

// Coordinator side: the earliest time a replacement may start for an
// attempt on a node last heard from at last_heard.
int64_t replacement_allowed_at(int64_t last_heard, const lease_terms& terms) noexcept;

// Terms that keep the guarantee with a keeper stop grace of grace_ms: a
// lease of at least 1 s, and a margin of at least the keeper's check
// interval (min(1 s, lease/4)) plus the grace plus one renew interval.
// The error names the option and the smallest margin that works.
status check_lease_terms(const lease_terms& terms, int64_t grace_ms);

} // namespace ad::runtime

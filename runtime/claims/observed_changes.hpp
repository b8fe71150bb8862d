#pragma once
// What the two ways of noticing writes saw, as input for
// judge_claim_writes(): a snapshot diff (no writer known, the change time
// from ctime) and drained fanotify events (the writer's marker when it was
// traced). Pure, no state; never throws, never fails.

#include <vector>

#include "runtime/claims/claim_violations.hpp"
#include "runtime/claims/workspace_snapshot.hpp"
#include "runtime/claims/write_watch.hpp"

namespace ad::runtime {

std::vector<observed_change> observed_from_diff(const snapshot_diff& diff);

// `drained_at` is when the events were read (they carry no time of their
// own). Lost records are left out: see events_lost().
std::vector<observed_change> observed_from_events(const std::vector<write_event>& events,
                                                  millis drained_at);

// True when a lost record is among the events: the window they cover must be
// judged from a snapshot diff too.
bool events_lost(const std::vector<write_event>& events);

} // namespace ad::runtime

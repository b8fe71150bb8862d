#pragma once
// The scheduler's side of the admission quota batch (SPEC section 5): the
// probe plan of the tasks a pass is about to start (their worker stages that
// select a target or consume a retry handoff), and putting the batch's
// snapshot into their specs. Translation only: runtime/run/admission_quota
// decides which probes run. Synchronous, never throws.

#include <string>
#include <vector>

#include "actors/scheduler/task_actor.hpp"
#include "runtime/policy/quota.hpp"

namespace ad::actors {

// The distinct probes to run (messages::run_quota_probes), empty when no
// probe is needed; now: the clock reading the pass decided on.
std::vector<runtime::planned_probe> admission_probe_plan(const run_context& ctx, const std::vector<task_spec>& specs,
                                 const runtime::state_model& model, runtime::millis now);

// Every worker spec gets the snapshot as its admission quota.
void attach_admission_quota(std::vector<task_spec>& specs, const runtime::probe_snapshot& snap);

} // namespace ad::actors

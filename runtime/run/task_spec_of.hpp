#pragma once
// The task spec the scheduler machine hands to a task's actor
// (runtime/run/task_spec.hpp), made in one place for both ways a task
// starts: an admission (from the scan and the durable state) and the
// adoption of an attempt its keeper still holds after a restart. Pure
// functions; never throw.

#include <string>

#include "runtime/run/active_probe.hpp"
#include "runtime/run/task_spec.hpp"
#include "runtime/schedule/admission.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

// The task spec of an admitted stage, from the scan and the durable state.
task_spec spec_of_admission(const scanned_task& t, const admission_entry& e,
                            const state_model& model);

// The task spec of an attempt adopted from its keeper: from the scan when
// the task is still in agent-task/ (t non-null), else (a review archived it
// while no dispatcher ran) from the durable state and the attempt's locator.
task_spec spec_of_adoption(const attempt_adoption& a, const scanned_task* t,
                           const state_model& model, const std::string& task_root);

} // namespace ad::runtime

#pragma once
// The quota probe batch at admission (SPEC section 5): which probes the
// workers admitted by one pass need (a worker choosing its first target, or
// one consuming a retry handoff; a worker reusing a persisted decision needs
// none), running those distinct probes once as one snapshot through a
// quota_probe_runner, and merging the snapshot into a task's quota knowledge
// for selection. The real runner starts each probe as an argv (posix_spawn,
// never a shell), reads its stdout and kills its process group at a timeout.
// Planning and merging are pure; only process_probe_runner runs processes and
// it blocks its caller, so it belongs on a detached actor or thread. Never
// throws; a probe that cannot start or times out reads as status "unknown".

#include <chrono>
#include <string>
#include <vector>

#include "runtime/policy/policy.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/run/task_spec.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// One task admitted at a worker stage, as the pass sees it.
struct admitted_worker {
  std::string task;
  std::string lane;
  int grade = 1;
  const task_state* state = nullptr; // null for a task without durable state yet
};

// The probe requests of the admitted workers (in order): a fresh request
// from the matching rule's candidates when the worker has no persisted
// worker decision, a retry_handoff request from the decision's candidates
// when a handoff is pending.
std::vector<probe_request> admission_probe_requests(const policy& pol, const time_zone& zone,
                                                    const std::vector<admitted_worker>& workers,
                                                    millis now);

// The distinct probes the worker stages among `specs` (the tasks a pass is
// about to start) need, empty when none; `now`: the pass's clock reading.
// State of an older work unit than a spec's counts as none.
std::vector<planned_probe> admission_probe_plan(const policy& pol, const time_zone& zone,
                                                const std::vector<task_spec>& specs,
                                                const state_model& model, millis now);

// Every worker spec gets the batch's snapshot as its admission quota.
void attach_admission_quota(std::vector<task_spec>& specs, const probe_snapshot& snap);

// The quota knowledge a selection uses: the admission snapshot's statuses,
// with the marks the task recorded itself (a provider-quota failure during
// this work unit) kept over them.
quota_snapshot merge_quota(const quota_snapshot& admission, const quota_snapshot* task_quota);

// The plan as it travels between actors: [{"argv": [...], "targets": [...]}].
json probe_plan_to_json(const std::vector<planned_probe>& plan);
// invalid_argument naming the bad entry.
result<std::vector<planned_probe>> probe_plan_from_json(const json& j);

// Runs probes as child processes.
class process_probe_runner : public quota_probe_runner {
public:
  explicit process_probe_runner(std::string cwd,
                                std::chrono::milliseconds timeout = std::chrono::seconds(30))
      : cwd_(std::move(cwd)), timeout_(timeout) {}
  output run(const std::vector<std::string>& argv) override;

private:
  std::string cwd_;
  std::chrono::milliseconds timeout_;
};

} // namespace ad::runtime

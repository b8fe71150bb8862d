#include "actors/scheduler/quota_prober.hpp"

#include <caf/all.hpp>

#include "runtime/run/admission_quota.hpp"

namespace ad::actors {

messages::quota_prober_actor::behavior_type quota_prober_impl(
  messages::quota_prober_actor::pointer, std::chrono::milliseconds probe_timeout) {
  return {
    [probe_timeout](messages::run_quota_probes& msg) -> messages::quota_probes_done {
      runtime::process_probe_runner runner(msg.cwd, probe_timeout);
      return {runtime::run_quota_probe_batch(msg.plan, runner, msg.snapshot_id, msg.now)};
    },
  };
}

} // namespace ad::actors

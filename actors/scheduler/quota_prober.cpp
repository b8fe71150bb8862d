#include "actors/scheduler/quota_prober.hpp"

#include <caf/all.hpp>

#include "messages/errc.hpp"
#include "runtime/run/admission_quota.hpp"

namespace ad::actors {

messages::quota_prober_actor::behavior_type quota_prober_impl(
  messages::quota_prober_actor::pointer, std::chrono::milliseconds probe_timeout) {
  return {
    [probe_timeout](messages::run_quota_probes& msg) -> caf::result<messages::quota_probes_done> {
      auto doc = runtime::parse_json(msg.plan_json, "run_quota_probes.plan_json");
      if (!doc)
        return caf::make_error(messages::errc::invalid_request, doc.error().message());
      auto plan = runtime::probe_plan_from_json(*doc);
      if (!plan)
        return caf::make_error(messages::errc::invalid_request, plan.error().message());
      runtime::process_probe_runner runner(msg.cwd, probe_timeout);
      auto snap = runtime::run_quota_probe_batch(*plan, runner, msg.snapshot_id, msg.now);
      return messages::quota_probes_done{runtime::dump_json(runtime::to_json(snap))};
    },
  };
}

} // namespace ad::actors

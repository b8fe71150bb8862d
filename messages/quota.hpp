#pragma once
// Messages and the typed interface of the quota prober (actors/scheduler
// quota_prober): the scheduler asks it to run one admission batch of quota
// probes (SPEC section 5) and gets one snapshot back. Fields are runtime/
// values (messages/wire.hpp). Error contract: errc::invalid_request when a
// serialized plan does not decode; a probe that fails reads as "unknown" in
// the snapshot, never as an error. Registered by add_quota_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/wire.hpp"

namespace ad::messages {

// Scheduler -> prober: run these distinct probes once, in cwd.
struct run_quota_probes {
  std::vector<runtime::planned_probe> plan;
  std::string cwd;
  std::string snapshot_id;
  int64_t now = 0; // ms since the epoch, UTC: the snapshot's check time
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_quota_probes& x) {
  return f(caf::meta::type_name("run_quota_probes"), x.plan, x.cwd, x.snapshot_id, x.now);
}

struct quota_probes_done {
  runtime::probe_snapshot snapshot;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_probes_done& x) {
  return f(caf::meta::type_name("quota_probes_done"), x.snapshot);
}

using quota_prober_actor =
  caf::typed_actor<caf::replies_to<run_quota_probes>::with<quota_probes_done>>;

inline void add_quota_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<run_quota_probes>("run_quota_probes");
  cfg.add_message_type<quota_probes_done>("quota_probes_done");
}

} // namespace ad::messages

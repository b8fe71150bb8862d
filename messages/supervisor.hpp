#pragma once
// Messages and the typed interface of the supervisor actor (actors/supervisor):
// every failed attempt is reported to it and it answers with the next step
// (runtime/policy/supervisor.hpp decides; the actor only applies the policy
// it was spawned with and keeps the per-target quota cool-downs shared by all
// tasks). Fields are runtime/ values (messages/wire.hpp says how they cross
// hosts); `now` is part of each request so a recorded trace replays the same
// decisions. The
// supervisor writes nothing: the caller makes the returned changes durable
// through the state store before acting on the step.
// Error contract: errc::invalid_request when a serialized request does not
// decode.
// Registered by add_supervisor_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/state.hpp"
#include "messages/wire.hpp"

namespace ad::messages {

// Attempt -> supervisor: this attempt failed; what next?
struct supervise_failure {
  runtime::supervisor_request request;
  runtime::task_state task;
  int64_t now = 0; // ms since the epoch, UTC
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervise_failure& x) {
  return f(caf::meta::type_name("supervise_failure"), x.request, x.task, x.now);
}

struct supervision_decided {
  runtime::next_step step;
  std::vector<state_change> changes;       // make durable before acting on the step
  std::vector<runtime::tactical_event> events; // the tactical analysis, in order
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervision_decided& x) {
  return f(caf::meta::type_name("supervision_decided"), x.step, x.changes, x.events);
}

// Scheduler -> supervisor: an admission quota batch; exhausted targets cool
// down for every task, available ones are released.
struct quota_batch_taken {
  runtime::probe_snapshot snapshot;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_batch_taken& x) {
  return f(caf::meta::type_name("quota_batch_taken"), x.snapshot);
}

// Anyone -> supervisor: the shared cool-downs (for selection and status).
struct get_target_cooldowns {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_target_cooldowns&) {
  return f(caf::meta::type_name("get_target_cooldowns"));
}

struct target_cooldowns_reply {
  runtime::target_cooldowns cooldowns;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_cooldowns_reply& x) {
  return f(caf::meta::type_name("target_cooldowns_reply"), x.cooldowns);
}

using supervisor_actor =
  caf::typed_actor<caf::replies_to<supervise_failure>::with<supervision_decided>,
                   caf::replies_to<get_target_cooldowns>::with<target_cooldowns_reply>,
                   caf::reacts_to<quota_batch_taken>>;

inline void add_supervisor_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<supervise_failure>("supervise_failure");
  cfg.add_message_type<supervision_decided>("supervision_decided");
  cfg.add_message_type<quota_batch_taken>("quota_batch_taken");
  cfg.add_message_type<get_target_cooldowns>("get_target_cooldowns");
  cfg.add_message_type<target_cooldowns_reply>("target_cooldowns_reply");
}

} // namespace ad::messages

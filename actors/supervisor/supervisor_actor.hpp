#pragma once
// The supervisor actor: answers every failed attempt with the next step by
// applying runtime::decide_after_failure with the policy and time zone it was
// spawned with, and keeps the one piece of state shared by all tasks: the
// per-target quota cool-downs (a runtime::target_cooldowns value, updated by
// failures and by admission quota batches). It never writes durable state and
// never reads the clock: requests carry `now`, replies carry the changes the
// caller must make durable. With a trace it records each failure and its
// step (supervisor.failure -> supervisor.step). With an observer, it is
// given the cool-downs after every failure and quota batch (`run --web`
// shows them per target). Its handlers take typed
// values and answer every request; a request from another host that does
// not decode fails in deserialization as errc::invalid_request
// (messages/wire.hpp).

#include <caf/actor_system.hpp>
#include <functional>
#include <memory>

#include "messages/supervisor.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/trace/trace_writer.hpp"

namespace ad::actors {

// Called on the supervisor's thread with its cool-downs; it must not wait.
using cooldown_observer = std::function<void(const runtime::target_cooldowns&)>;

struct supervisor_state {
  static inline const char* name = "supervisor";
  runtime::policy pol;
  runtime::time_zone zone;
  runtime::target_cooldowns cooldowns;
  std::shared_ptr<runtime::trace_writer> trace; // null: not recording
  cooldown_observer observer;                    // null: none
};

messages::supervisor_actor::behavior_type supervisor(
  messages::supervisor_actor::stateful_pointer<supervisor_state> self, runtime::policy pol,
  runtime::time_zone zone, std::shared_ptr<runtime::trace_writer> trace,
  cooldown_observer observer);

// With a trace writer, every supervise_failure and its decision, and every
// quota batch, are recorded (runtime/records/decision_records.hpp).
messages::supervisor_actor spawn_supervisor(caf::actor_system& sys, runtime::policy pol,
                                            runtime::time_zone zone,
                                            std::shared_ptr<runtime::trace_writer> trace = nullptr,
                                            cooldown_observer observer = {});

} // namespace ad::actors

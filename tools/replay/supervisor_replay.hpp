#pragma once
// The supervisor actor itself, replayed: a private actor system on CAF's
// deterministic scheduler (test_coordinator) runs the real supervisor actor,
// and every recorded supervise_failure and quota batch of a trace is sent to
// it as the message it was. Each failure's reply (step, detail, changes,
// tactical events) and the cool-downs the actor keeps afterwards become the
// replayed supervisor.step, in the body layout the recording writes. No
// thread of its own: the scheduler runs inside each call, until the actor is
// idle; no clock (every message carries its `now`). One object replays one
// trace, in edge order. Errors (an undecodable edge, the actor's error
// reply) are handler results; nothing throws.

#include <memory>

#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::tools {

class supervisor_replay {
public:
  supervisor_replay(const runtime::policy& pol, const runtime::time_zone& zone);
  ~supervisor_replay(); // stops the actor and runs the scheduler dry
  supervisor_replay(const supervisor_replay&) = delete;
  supervisor_replay& operator=(const supervisor_replay&) = delete;

  // supervisor.failure edge body -> the supervisor.step decision.
  runtime::result<std::vector<runtime::replayed_decision>> failure(const runtime::json& body);
  // supervisor.quota_batch edge body -> no decision (the cool-downs change).
  runtime::result<std::vector<runtime::replayed_decision>> quota_batch(const runtime::json& body);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// Replaces the supervisor.failure and supervisor.quota_batch handlers with
// ones driving one supervisor_replay (shared by both).
void add_supervisor_actor_replay(runtime::replay_handlers& handlers, const runtime::policy& pol,
                                 const runtime::time_zone& zone);

} // namespace ad::tools

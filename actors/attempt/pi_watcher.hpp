#pragma once
// The pi session watcher: follows one pi session for its attempt. A
// coroutine polls every target.poll_ms (an actor timer): it reads the
// session from the end (runtime/attempt/pi_watch) and sends what it read to
// itself as pi_session_observed, so file-system observations enter as
// messages and a recorded trace replays them. On each observation that
// differs from the last report (phase, reason, tool-call ids or file) it
// sends pi_phase_changed to its subscriber; the first observation is always
// reported. Runs until it is told to exit (the attempt stops it when it
// ends). Never fails: unreadable sessions are reported as phase unknown.

#include "actors/core/coroutines.hpp"
#include "messages/attempt.hpp"

namespace ad::actors {

struct pi_watcher_state {
  static inline const char* name = "pi_watcher";
  core::coroutine_host coro;
  messages::pi_phase_subscriber_actor subscriber;
  messages::pi_watch_target target;
  bool reported = false;
  messages::pi_phase_report last;
  int64_t observations = 0;
};

messages::pi_watcher_actor::behavior_type pi_watcher_impl(
  messages::pi_watcher_actor::stateful_pointer<pi_watcher_state> self,
  messages::pi_phase_subscriber_actor subscriber, messages::pi_watch_target target);

} // namespace ad::actors

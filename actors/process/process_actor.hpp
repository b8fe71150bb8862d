#pragma once
// The process edge actor: owns the one process reactor (runtime/process)
// and turns its events into messages. spawn_process starts a child and
// replies with process_spawned; the child's process_line, process_silence
// and process_exit go to the actor that sent spawn_process (or, for a
// request without a sender, to the default subscriber given at spawn). The
// reactor thread sends them with anon_send, so they may reach the
// subscriber before the spawn reply. terminate_process kills the child's
// process group (SIGTERM, grace, SIGKILL); process_output_consumed passes a
// subscriber's acknowledgement to the reactor's flow control. When the actor exits, the reactor
// shuts down and terminates every child it still runs. Error contract:
// spawn_process answers errc::invalid_request for an empty argv, a
// malformed env addition or no subscriber, and errc::retry_call when the
// reactor could not start or is shut down; a command that cannot start is
// not an error but a launch_failed reply.

#include <memory>

#include "messages/process.hpp"
#include "runtime/process/reactor.hpp"

namespace ad::actors {

struct process_actor_config {
  runtime::reactor_options reactor;
  // Receives events of children whose spawn_process had no sender; may be
  // null.
  messages::process_subscriber_actor default_subscriber;
};

struct process_actor_state {
  static inline const char* name = "process";
  std::unique_ptr<runtime::process_reactor> reactor;
  messages::process_subscriber_actor default_subscriber;
};

messages::process_actor::behavior_type process_actor_impl(
  messages::process_actor::stateful_pointer<process_actor_state> self, process_actor_config cfg);

} // namespace ad::actors

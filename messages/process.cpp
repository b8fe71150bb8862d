#include "messages/process.hpp"

#include <caf/all.hpp>

namespace ad::messages {

std::string to_string(process_start x) {
  return x == process_start::started ? "started" : "launch_failed";
}

std::string to_string(process_stream x) { return x == process_stream::out ? "stdout" : "stderr"; }

std::string to_string(process_line_cut x) {
  return x == process_line_cut::whole ? "whole" : "truncated";
}

std::string to_string(process_end x) {
  switch (x) {
    case process_end::exited: return "exited";
    case process_end::signaled: return "signaled";
    case process_end::launch_failed: return "launch_failed";
  }
  return "unknown";
}

void add_process_messages(caf::actor_system_config& cfg) {
  cfg.add_message_type<spawn_process>("spawn_process");
  cfg.add_message_type<process_spawned>("process_spawned");
  cfg.add_message_type<terminate_process>("terminate_process");
  cfg.add_message_type<process_output_consumed>("process_output_consumed");
  cfg.add_message_type<process_line>("process_line");
  cfg.add_message_type<process_silence>("process_silence");
  cfg.add_message_type<process_exit>("process_exit");
  cfg.add_message_type<adopt_process>("adopt_process");
  cfg.add_message_type<process_agent_started>("process_agent_started");
}

} // namespace ad::messages

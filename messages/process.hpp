#pragma once
// Messages and the typed interface of the process edge actor (actors/process),
// which owns the one process reactor thread: commands (spawn_process,
// terminate_process) and the events it forwards (process_line,
// process_silence, process_exit). Every struct is a value with a free
// inspect(), so a process actor can live on another node. Events for a
// child go to the actor that sent its spawn_process and may arrive before
// the spawn reply; each child ends with exactly one process_exit (launch
// failures included: exit_code 127). Registered by add_process_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/typed_actor.hpp>

namespace ad::messages {

// Starts one agent process: argv (never a shell string), in cwd, with
// AGENT_DISPATCH_EXECUTION_ID=<marker> and env_additions ("NAME=value") added
// to the dispatcher's environment. Lines longer than line_cap bytes are cut;
// silence_interval_ms > 0 asks for a process_silence after every such
// interval without output. flow_window > 0: the subscriber acknowledges the
// lines it has consumed with process_output_consumed, and the process stops
// being read while flow_window bytes are unacknowledged (see
// runtime::spawn_request::flow_window).
//
// With a keeper (the path of ad-keeper) the process started is the agent's
// keeper (docs/keeper.md): it runs argv in its own session, owns its output
// and exit status, and writes them into attempt_dir, where the reactor
// follows them; the agent outlives the dispatcher. grace_ms is the
// keeper's SIGTERM-to-SIGKILL grace.
struct spawn_process {
  std::vector<std::string> argv;
  std::string cwd;
  std::vector<std::string> env_additions;
  std::string marker;
  uint64_t line_cap = uint64_t{1} << 20;
  int64_t silence_interval_ms = 0;
  uint64_t flow_window = 0;
  std::string keeper;      // "": the agent is the child itself
  std::string attempt_dir; // with a keeper
  int64_t grace_ms = 5000; // with a keeper
  // With a keeper on a worker node: the node's lease file and lease
  // (ad-keeper --lease-file/--lease-ms); "": no lease.
  std::string lease_file;
  int64_t lease_ms = 0;
  // With a keeper: names of processes the agent may leave running past its
  // end (ad-keeper --keep-alive); every other one ends with the attempt.
  std::vector<std::string> keep_alive;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, spawn_process& x) {
  return f(caf::meta::type_name("spawn_process"), x.argv, x.cwd, x.env_additions, x.marker,
           x.line_cap, x.silence_interval_ms, x.flow_window, x.keeper, x.attempt_dir, x.grace_ms,
           x.lease_file, x.lease_ms, x.keep_alive);
}

// Follows the keeper another dispatcher started for an attempt (after a
// crash or a restart): the agent's lines from the start of its spool in
// attempt_dir, then its end, as for a spawned child with a keeper. Replied
// with process_spawned (outcome started; pid and token the keeper's).
struct adopt_process {
  std::string attempt_dir;
  int32_t keeper_pid = 0;
  std::string keeper_start_token;
  uint64_t flow_window = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, adopt_process& x) {
  return f(caf::meta::type_name("adopt_process"), x.attempt_dir, x.keeper_pid,
           x.keeper_start_token, x.flow_window);
}

enum class process_start : uint8_t { started = 1, launch_failed };
std::string to_string(process_start x);

// The reply to spawn_process. started: pid and start token (field 22 of
// /proc/<pid>/stat) are set. launch_failed: the command could not start
// (exit_code 127, reason such as "command not found: codex"); a
// process_exit with the same content follows.
struct process_spawned {
  uint64_t child = 0;
  process_start outcome = process_start::started;
  int32_t pid = 0;
  std::string start_token;
  int32_t exit_code = 0;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, process_spawned& x) {
  return f(caf::meta::type_name("process_spawned"), x.child, x.outcome, x.pid, x.start_token,
           x.exit_code, x.reason);
}

// SIGTERM to the child's whole process group, SIGKILL after grace_ms
// (negative: the reactor's default, 5 s). Also reaches members of the group
// that outlive the child. Unknown children are ignored.
struct terminate_process {
  uint64_t child = 0;
  int64_t grace_ms = -1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, terminate_process& x) {
  return f(caf::meta::type_name("terminate_process"), x.child, x.grace_ms);
}

// The subscriber consumed `bytes` of the child's lines (each line counts
// its text size plus one).
struct process_output_consumed {
  uint64_t child = 0;
  uint64_t bytes = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, process_output_consumed& x) {
  return f(caf::meta::type_name("process_output_consumed"), x.child, x.bytes);
}

enum class process_stream : uint8_t { out = 1, err };
std::string to_string(process_stream x);

enum class process_line_cut : uint8_t { whole = 1, truncated };
std::string to_string(process_line_cut x);

// One output line without its newline (raw bytes). A truncated line holds
// its first line_cap bytes; dropped_bytes were discarded.
struct process_line {
  uint64_t child = 0;
  process_stream stream = process_stream::out;
  std::string text;
  process_line_cut cut = process_line_cut::whole;
  uint64_t dropped_bytes = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, process_line& x) {
  return f(caf::meta::type_name("process_line"), x.child, x.stream, x.text, x.cut,
           x.dropped_bytes);
}

// A keeper's agent started: its pid and start token, from keeper.json
// (children with a keeper only; before their process_exit).
struct process_agent_started {
  uint64_t child = 0;
  int32_t pid = 0;
  std::string start_token;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, process_agent_started& x) {
  return f(caf::meta::type_name("process_agent_started"), x.child, x.pid, x.start_token);
}

// No output for silent_for_ms (sent every silence interval).
struct process_silence {
  uint64_t child = 0;
  int64_t silent_for_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, process_silence& x) {
  return f(caf::meta::type_name("process_silence"), x.child, x.silent_for_ms);
}

enum class process_end : uint8_t { exited = 1, signaled, launch_failed };
std::string to_string(process_end x);

// The child ended, after its last line. exited: exit_code; signaled: signal
// (exit_code = 128 + signal); launch_failed: exit_code 127 and reason.
// lost_lines: lines of a kept agent its spool's retention cut unread.
struct process_exit {
  uint64_t child = 0;
  int32_t pid = 0;
  process_end end = process_end::exited;
  int32_t exit_code = 0;
  int32_t signal = 0;
  std::string reason;
  uint64_t lost_lines = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, process_exit& x) {
  return f(caf::meta::type_name("process_exit"), x.child, x.pid, x.end, x.exit_code, x.signal,
           x.reason, x.lost_lines);
}

// The process edge actor.
using process_actor = caf::typed_actor<caf::replies_to<spawn_process>::with<process_spawned>,
                                       caf::replies_to<adopt_process>::with<process_spawned>,
                                       caf::reacts_to<terminate_process>,
                                       caf::reacts_to<process_output_consumed>>;

// What a subscriber to process events must handle (an attempt actor's
// interface includes these three).
using process_subscriber_actor =
  caf::typed_actor<caf::reacts_to<process_line>, caf::reacts_to<process_silence>,
                   caf::reacts_to<process_exit>, caf::reacts_to<process_agent_started>>;

void add_process_messages(caf::actor_system_config& cfg);

} // namespace ad::messages

#pragma once
// The values a child process produces, as seen by whoever follows it: output
// lines, silence ticks and the one exit event, plus the spawn request that
// starts a child and the sink interface the process reactor delivers events
// to. Every child gets exactly one process_exit, launch failures included
// (exit code 127 with the reason). Sink methods run on the reactor thread:
// they must return quickly, must never block on the reactor (spawn() and
// terminate() are fine, they only queue) and must not throw. Plain values
// only; nothing here owns a thread or a file descriptor.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ad::runtime {

// Name of the environment variable that carries an attempt's process marker.
inline constexpr const char* execution_marker_variable = "AGENT_DISPATCH_EXECUTION_ID";

// Reactor-wide child identifier, never reused within one reactor; 0 is never
// a valid id.
using child_id = uint64_t;

enum class output_stream : uint8_t { stdout_stream, stderr_stream };

// "stdout" / "stderr", as written into stream.log.
const char* to_string(output_stream s) noexcept;

enum class line_cut : uint8_t { whole, truncated };

// One line of output without its '\n'. A line longer than the child's cap is
// cut: text holds its first cap bytes, cut == truncated and dropped_bytes
// says how many bytes were thrown away. Text is raw bytes (not validated as
// UTF-8).
struct process_line {
  child_id id = 0;
  output_stream stream = output_stream::stdout_stream;
  std::string text;
  line_cut cut = line_cut::whole;
  uint64_t dropped_bytes = 0;
};

// Emitted every silence interval while a running child writes nothing.
struct process_silence {
  child_id id = 0;
  int64_t silent_for_ms = 0; // time since the last byte (or since the start)
};

enum class exit_kind : uint8_t {
  exited,        // normal exit: exit_code is the status
  signaled,      // killed by signal: signal is set, exit_code = 128 + signal
  launch_failed, // never ran (command not found, bad cwd): exit_code = 127
};

const char* to_string(exit_kind k) noexcept;

struct process_exit {
  child_id id = 0;
  int pid = 0; // 0 for launch failures
  exit_kind kind = exit_kind::exited;
  int exit_code = 0;
  int signal = 0;
  // launch failure reason; for an agent under a keeper also why it ended
  // when the keeper could not say (the keeper died first); else empty
  std::string reason;
  // An agent under a keeper: lines its spool's retention cut before they
  // were read (their content is gone from the stream; 0 otherwise).
  uint64_t lost_lines = 0;
};

// The agent a keeper started, as its keeper.json names it (kept children
// only; reported once, before the exit).
struct process_agent {
  child_id id = 0;
  int pid = 0;
  std::string start_token;
};

// Receives a child's events on the reactor thread, in order: lines and
// silence ticks, then exactly one process_exit, after which the sink is
// released by the reactor.
class process_event_sink {
public:
  virtual ~process_event_sink() = default;
  virtual void on_line(process_line&& line) = 0;
  virtual void on_silence(const process_silence& tick) = 0;
  virtual void on_exit(const process_exit& exit) = 0;
  // Kept children: the agent the keeper started.
  virtual void on_agent(const process_agent&) {}
};

// An agent run under its keeper (ad-keeper, docs/keeper.md): the reactor
// starts the keeper with the request's argv as the agent's, and reads the
// agent's lines from the keeper's spool in attempt_dir instead of from
// pipes, so the agent and its output outlive the dispatcher. The exit is
// the agent's, from the keeper's exit record.
struct keeper_launch {
  std::filesystem::path keeper;      // the ad-keeper binary
  std::filesystem::path attempt_dir; // the attempt folder; must exist
  int64_t grace_ms = 5000;           // SIGTERM to SIGKILL, carried out by the keeper
  std::filesystem::path lease_file;  // a worker node's lease (docs/keeper.md); empty: none
  int64_t lease_ms = 0;
  std::vector<std::string> keep_alive; // processes the agent may leave running (--keep-alive)
};

inline constexpr std::size_t default_line_cap = std::size_t{1} << 20; // 1 MiB

struct spawn_request {
  std::vector<std::string> argv;      // argv[0] is searched in PATH if it has no '/'
  std::filesystem::path cwd;          // the workspace; must exist
  std::vector<std::pair<std::string, std::string>> env_additions; // override parent values
  std::string marker;                 // AGENT_DISPATCH_EXECUTION_ID value; empty = none
  int stdin_fd = -1;                  // the child's stdin (the caller closes it); -1: /dev/null
  std::size_t line_cap = default_line_cap;
  int64_t silence_interval_ms = 0;    // 0 = no silence ticks
  // Flow control: once this many bytes of lines (text plus one byte per
  // line) were delivered and not yet acknowledged (process_reactor::
  // acknowledge), the reactor stops reading the child's pipes, so a child
  // that writes faster than its follower consumes blocks in write(2)
  // instead of filling the dispatcher's memory. Reading resumes below half
  // the window. 0: no flow control (every line is delivered at once).
  uint64_t flow_window = 0;
  std::shared_ptr<process_event_sink> sink; // required
  // Set: run the agent under its keeper (see keeper_launch).
  std::optional<keeper_launch> keeper;
};

// Following a keeper another dispatcher started (after a crash or a
// restart): its agent's lines from the spool in attempt_dir, from the
// beginning, and its end. Events as for a spawned kept child.
struct adopt_request {
  std::filesystem::path attempt_dir;
  int keeper_pid = 0;
  std::string keeper_start_token;
  int64_t silence_interval_ms = 0;
  uint64_t flow_window = 0;
  std::shared_ptr<process_event_sink> sink; // required
};

enum class spawn_result_kind : uint8_t { started, launch_failed };

struct spawn_outcome {
  child_id id = 0;
  spawn_result_kind kind = spawn_result_kind::started;
  int pid = 0;             // started only
  std::string start_token; // field 22 of /proc/<pid>/stat; may be empty if unreadable
  std::string reason;      // launch_failed only
};

} // namespace ad::runtime

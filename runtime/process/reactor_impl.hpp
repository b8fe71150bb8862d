#pragma once
// Internal to runtime/process: the state of the process reactor's thread
// (children, pipes, timers, the command queue) shared by reactor.cpp (the
// public, thread-safe API), reactor_loop.cpp (the epoll loop) and
// reactor_kept.cpp (children under a keeper). Only the
// reactor thread touches anything here except `queue` and `stop_requested`,
// which are guarded by `mu`. Not for use outside the reactor.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/keeper/keeper_records.hpp"
#include "runtime/keeper/stream_follower.hpp"
#include "runtime/process/line_splitter.hpp"
#include "runtime/process/reactor.hpp"
#include "runtime/process/spawn.hpp"

namespace ad::runtime {

namespace reactor_detail {

struct pipe_state {
  int fd = -1;
  output_stream stream;
  line_splitter splitter;
  pipe_state(int f, output_stream s, std::size_t cap) : fd(f), stream(s), splitter(cap) {}
};

// A kept child: the process is the agent's keeper (spawned here, or
// adopted from another dispatcher); the agent's lines come from the
// keeper's spool in the attempt folder.
struct kept_state {
  std::filesystem::path attempt_dir;
  stream_follower follower;
  int wd = -1;                // inotify watch on the attempt folder
  bool adopted = false;       // not our child: no wait status
  std::string keeper_token;   // the keeper's start token (adopted: to check the pid)
  bool agent_reported = false;
  keeper_record record;       // once keeper.json was read
  bool have_record = false;
  bool drained = false;       // the keeper is gone and its spool read to the end
  kept_state(std::filesystem::path dir, std::size_t line_cap)
    : attempt_dir(dir), follower(std::move(dir), line_cap) {}
};

struct child_record {
  child_id id = 0;
  int pid = 0;
  int pidfd = -1;
  pipe_state out;
  pipe_state err;
  std::shared_ptr<process_event_sink> sink;
  int64_t silence_ms = 0;
  int64_t last_activity = 0;
  int64_t next_tick = 0;
  bool reaped = false;
  int wait_status = 0;
  int64_t linger_deadline = 0;
  bool terminating = false;
  bool killed = false;
  int64_t kill_deadline = 0;
  uint64_t flow_window = 0; // 0: no flow control
  uint64_t unacked = 0;     // bytes delivered and not acknowledged
  bool paused = false;      // pipes taken out of epoll until acknowledged
  std::unique_ptr<kept_state> kept; // an agent under its keeper

  child_record(child_id i, const spawned_child& c, std::size_t cap)
    : id(i), pid(c.pid), out(c.stdout_fd, output_stream::stdout_stream, cap),
      err(c.stderr_fd, output_stream::stderr_stream, cap) {}
};

// A group whose leader was reported as exited while other members lived on.
struct lingering_group {
  int pgid = 0;
  bool terminating = false;
  bool killed = false;
  int64_t kill_deadline = 0;
};

struct command {
  enum class kind : uint8_t { add_child, launch_failed, terminate, acknowledge, shutdown, adopt } what;
  child_id id = 0;
  spawned_child child;
  std::size_t line_cap = default_line_cap;
  int64_t silence_ms = 0;
  std::shared_ptr<process_event_sink> sink;
  std::string reason;
  int64_t grace_ms = 0;
  uint64_t flow_window = 0;
  uint64_t bytes = 0; // acknowledge
  shutdown_mode mode = shutdown_mode::terminate_children;
  // add_child of a kept child, adopt: the attempt folder with the spool
  std::filesystem::path attempt_dir;
  std::string keeper_token; // adopt
};

// Calls a sink: a sink must not throw, and if one does the reactor keeps
// serving the other children.
template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (...) {
  }
}

} // namespace reactor_detail

struct process_reactor::impl {
  using child_record = reactor_detail::child_record;
  using pipe_state = reactor_detail::pipe_state;
  using lingering_group = reactor_detail::lingering_group;
  using command = reactor_detail::command;

  reactor_options opt;
  std::atomic<std::size_t>* running = nullptr;
  int epfd = -1;
  int evfd = -1;
  int sigfd = -1;
  int infd = -1; // inotify: the attempt folders of kept children
  bool use_pidfd = true;
  std::unordered_map<int, child_id> watched_dirs; // inotify wd -> kept child
  int64_t next_kept_poll = 0;

  std::mutex mu;
  std::vector<command> queue; // guarded by mu
  bool stop_requested = false; // guarded by mu

  std::unordered_map<child_id, std::unique_ptr<child_record>> children;
  std::unordered_map<child_id, lingering_group> lingering;
  bool shutting_down = false;
  shutdown_mode mode = shutdown_mode::terminate_children;
  int64_t next_sweep = 0;
  std::vector<char> buf = std::vector<char>(256 << 10);

  ~impl(); // closes epfd, evfd and sigfd

  // Creates epoll, eventfd and (without pidfd) the signalfd; sets use_pidfd.
  status open(reactor_options::watch_choice watch);
  void post(command c);
  void watch_fd(int fd, uint64_t k);
  void unwatch_close(int& fd);

  // --- output ---------------------------------------------------------------
  void emit_lines(child_record& c, pipe_state& p, std::string_view data);
  void close_pipe(child_record& c, pipe_state& p);
  bool read_once(child_record& c, pipe_state& p, int64_t now);
  void drain(child_record& c, pipe_state& p, int64_t now);
  void pause(child_record& c);
  void resume(child_record& c, int64_t now);
  // --- kept children --------------------------------------------------------
  void start_kept(child_record& c, int64_t now);
  // Reads what the keeper appended to its spool; also looks for its record
  // (keeper.json) while there is none, unless told that nothing named it.
  void poll_kept(child_record& c, int64_t now, bool look_for_record = true);
  void read_notifications(int64_t now);
  process_exit kept_exit(child_record& c);
  void kill_kept_agent(child_record& c);

  // --- exits ----------------------------------------------------------------
  void mark_reaped(child_record& c, int wait_status, int64_t now);
  void try_reap(child_record& c, int64_t now);
  void finalize(child_record& c, int64_t now);

  // --- commands -------------------------------------------------------------
  void start_termination(child_record& c, int64_t grace, int64_t now);
  void start_termination(lingering_group& g, int64_t grace, int64_t now);
  void run_command(command& cmd, int64_t now);
  void run_commands(int64_t now);

  // --- timers ---------------------------------------------------------------
  int compute_timeout(int64_t now) const;
  void run_timers(int64_t now, bool sigchld);
  bool finished() const;
  void detach_all();
  void loop();
};

} // namespace ad::runtime

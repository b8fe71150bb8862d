#pragma once
// The process reactor: ONE thread (epoll) that owns every child's stdout and
// stderr pipes and its exit notification (a pidfd per child; where
// pidfd_open is unavailable, a SIGCHLD signalfd plus a periodic waitpid sweep
// of its own children only), splits output into capped lines and delivers
// line, silence and exit events to each child's sink on that thread. No
// thread per child. A kept child (spawn_request::keeper, adopt()) is an
// agent under its keeper: the reactor watches the keeper and reads the
// agent's lines from the keeper's spool (one inotify descriptor for all
// attempt folders, plus a periodic read), and takes the agent's exit from
// the keeper's exit record. Children start with posix_spawn in their own session and
// process group (spawn.hpp). Termination sends SIGTERM to the whole group,
// waits the grace, then SIGKILLs the group; pipes are drained until EOF or
// the group is gone, and the exit event comes after the last line.
//
// Threading: spawn(), terminate() and shutdown() are safe from any thread,
// including from inside a sink callback; they queue a command and wake the
// reactor through an eventfd, and never wait for it (shutdown() joins unless
// called on the reactor thread). Never sends signals to anything but the
// process groups it started. Error contract: start() fails with io_error
// when epoll/eventfd cannot be created; spawn() reports launch failures in
// its outcome (and as an exit event with code 127), and fails with
// unsupported only after shutdown; nothing throws.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/process/process_events.hpp"

namespace ad::runtime {

enum class exit_watch : uint8_t {
  pidfd,           // one pidfd per child (Linux >= 5.3)
  signal_fallback, // SIGCHLD signalfd + waitpid sweep of known children
};

struct reactor_options {
  // automatic pidfd detection unless forced to the fallback (for tests).
  enum class watch_choice : uint8_t { automatic, force_signal_fallback };
  watch_choice watch = watch_choice::automatic;
  int64_t default_grace_ms = 5000;
  // After the leader exits, how long to keep reading pipes that a
  // descendant outside the group still holds open before reporting the exit.
  int64_t orphan_drain_ms = 2000;
  // Fallback sweep period.
  int64_t sweep_interval_ms = 50;
  // Kept children: how often their spools are read besides the file
  // change notifications, and how long past a terminate's grace a keeper
  // may take before it and its agent's group are killed.
  int64_t kept_poll_ms = 200;
  int64_t keeper_margin_ms = 3000;
};

enum class shutdown_mode : uint8_t {
  terminate_children, // SIGTERM, grace, SIGKILL each group; wait for their exits
  detach_children,    // close pipes and leave children running
};

class process_reactor {
public:
  static result<std::unique_ptr<process_reactor>> start(reactor_options options = {});
  ~process_reactor(); // shutdown(terminate_children)
  process_reactor(const process_reactor&) = delete;
  process_reactor& operator=(const process_reactor&) = delete;

  // Starts a child now (in the calling thread) and hands it to the reactor.
  // Events begin on the reactor thread; a launch failure yields an outcome
  // of kind launch_failed and one exit event (code 127) to the sink.
  result<spawn_outcome> spawn(spawn_request request);

  // Follows a keeper another dispatcher started (adopt_request); its events
  // begin on the reactor thread. A keeper already gone (or a pid that is no
  // longer it) yields the lines left in its spool and its exit at once.
  result<child_id> adopt(adopt_request request);

  // SIGTERM to the child's process group, then SIGKILL after grace_ms (< 0:
  // the default grace). Unknown or finished children whose group is gone
  // are ignored. Also works after the exit event while other members of the
  // group still live. A kept child's keeper gets the SIGTERM (it stops its
  // agent's group and exits); past the grace and a margin the keeper and
  // the agent's group get SIGKILL.
  status terminate(child_id id, int64_t grace_ms = -1);

  // The follower consumed `bytes` of the child's delivered lines (counted
  // as text size plus one per line); with a flow window, reading resumes
  // once less than half the window is unacknowledged. Unknown children
  // are ignored.
  status acknowledge(child_id id, uint64_t bytes);

  // Stops the reactor thread; blocks until it is done unless called from a
  // sink (then it only requests the stop). Idempotent.
  void shutdown(shutdown_mode mode = shutdown_mode::terminate_children);

  exit_watch watch() const noexcept { return watch_; }
  // Children started and not yet reported as exited (approximate, for tests).
  std::size_t running_children() const noexcept { return running_.load(); }

  struct impl;

private:
  process_reactor() = default;
  exit_watch watch_ = exit_watch::pidfd;
  std::atomic<std::size_t> running_{0};
  std::atomic<child_id> next_id_{1};
  std::unique_ptr<impl> impl_;
  std::thread thread_;
  std::mutex shutdown_mutex_;
};

} // namespace ad::runtime

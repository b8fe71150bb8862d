#pragma once
// Turns SIGINT and SIGTERM into a message for `run`. The first signal is
// handed to a callback (watch_shutdown_signals sends messages::
// shutdown_requested to the scheduler, which stops admissions, terminates the
// running agents' process groups, records them cancelled, flushes state and
// exits 130); a second signal ends the process at once with _exit(130) from
// the signal handler itself: acknowledged state is already fsynced, so
// nothing durable is lost.
//
// Mechanism: a self-pipe. The sigaction handler only counts and write(2)s
// the signal number into a pipe (async-signal-safe); one watcher thread reads
// the pipe and runs the callback on that thread, so the callback must be
// thread-safe (an anon_send is). Independent of thread signal masks, so it
// may start after the actor system. At most one watcher lives at a time; the
// destructor stops the thread and restores the previous handlers.
// Error contract: start() returns conflict() when a watcher already lives and
// io_error when the pipe, the thread or sigaction cannot be set up. Never
// throws.

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include <signal.h>

#include "messages/run_events.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"

namespace ad::actors {

inline constexpr int interrupted_exit_code = 130;

class signal_watcher {
public:
  using callback = std::function<void(int signal_number)>;

  static runtime::result<std::unique_ptr<signal_watcher>> start(callback on_first_signal);

  signal_watcher(const signal_watcher&) = delete;
  signal_watcher& operator=(const signal_watcher&) = delete;
  ~signal_watcher();

  // SIGINT/SIGTERM received since start (a second one never returns here).
  int signals_seen() const;

private:
  signal_watcher() = default;
  void loop();

  callback on_first_;
  int read_fd_ = -1;
  int write_fd_ = -1;
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  std::thread thread_;
};

// The common use: the first signal sends shutdown_requested{signal, now} to
// `target` (normally the scheduler's handle, converted to the narrow
// interface).
runtime::result<std::unique_ptr<signal_watcher>> watch_shutdown_signals(
  messages::shutdown_listener target, std::shared_ptr<const runtime::clock> clock);

} // namespace ad::actors

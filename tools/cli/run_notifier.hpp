#pragma once
// `run`'s notifications (docs/notify.md): the policy's notify rules carried
// out. The output actor hands every run event to observe(), which asks the
// one decision (runtime/notify/notify_decision.hpp) what to send and puts
// it on a bounded queue without waiting; a full queue drops the
// notification with a warning. One worker thread sends them in order: a
// command runs as a child in its own process group with the event JSON on
// stdin and is killed with its group after the timeout; a URL gets the
// JSON by HTTP POST, each phase of the request bounded by the timeout. A
// failed try is retried with backoff up to the policy's count; every
// failure is an spdlog warning naming the rule and the error, never fatal.
// At the run's end finish() gives what is still queued the policy's grace,
// the run's end first (one in flight that is not the run's end is stopped
// for it), then stops whatever is in flight; the
// destructor does the same without the grace. A worker that does not end
// within a second of being stopped (a connect that cannot be interrupted)
// is left behind with what it shares, so the run still exits. No actor
// ever waits on it.

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "runtime/notify/notify_decision.hpp"

namespace ad::cli {

class run_notifier {
public:
  // `workspace` names the run in every notification and is the commands'
  // working folder.
  run_notifier(runtime::policy_notify notify, std::string workspace);
  ~run_notifier();
  run_notifier(const run_notifier&) = delete;
  run_notifier& operator=(const run_notifier&) = delete;

  // Thread-safe; never waits for a delivery.
  void observe(const runtime::run_event& event);
  // Waits at most the grace for the queue to empty, then stops the worker;
  // returns how many notifications were left unsent (each named in a warning).
  int64_t finish();

  struct core;  // what the worker shares; it outlives a worker left behind

private:
  void stop();

  std::shared_ptr<core> core_;
  std::thread worker_;
};

} // namespace ad::cli

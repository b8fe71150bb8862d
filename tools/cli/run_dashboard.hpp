#pragma once
// `run --web ADDR`: the run's dashboard (docs/dashboard.md). The output
// actor hands every run event to observe(), which folds it into the
// dashboard's view (runtime::dashboard_model, under a mutex held only for
// the fold) and publishes it to the event streams, whose publishers never
// wait for a client; the HTTP server (dashboard_server) reads the view on
// its own threads; a task's intervention context comes from the durable
// state (runtime::task_intervention_reader), as `serve` shows it.
// Stopping (the destructor) closes the streams and joins the server.

#include <memory>
#include <mutex>
#include <optional>

#include "runtime/core/clock.hpp"
#include "runtime/observe/task_intervention.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/report/dashboard.hpp"
#include "runtime/report/event_fanout.hpp"
#include "runtime/report/output_tail.hpp"
#include "tools/cli/dashboard_server.hpp"

namespace ad::cli {

class run_dashboard {
public:
  static runtime::result<std::unique_ptr<run_dashboard>> start(
    const dashboard_settings& settings, runtime::dashboard_options options,
    std::shared_ptr<const runtime::clock> clock, const std::string& runs_dir,
    const std::string& workspace);

  // Thread-safe; never waits for a client.
  void observe(const runtime::run_event& event);
  // The supervisor's quota cool-downs after a change (its thread); the
  // targets view shows them. Thread-safe; never waits for a client.
  void observe_cooldowns(const runtime::target_cooldowns& cooldowns);
  // The task view's intervention context from then on: read from the
  // durable state on each task request (its own mutex, never the view's).
  void read_interventions(runtime::task_intervention_reader reader);
  const dashboard_server& server() const { return *server_; }

private:
  run_dashboard() = default;
  struct shared {
    std::mutex mutex;
    runtime::dashboard_model model;
    std::shared_ptr<const runtime::clock> clock;
    std::unique_ptr<runtime::attempt_output_reader> output;  // used under the mutex
  };
  struct interventions {
    std::mutex mutex;
    std::optional<runtime::task_intervention_reader> reader;
  };
  std::shared_ptr<shared> view_;
  std::shared_ptr<interventions> interventions_ = std::make_shared<interventions>();
  std::shared_ptr<runtime::event_fanout> events_;
  std::unique_ptr<dashboard_server> server_;
};

} // namespace ad::cli

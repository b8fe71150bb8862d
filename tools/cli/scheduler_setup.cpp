#include "tools/cli/scheduler_setup.hpp"

#include <chrono>

#include <caf/timespan.hpp>

namespace ad::cli {

void configure_scheduler(caf::actor_system_config& cfg, size_t threads) {
  using namespace std::chrono_literals;
  cfg.set("scheduler.max-threads", threads);
  cfg.set("work-stealing.aggressive-poll-attempts", size_t{20});
  cfg.set("work-stealing.moderate-poll-attempts", size_t{20});
  cfg.set("work-stealing.moderate-sleep-duration", caf::timespan{50us});
  cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{50ms});
}

} // namespace ad::cli

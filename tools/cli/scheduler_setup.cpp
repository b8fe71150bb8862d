#include "tools/cli/scheduler_setup.hpp"

#include <caf/atom.hpp>

namespace ad::cli {

void configure_scheduler(caf::actor_system_config& cfg, size_t threads) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-threads", threads);
}

} // namespace ad::cli

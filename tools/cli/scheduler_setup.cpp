#include "tools/cli/scheduler_setup.hpp"

#include <malloc.h>

#include <caf/atom.hpp>

namespace ad::cli {

void configure_scheduler(caf::actor_system_config& cfg, size_t threads) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("scheduler.max-threads", threads);
  // glibc gives a thread that finds the arenas busy an arena of its own (up
  // to eight per core), each keeping what was freed in it: two are enough
  // for workers that mostly wait on one queue.
  mallopt(M_ARENA_MAX, 2);
}

} // namespace ad::cli

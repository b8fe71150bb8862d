#pragma once
// How `run` and `node` set up CAF's scheduler: `threads` workers (attempt
// and state actors block on fsync, so a run needs more than there are
// cores: docs/bench.md) sharing one queue (CAF's work-sharing policy).
// An idle worker sleeps on the queue's condition variable until a job is
// enqueued, with no timeout: a dispatcher whose agents are all silent wakes
// only for its own timers (bench/run/idle_bench.sh). A worker blocked in an
// fsync holds no queue of its own, so nothing waits behind it to be stolen.
// CAF's default work-stealing policy polls instead (every idle worker wakes
// every few milliseconds: 0.4 to 2% of a core and 250 to 2,500 context
// switches a second with every agent silent) and leaves the jobs an actor
// enqueues from a worker on that worker's own queue.
// It also caps glibc's malloc arenas at two (mallopt(M_ARENA_MAX)): with an
// arena per busy worker the dispatcher's peak RSS was about 10% higher for
// the same heap (docs/bench.md). Call it before any thread starts.

#include <cstddef>

#include <caf/actor_system_config.hpp>

namespace ad::cli {

void configure_scheduler(caf::actor_system_config& cfg, size_t threads);

} // namespace ad::cli

#pragma once
// How `run` and `node` set up CAF's work-stealing scheduler: `threads`
// workers (attempt and state actors block on fsync, so a run needs more
// than there are cores: docs/bench.md), and worker threads that, once idle,
// sleep on their condition variable instead of polling. CAF's defaults poll
// 100 times back to back, then 500 times with 50 us sleeps (25 ms of
// wake-ups after every message), then wake every 10 ms to steal: eight idle
// workers cost about 2% of a core and 2,500 context switches a second while
// every agent is silent (bench/run/idle_bench.sh). Here an idle worker polls
// 20 times, then 20 times with 50 us sleeps (about 1 ms), then sleeps until
// work is enqueued for it or 50 ms have passed. A job enqueued for a
// sleeping worker wakes it at once; the 50 ms bound how long work queued
// behind a worker that blocks (an fsync) waits to be stolen: 100 ms made
// runs slower, 10 ms cost four times the idle CPU.

#include <cstddef>

#include <caf/actor_system_config.hpp>

namespace ad::cli {

void configure_scheduler(caf::actor_system_config& cfg, size_t threads);

} // namespace ad::cli

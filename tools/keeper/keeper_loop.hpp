#pragma once
// The keeper's one loop: poll() over the signalfd (SIGTERM: stop the
// agent; SIGCHLD: reap it and any orphan of its tree, the keeper being
// their subreaper) and the agent's two pipes (lines into the spool), with
// the timers of keeper_machine (SIGKILL after the grace, the cleanup of
// what the agent left, the drain after the agent's end) and the lease
// check. Returns when the agent was reaped, nothing of the attempt is left
// (attempt_processes) and its output is drained. One thread, no other threads; the
// decisions are keeper_machine's, this file only carries them out. Never
// throws except std::bad_alloc; a spool write error is noted once in
// keeper.log and the loop reads on (the agent must never block on a full
// pipe because the keeper stopped reading).

#include "runtime/keeper/keeper_args.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "runtime/keeper/stream_spool.hpp"
#include "tools/keeper/agent_launch.hpp"
#include "tools/keeper/attempt_processes.hpp"
#include "tools/keeper/keeper_log.hpp"

namespace ad::keeper {

struct loop_result {
  int wait_status = 0;
  runtime::keeper_termination termination;
  bool cleanup_gave_up = false; // some process of the attempt would not die
};

// signal_fd: a signalfd for SIGTERM and SIGCHLD (both blocked). Closes the
// agent's pipes.
loop_result run_keeper_loop(const runtime::keeper_invocation& inv, const launched_agent& agent,
                            int signal_fd, runtime::stream_spool& spool, keeper_log& log,
                            attempt_processes& processes);

} // namespace ad::keeper

#pragma once
// `agent-dispatch replay`: rebuilds the decision side of a recorded run and
// compares its decisions with the trace (runtime/trace/trace_replay.hpp).
// Every edge comes from the trace; the handlers are the dispatcher's own
// code: the scheduler machine (runtime/replay/scheduler_replay.hpp: the
// machine the scheduler actor interprets), every task's task machine
// (runtime/replay/task_replay.hpp: the machine the task actor interprets),
// the supervisor actor on CAF's deterministic scheduler (tools/replay/
// supervisor_replay.hpp), and the decision functions of an attempt's
// reading of its output and its classification (runtime/replay/
// attempt_replay.hpp). Paths
// are expanded to fixed replay roots that are never touched: no process
// starts, nothing is written, time is the recorded clock readings. The
// policy is the trace's unless an override is given (to see how another
// policy would have decided). Errors (a policy that does not parse, an
// unknown time zone) are status values; a divergence is part of the report.

#include <functional>

#include "runtime/policy/policy.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "runtime/trace/trace_replay.hpp"

namespace ad::tools {

// The roots a trace's path tokens expand to during replay.
runtime::trace_paths replay_roots();

// The policy recorded in the trace's header.
runtime::result<runtime::policy> recorded_policy(const runtime::trace_file& trace);

// Replays trace under pol (usually recorded_policy(trace)). customize, when
// given, may replace or wrap handlers before the walk (mutation tests).
runtime::result<runtime::replay_report> replay_recorded_run(
  const runtime::trace_file& trace, const runtime::policy& pol,
  const std::function<void(runtime::replay_handlers&)>& customize = {});

} // namespace ad::tools

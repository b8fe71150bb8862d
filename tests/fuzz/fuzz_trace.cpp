// A message trace, as `replay` reads it: the lines parsed, the recorded
// policy and time zone loaded from its header, and the decisions that live
// in runtime/ replayed and compared. Invariants: a parsed record survives its
// own JSON; the replay reports a result, and a divergence renders.
#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/replay/attempt_replay.hpp"
#include "runtime/replay/pure_replay.hpp"
#include "runtime/replay/task_replay.hpp"
#include "runtime/trace/trace_reader.hpp"
#include "runtime/trace/trace_replay.hpp"
#include "tests/fuzz/fuzz_target.hpp"

AD_FUZZ_TARGET(trace) {
  using namespace ad::runtime;
  auto trace = parse_trace(input, "fuzz.trace");
  if (!trace) {
    ad::fuzz::fuzz_require(trace.error().message().find("fuzz.trace") != std::string::npos,
                           "a trace error does not name the trace: " + trace.error().message());
    ad::fuzz::fuzz_require_plain(trace.error().message(), input);
    return 0;
  }
  for (const auto& r : trace->records) {
    auto again = trace_record_from_json(to_json(r));
    ad::fuzz::fuzz_require(again.is_ok() && to_json(*again) == to_json(r),
                           "a trace record does not survive its own JSON");
  }
  trace_paths roots;
  roots.add_root("/replay/workspace", "workspace");
  roots.add_root("/replay/state", "state");
  roots.add_root("/replay/home", "home");
  auto pol = parse_policy(roots.expand(trace->header.policy), "trace header policy");
  if (!pol) {
    ad::fuzz::fuzz_require_plain(pol.error().message(), input);
    return 0;
  }
  auto zone = trace->header.time_zone_tzif.empty()
                ? result<time_zone>(time_zone())
                : time_zone_from_tzif(pol->timezone, trace->header.time_zone_tzif);
  if (!zone)
    return 0;
  replay_handlers handlers;
  add_pure_replay_handlers(handlers, *pol, *zone);
  add_attempt_replay_handlers(handlers, *pol);
  task_context tasks;
  tasks.workspace = "/replay/workspace";
  tasks.task_root = "/replay/workspace/agent-task";
  tasks.runs_dir = "/replay/state/runs";
  add_task_machine_replay(handlers, *pol, *zone, tasks);
  auto report = replay_trace(*trace, handlers, roots);
  ad::fuzz::fuzz_require(report.compared <= report.decisions && report.edges_fed <= report.edges,
                         "the replay counts more than the trace holds");
  ad::fuzz::fuzz_require(!render_replay_summary(report).empty(), "an empty replay summary");
  if (report.divergence) {
    ad::fuzz::fuzz_require(!render_divergence(*report.divergence).empty(), "an empty divergence");
    if (report.divergence->actual.is_object() && report.divergence->actual.contains("error"))
      ad::fuzz::fuzz_require_plain(report.divergence->actual["error"].dump(), input);
  }
  return 0;
}

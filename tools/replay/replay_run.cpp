#include "tools/replay/replay_run.hpp"

#include <filesystem>

#include <memory>

#include "actors/scheduler/scheduler_actor.hpp"
#include "actors/task/task_actor.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/replay/attempt_replay.hpp"
#include "runtime/replay/pure_replay.hpp"
#include "runtime/replay/scheduler_replay.hpp"
#include "runtime/replay/task_replay.hpp"
#include "tools/replay/supervisor_replay.hpp"

namespace ad::tools {

namespace {

constexpr const char* replay_workspace = "/replay/workspace";
constexpr const char* replay_state = "/replay/state";
constexpr const char* replay_home = "/replay/home";

} // namespace

runtime::trace_paths replay_roots() {
  runtime::trace_paths roots;
  roots.add_root(replay_workspace, "workspace");
  roots.add_root(replay_state, "state");
  roots.add_root(replay_home, "home");
  return roots;
}

runtime::result<runtime::policy> recorded_policy(const runtime::trace_file& trace) {
  return runtime::parse_policy(replay_roots().expand(trace.header.policy), "trace header policy");
}

runtime::result<runtime::replay_report> replay_recorded_run(
  const runtime::trace_file& trace, const runtime::policy& pol,
  const std::function<void(runtime::replay_handlers&)>& customize) {
  // The zone recorded with the trace when the policy names it; another
  // policy's zone comes from this machine's tz database.
  bool recorded = pol.timezone == trace.header.time_zone && !trace.header.time_zone_tzif.empty();
  auto zone = recorded ? runtime::time_zone_from_tzif(pol.timezone, trace.header.time_zone_tzif)
                       : runtime::load_time_zone(pol.timezone);
  if (!zone.is_ok())
    return zone.error().with_context(
      recorded ? "header field \"time_zone_tzif\" (the zone " + pol.timezone + " recorded with the trace)"
               : "policy field \"timezone\" (" + pol.timezone + ", read from this machine's zone files)");
  actors::run_context ctx;
  ctx.workspace = replay_workspace;
  ctx.task_root = (std::filesystem::path(replay_workspace) / "agent-task").string();
  ctx.runs_dir = (std::filesystem::path(replay_state) / "runs").string();
  const auto& options = trace.header.options;
  if (options.contains("task_group") && options["task_group"].is_string())
    ctx.task_group = options["task_group"].get<std::string>();
  if (options.contains("max_parallel") && options["max_parallel"].is_number_integer())
    ctx.max_parallel = options["max_parallel"].get<int>();
  if (options.contains("retry_blocked") && options["retry_blocked"].is_boolean())
    ctx.retry_blocked = options["retry_blocked"].get<bool>();
  // Recorded with nodes: every attempt was placed before it started.
  if (options.contains("nodes") && options["nodes"].is_array())
    ctx.place_on_nodes = !options["nodes"].empty();
  if (options.contains("workspace_id") && options["workspace_id"].is_string())
    ctx.workspace_id = options["workspace_id"].get<std::string>();
  if (options.contains("cli_caps") && options["cli_caps"].is_object())
    for (const auto& [adapter, c] : options["cli_caps"].items())
      if (c.is_object())
        ctx.cli_caps[adapter] = {c.value("detected", false), c.value("version", std::string()),
                                 c.value("pi_approve", false), c.value("pi_session_id", false)};
  ctx.timing = runtime::attempt_timing_of(pol);
  ctx.pol = pol;
  ctx.zone = *zone;
  ctx.clk = std::make_shared<runtime::manual_clock>(0);
  runtime::replay_handlers handlers;
  runtime::add_pure_replay_handlers(handlers, pol, *zone);
  add_supervisor_actor_replay(handlers, pol, *zone);
  runtime::add_attempt_replay_handlers(handlers, pol);
  runtime::add_task_machine_replay(handlers, pol, *zone, actors::task_context_of(ctx));
  runtime::add_scheduler_machine_replay(handlers, pol, *zone, actors::scheduler_context_of(ctx));
  auto roots = replay_roots();
  if (customize)
    customize(handlers);
  return runtime::replay_trace(trace, handlers, roots);
}

} // namespace ad::tools

#include "tools/cli/trace_setup.hpp"

#include "runtime/policy/time_zone.hpp"

namespace ad::cli {

runtime::result<std::shared_ptr<runtime::trace_writer>> open_run_trace(
  const run_trace_setup& setup, const runtime::policy& pol) {
  runtime::trace_header header;
  header.binary_version = AD_VERSION;
  header.policy = runtime::policy_to_json(pol);
  header.policy_sha256 = runtime::trace_policy_hash(header.policy);
  header.time_zone = pol.timezone;
  // The zone's data travels with the trace, so replay on another machine
  // decides on the same zone (docs/traces.md).
  auto tzif = runtime::read_time_zone_file(pol.timezone);
  if (!tzif)
    return tzif.error().with_context("trace: policy time zone");
  header.time_zone_tzif = std::move(*tzif);
  runtime::json caps = runtime::json::object();
  for (const auto& [adapter, c] : setup.cli_caps)
    caps[adapter] = runtime::json{{"detected", c.detected}, {"version", c.version},
                                  {"pi_approve", c.pi_approve}, {"pi_session_id", c.pi_session_id}};
  header.options = runtime::json{{"task_group", setup.task_group},
                                 {"max_parallel", setup.max_parallel},
                                 {"retry_blocked", setup.retry_blocked},
                                 {"nodes", setup.nodes},
                                 {"workspace_id", setup.workspace_id},
                                 {"cli_caps", std::move(caps)}};
  runtime::trace_paths paths;
  paths.add_root(setup.workspace, "workspace");
  paths.add_root(setup.state_root.string(), "state");
  paths.add_root(setup.home, "home");
  return runtime::trace_writer::open(setup.file, header, std::move(paths));
}

} // namespace ad::cli

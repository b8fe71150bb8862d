#include "tools/cli/trace_setup.hpp"

namespace ad::cli {

runtime::result<std::shared_ptr<runtime::trace_writer>> open_run_trace(
  const run_trace_setup& setup, const runtime::policy& pol) {
  runtime::trace_header header;
  header.binary_version = AD_VERSION;
  header.policy = runtime::policy_to_json(pol);
  header.policy_sha256 = runtime::trace_policy_hash(header.policy);
  header.time_zone = pol.timezone;
  header.options = runtime::json{{"task_group", setup.task_group},
                                 {"max_parallel", setup.max_parallel},
                                 {"retry_blocked", setup.retry_blocked}};
  runtime::trace_paths paths;
  paths.add_root(setup.workspace, "workspace");
  paths.add_root(setup.state_root.string(), "state");
  paths.add_root(setup.home, "home");
  return runtime::trace_writer::open(setup.file, header, std::move(paths));
}

} // namespace ad::cli

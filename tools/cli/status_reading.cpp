#include "tools/cli/status_reading.hpp"

#include <filesystem>
#include <optional>

#include "runtime/observe/state_reader.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/state/root.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

runtime::result<status_reading> read_status(const status_request& request,
                                            const runtime::clock& clk) {
  std::error_code ec;
  fs::path workspace = runtime::chosen_workspace(request.workspace, fs::current_path(ec));
  std::optional<std::string> group;
  if (!request.task_group.empty())
    group = request.task_group;
  auto scan = runtime::scan_workspace(workspace, group);
  if (!scan)
    return scan.error();
  auto identity = runtime::identify_workspace(scan->workspace);
  if (!identity)
    return identity.error();
  auto root = runtime::resolve_state_root(*identity, runtime::state_env::from_process());
  if (!root)
    return root.error();
  std::optional<fs::path> policy_file;
  if (!request.policy.empty())
    policy_file = request.policy;
  auto pol = runtime::load_policy(policy_file, scan->workspace);
  if (!pol)
    return pol.error();
  auto state = runtime::read_state_unlocked(*root, identity->path, identity->id);
  if (!state)
    return state.error();

  runtime::status_input in;
  in.scan = &*scan;
  in.state = &*state;
  in.pol = &pol->value;
  in.where.workspace = identity->path;
  in.where.workspace_id = identity->id;
  in.where.runs_dir = *root / "runs";
  in.state_root = root->string();
  in.group = group;
  return status_reading{runtime::build_status_report(in, clk), identity->path, root->string()};
}

} // namespace ad::cli

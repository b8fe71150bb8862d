#include "tools/cli/status_reading.hpp"

#include <filesystem>
#include <future>
#include <memory>
#include <optional>

#include "runtime/core/heap_tuning.hpp"
#include "runtime/core/parallel.hpp"
#include "runtime/observe/state_reader.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/root.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

runtime::result<status_reading> read_status(const status_request& request,
                                            const runtime::clock& clk, after_reading sources) {
  std::error_code ec;
  fs::path workspace = runtime::chosen_workspace(request.workspace, fs::current_path(ec));
  std::optional<std::string> group;
  if (!request.task_group.empty())
    group = request.task_group;
  // The workspace is scanned, and the folders the dry run reads beside the
  // scan are read, while the state is read: neither needs the other, and at
  // thousands of tasks each is a good part of the time. The scan's error
  // comes first, as if it had run first.
  struct scanned {
    runtime::workspace_scan scan;
    runtime::dry_run_folders folders;
  };
  auto scanning = runtime::start_beside([&]() -> runtime::result<scanned> {
    auto scan = runtime::scan_workspace(workspace, group);
    if (!scan)
      return scan.error();
    auto folders = runtime::read_dry_run_folders(*scan, group);
    return scanned{std::move(*scan), std::move(folders)};
  });
  auto failed = [&](runtime::status st) -> runtime::status {
    auto scan = scanning.get();
    return scan ? st : scan.error();
  };
  auto identity = runtime::identify_workspace(workspace);
  if (!identity)
    return failed(identity.error());
  // The one check of the state root (runtime/state/root.hpp): a damaged
  // root is an error, never shown as a new workspace's empty state.
  auto opened = runtime::open_state_root(*identity, runtime::state_env::from_process());
  if (!opened)
    return failed(opened.error());
  const fs::path& root = opened->path;
  // runtime/core/heap_tuning.hpp: `status` reads a large state in large heap
  // steps (a reading that is freed again, serve's, keeps glibc's own).
  if (sources == after_reading::keep_until_exit)
    runtime::grow_heap_for_state(runtime::stored_state_bytes(root));
  std::optional<fs::path> policy_file;
  if (!request.policy.empty())
    policy_file = request.policy;
  auto pol = runtime::load_policy(policy_file, identity->path);
  if (!pol)
    return failed(pol.error());
  auto state = runtime::read_state_unlocked(*opened, identity->path, identity->id);
  if (!state)
    return failed(state.error());
  auto scan = scanning.get();
  if (!scan)
    return scan.error();
  struct read {
    runtime::unlocked_state state;
    scanned scan;
  };
  auto from = std::make_shared<read>(read{std::move(*state), std::move(*scan)});
  if (sources == after_reading::keep_until_exit)
    runtime::keep_until_exit(from);

  runtime::status_input in;
  in.scan = &from->scan.scan;
  in.folders = &from->scan.folders;
  in.state = &from->state;
  in.pol = &pol->value;
  in.where.workspace = identity->path;
  in.where.workspace_id = identity->id;
  in.where.runs_dir = root / "runs";
  in.state_root = root.string();
  in.group = group;
  return status_reading{runtime::build_status_report(in, clk), identity->path, root.string()};
}

} // namespace ad::cli

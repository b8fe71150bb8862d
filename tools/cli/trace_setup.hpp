#pragma once
// The CLI side of message traces: the header a `run --trace FILE` writes
// (binary version, the effective policy, its time zone, the run options,
// the workspace id and what each agent CLI was detected to accept)
// and the roots whose paths become tokens (workspace, state root, home), so
// a trace recorded here replays on another machine. Opening a trace is the
// only effect (the file is created); errors come back as status values.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/trace/trace_writer.hpp"

namespace ad::cli {

struct run_trace_setup {
  std::string file;
  std::string workspace;
  std::string workspace_id;
  std::filesystem::path state_root;
  std::string home; // "" when unknown
  std::string task_group;
  int max_parallel = 0;
  bool retry_blocked = false;
  // Distributed mode: the nodes given (replay needs none of them; it only
  // knows that each attempt was placed before it started).
  std::vector<std::string> nodes;
  // What each adapter's installed CLI accepts, as detected for this run.
  std::map<std::string, runtime::cli_capabilities> cli_caps;
};

runtime::result<std::shared_ptr<runtime::trace_writer>> open_run_trace(
  const run_trace_setup& setup, const runtime::policy& pol);

} // namespace ad::cli

#pragma once
// What `status` and `serve` read: the workspace scan, the workspace's
// identity and state root (through the same check: the state must belong
// to this workspace), the policy and the durable state read without the
// lock, built into a status_report. Reads only, writes nothing. Errors are
// the failing step's message (a missing workspace, a state root of another
// workspace, a broken policy, unreadable state).

#include <string>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"
#include "runtime/observe/status_view.hpp"

namespace ad::cli {

struct status_request {
  std::string workspace;   // "" : the nearest ancestor of the current folder holding agent-task/
  std::string policy;      // "" : the workspace's, else the embedded one
  std::string task_group;  // "" : all
};

struct status_reading {
  runtime::status_report report;
  std::string workspace;   // canonical
  std::string state_root;
};

// What becomes of the state and the scan the report was built from: freed
// before read_status returns (serve, which reads again and again), or left
// to the process's end (status, which exits right after printing; freeing
// a 10,000-task state piece by piece takes longer than printing it).
enum class after_reading { free, keep_until_exit };

runtime::result<status_reading> read_status(const status_request& request,
                                            const runtime::clock& clk,
                                            after_reading sources = after_reading::free);

} // namespace ad::cli

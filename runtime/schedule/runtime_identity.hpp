#pragma once
// The completing-decision identity check (SPEC section 3): when a worker
// succeeds, the decision that records which target finished the task must be
// a worker decision of the same work unit, and the runtime identity the
// attempt actually ran with (cli, model) must equal that decision's target.
// Any mismatch blocks the task. Pure; never throws. Returns
// invalid_argument with a one-line reason naming expected and actual values.

#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// What the persisted decision says finished the worker stage.
struct completing_target {
  std::string stage;        // must be "worker"
  std::string work_unit_id; // "<task>::plan-<N>::tag-<tag>"
  std::string cli;          // adapter: codex, claude, agy, pi, command...
  std::string model;        // the model as the adapter passes it to the CLI
};

// What the finished attempt ran with (from its locator).
struct attempt_identity {
  std::string cli;
  std::string model;
};

status check_completing_identity(const completing_target& decision,
                                 std::string_view expected_work_unit_id,
                                 const attempt_identity& actual);

} // namespace ad::runtime

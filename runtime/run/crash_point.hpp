#pragma once
// Test-only crash injection for the restart tests (docs/test-hooks.md): when
// the environment variable AD_TEST_CRASH_AT names a crash point, the process
// ends with _exit(crash_point_exit_code) the moment it reaches that point, as
// a crash (SIGKILL, power loss) would: no destructor runs, nothing is
// flushed, children are left alone. Points are named by what is durable when
// they fire:
//   after-handoff  the `--retry-blocked` changes with a retry handoff are
//                  durable; no task has started yet;
//   before-launch  an attempt start (its decision, consumed handoff and
//                  before-snapshot) is durable; the agent is not started yet;
//   after-decision a supervisor step (budget, intervention, decision) is
//                  durable; the next attempt is not started yet.
//   after-attempt-end an attempt ended and its locator holds the final
//                  status; the stage step (worker done, supervisor step)
//                  is not durable yet.
// A point may name a role, "after-attempt-end:review": it fires only at
// that role's attempts. Unset or another value: nothing happens. The
// variable is read once.
// Never throws.

#include <string_view>

namespace ad::runtime {

inline constexpr int crash_point_exit_code = 86;

// Ends the process with _exit(crash_point_exit_code) when AD_TEST_CRASH_AT
// equals name, or name:role.
void crash_point(std::string_view name, std::string_view role = {});

// Whether the crash point `wanted` names the point `name` reached at an
// attempt of `role` (empty: none).
bool crash_point_matches(std::string_view wanted, std::string_view name, std::string_view role);

} // namespace ad::runtime

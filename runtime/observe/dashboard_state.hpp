#pragma once
// The dashboard's views (docs/dashboard.md) for `agent-dispatch serve`,
// built from what `status` reads (status_report: the workspace scan and the
// durable state, read without the lock), in the shape `run --web` serves
// from the run's events: /api/v1/state with "source":"state" and the
// status words of `status` (ready, waiting, blocked, user-review, running,
// complete), and /api/v1/tasks/<name> as the task's `status --json` object.
// What was spent is the state's (status_report::spent). Pure functions over
// the report; the running attempts' last output lines and tokens so far
// come from the function given. Never throws.

#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/observe/status_view.hpp"
#include "runtime/report/dashboard.hpp"

namespace ad::runtime {

// `retry_prefix`: the run command that retries blocked tasks (board.hpp
// retry_command_for), "" to show none.
json dashboard_state_of(const status_report& report, millis now, const std::string& retry_prefix,
                        const output_reader& output = {});

// nullopt for a task the report does not hold. Its live attempts gain their
// last output line and tokens so far (`output`, `usage`, `usage_text`).
std::optional<json> dashboard_task_of(const status_report& report, const std::string& name,
                                      millis now, const std::string& retry_prefix,
                                      const output_reader& output = {});

// /api/v1/targets and /api/v1/nodes from the state: each target the state
// knows (what it spent, the tasks on it) with what was spent on it, its
// live attempts, the latest quota-reset wait or cool-down the state
// records for it and the blocked tasks whose block names it with their
// failure class; each node running a live attempt.
json dashboard_targets_of(const status_report& report, millis now,
                          const output_reader& output = {});
json dashboard_nodes_of(const status_report& report, millis now, const output_reader& output = {});

} // namespace ad::runtime

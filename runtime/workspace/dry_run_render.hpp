#pragma once
// Renders a dry_run_report for people (aligned text, one task per line plus an
// indented reason line, then a summary line) and for programs (JSON Lines: one
// {"event":"task",...} object per task, then one {"event":"summary",...}).
// Pure functions returning strings; the CLI decides where they go. Invalid
// UTF-8 in names or reasons is replaced, never thrown on.

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/workspace/dry_run.hpp"

namespace ad::runtime {

std::string render_dry_run_text(const dry_run_report& report);

json dry_run_task_json(const dry_run_task& task);
json dry_run_summary_json(const dry_run_summary& summary);

// Every line ends with '\n'.
std::string render_dry_run_json_lines(const dry_run_report& report);

} // namespace ad::runtime

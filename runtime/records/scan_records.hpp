#pragma once
// The workspace scan as the message trace carries it (the scheduler's
// scan_read event, docs/traces.md): one scanned task (every field the scan read from its folder:
// active files and their counts, lane, grade, identity header, verdicts,
// plan and review logs, the USER_REVIEW reading, the write set and its
// diagnostics, task errors) as JSON and back, so a replayed scheduler machine
// plans on the tasks the recorded one scanned. Enums are written by their names.
// Pure JSON mapping; never throws (a body that does not decode is an
// invalid_argument naming the member).

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

json scanned_task_to_json(const scanned_task& t);
result<scanned_task> scanned_task_from_json(const json& j);

} // namespace ad::runtime

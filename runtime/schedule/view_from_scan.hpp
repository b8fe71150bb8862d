#pragma once
// Adapter from the workspace scan (runtime/workspace) and the per-task facts
// of durable state (task_progress) to the scheduler's task_view. It derives
// the stage, the one-line block reason, the completed folders matching each
// predecessor (a listing of the group and its archive months) and the write
// set. Which attempts are live, and whether this dispatcher follows them, is
// the caller's knowledge (liveness probes and its own attempts) and comes in
// as `live`. Reads folders only through dependency_candidates(); never writes,
// never throws.

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "runtime/schedule/task_view.hpp"
#include "runtime/workspace/stage.hpp"
#include "runtime/workspace/task_scan.hpp"

namespace ad::runtime {

view_stage to_view_stage(task_stage stage);

// live: here for an attempt this dispatcher follows, elsewhere when
// progress.activity is live but the attempt is not ours, none otherwise.
task_view make_task_view(const scanned_task& task, const task_progress& progress,
                         const std::filesystem::path& task_root, live_where live);

// The same view, with the completed folders of each predecessor answered by
// `completed` (group, predecessor index) -> complete.log paths, e.g. from
// workspace_scanner::completed_folders, instead of listing folders.
using completed_lookup = std::function<std::vector<std::filesystem::path>(
  std::string_view group, std::string_view predecessor)>;
task_view make_task_view(const scanned_task& task, const task_progress& progress,
                         const completed_lookup& completed, live_where live);

} // namespace ad::runtime

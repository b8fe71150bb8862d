#include "runtime/schedule/view_from_scan.hpp"

#include <charconv>

#include "runtime/workspace/dependencies.hpp"

namespace ad::runtime {

view_stage to_view_stage(task_stage stage) {
  switch (stage) {
    case task_stage::blocked: return view_stage::blocked;
    case task_stage::user_review: return view_stage::user_review;
    case task_stage::review: return view_stage::review;
    case task_stage::selfcheck: return view_stage::selfcheck;
    case task_stage::worker: return view_stage::worker;
  }
  return view_stage::blocked;
}

namespace {

std::string block_reason(const scanned_task& task, const task_progress& progress,
                         view_stage stage) {
  if (!task.errors.empty()) {
    std::string out;
    for (const auto& e : task.errors) {
      if (!out.empty())
        out += "; ";
      out += e.message;
    }
    return out;
  }
  if (stage == view_stage::user_review) {
    std::string out = "waiting for a human: USER_REVIEW.md";
    if (task.user_review)
      out += " " + task.user_review->string();
    if (!task.user_review_state.target.empty())
      out += " (" + task.user_review_state.target + ")";
    return out;
  }
  if (!progress.blocked_reason.empty())
    return progress.blocked_reason;
  if (stage != view_stage::blocked)
    return {};
  if (task.user_review) {
    if (task.plan || task.review)
      return "USER_REVIEW.md beside an active PLAN/CODE_REVIEW";
    return "incomplete USER_REVIEW.md: " + task.user_review_state.missing_summary();
  }
  if (progress.worker_done)
    return std::string("worker done without a valid completing decision (") +
           (progress.completing == completing_decision::invalid ? "invalid" : "missing") + ")";
  return "blocked";
}

} // namespace

task_view make_task_view(const scanned_task& task, const task_progress& progress,
                         const std::filesystem::path& task_root, live_where live) {
  return make_task_view(
    task, progress,
    [&](std::string_view group, std::string_view dep) {
      return dependency_candidates(task_root, group, dep);
    },
    live);
}

task_view make_task_view(const scanned_task& task, const task_progress& progress,
                         const completed_lookup& completed, live_where live) {
  task_view v;
  v.name = task.name;
  v.group = task.group;
  v.index = task.index;
  v.stage = to_view_stage(derive_stage(task, progress));
  v.blocked_reason = block_reason(task, progress, v.stage);
  if (task.name.find('/') != std::string::npos) {
    for (const auto& dep : task.deps) {
      predecessor_view p;
      std::from_chars(dep.data(), dep.data() + dep.size(), p.index);
      for (const auto& log : completed(task.group, dep))
        p.complete_matches.push_back(log.parent_path().string());
      v.predecessors.push_back(std::move(p));
    }
  }
  if (task.write_set_known && task.write_set.valid()) {
    v.write_set = write_set_kind::valid;
    v.write_paths = task.write_set.paths;
  } else {
    v.write_set = write_set_kind::unknown;
    for (const auto& d : task.write_set.diagnostics) {
      if (!v.write_set_error.empty())
        v.write_set_error += "; ";
      v.write_set_error += d.message;
    }
    if (v.write_set_error.empty())
      v.write_set_error = "no valid path in the Modified Files Summary";
  }
  v.live = live;
  if (live != live_where::none)
    v.live_detail = progress.active_detail;
  return v;
}

} // namespace ad::runtime

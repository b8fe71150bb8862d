#include "runtime/workspace/stage.hpp"

namespace ad::runtime {

std::string_view to_string(task_stage stage) {
  switch (stage) {
  case task_stage::blocked: return "blocked";
  case task_stage::user_review: return "user-review";
  case task_stage::review: return "review";
  case task_stage::selfcheck: return "selfcheck";
  case task_stage::worker: return "worker";
  }
  return "?";
}

task_stage derive_stage(const scanned_task& task, const task_progress& progress) {
  if (!task.errors.empty())
    return task_stage::blocked;
  if (task.user_review) {
    if (task.plan || task.review)
      return task_stage::blocked;
    return task.user_review_state.is_stop_request() ? task_stage::user_review
                                                    : task_stage::blocked;
  }
  if (task.recovery && (!task.plan || !task.review))
    return task_stage::review;
  if (task.review && task.review_verdict_now)
    return task_stage::review;
  if (progress.worker_done) {
    switch (progress.completing) {
    case completing_decision::missing:
    case completing_decision::invalid: return task_stage::blocked;
    case completing_decision::local_model:
      return progress.selfcheck_done ? task_stage::review : task_stage::selfcheck;
    case completing_decision::cloud_model: return task_stage::review;
    }
  }
  return task_stage::worker;
}

} // namespace ad::runtime

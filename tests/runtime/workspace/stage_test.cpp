#include "runtime/workspace/stage.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

struct stage_row {
  const char* what;
  scanned_task task;
  task_progress progress;
  task_stage expected;
};

scanned_task active_pair() {
  scanned_task t;
  t.name = "g/01_x";
  t.plan = "/w/agent-task/g/01_x/PLAN-local-G05.md";
  t.review = "/w/agent-task/g/01_x/CODE_REVIEW-local-G05.md";
  t.lane = task_lane::local;
  t.grade = 5;
  return t;
}

TEST(stage, derivation_table) {
  std::vector<stage_row> rows;
  auto with_error = active_pair();
  with_error.errors.push_back({task_error_kind::several_plans, "2 PLANs"});
  rows.push_back({"task errors", with_error, {}, task_stage::blocked});

  scanned_task stop;
  stop.user_review = "/w/USER_REVIEW.md";
  stop.user_review_state.type = user_review_type::milestone_lock;
  rows.push_back({"complete USER_REVIEW", stop, {}, task_stage::user_review});

  auto incomplete_stop = stop;
  incomplete_stop.user_review_state.missing.push_back(user_review_part::resume);
  rows.push_back({"incomplete USER_REVIEW", incomplete_stop, {}, task_stage::blocked});

  auto stop_beside = active_pair();
  stop_beside.user_review = "/w/USER_REVIEW.md";
  rows.push_back({"USER_REVIEW beside PLAN", stop_beside, {}, task_stage::blocked});

  scanned_task recovery;
  recovery.recovery = true;
  recovery.has_complete_log = true;
  rows.push_back({"recovery without pair", recovery, {}, task_stage::review});

  auto recovery_with_pair = active_pair();
  recovery_with_pair.recovery = true;
  rows.push_back({"recovery with a full pair: worker", recovery_with_pair, {}, task_stage::worker});

  auto verdict = active_pair();
  verdict.review_verdict_now = review_verdict::fail;
  rows.push_back({"verdict in CODE_REVIEW", verdict, {}, task_stage::review});

  rows.push_back({"fresh", active_pair(), {}, task_stage::worker});

  task_progress local_done;
  local_done.worker_done = true;
  local_done.completing = completing_decision::local_model;
  rows.push_back({"local worker done", active_pair(), local_done, task_stage::selfcheck});

  auto local_checked = local_done;
  local_checked.selfcheck_done = true;
  rows.push_back({"local self-check done", active_pair(), local_checked, task_stage::review});

  task_progress cloud_done;
  cloud_done.worker_done = true;
  cloud_done.completing = completing_decision::cloud_model;
  rows.push_back({"cloud worker done", active_pair(), cloud_done, task_stage::review});

  task_progress no_decision;
  no_decision.worker_done = true;
  rows.push_back({"worker done, no decision", active_pair(), no_decision, task_stage::blocked});

  auto invalid = no_decision;
  invalid.completing = completing_decision::invalid;
  rows.push_back({"worker done, invalid decision", active_pair(), invalid, task_stage::blocked});

  task_progress selfcheck_only;
  selfcheck_only.selfcheck_done = true;
  rows.push_back({"self-check without worker", active_pair(), selfcheck_only, task_stage::worker});

  for (const auto& row : rows)
    EXPECT_EQ(derive_stage(row.task, row.progress), row.expected)
        << row.what << ": got " << to_string(derive_stage(row.task, row.progress));
}

} // namespace
} // namespace ad::runtime

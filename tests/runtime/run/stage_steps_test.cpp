#include "runtime/run/stage_steps.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

template <class T>
int count_of(const std::vector<state_change>& changes) {
  int n = 0;
  for (const auto& c : changes)
    n += std::holds_alternative<T>(c) ? 1 : 0;
  return n;
}

policy test_policy() {
  auto p = parse_policy(default_policy_json(), "default");
  EXPECT_TRUE(p.is_ok());
  return *p;
}

task_state worker_state(const std::string& target) {
  task_state st;
  st.work_unit_id = "g/01_a::plan-1::tag-t";
  route_decision d;
  d.work_unit_id = st.work_unit_id;
  d.stage = "worker";
  d.selected_target = target;
  st.decisions["worker"] = d;
  return st;
}

TEST(stage_steps, worker_success_records_done_and_completing_decision) {
  auto pol = test_policy();
  auto st = worker_state("codex-terra");
  auto step = after_worker_success("g/01_a", st, pol, {"codex", "gpt-5.6-terra"});
  EXPECT_EQ(step.next, stage_next::advance);
  EXPECT_EQ(count_of<set_task_flag>(step.changes), 1);
  EXPECT_EQ(count_of<set_completing_decision>(step.changes), 1);
  EXPECT_EQ(count_of<clear_active_stage>(step.changes), 1);
}

TEST(stage_steps, worker_identity_mismatch_blocks) {
  auto pol = test_policy();
  auto st = worker_state("codex-terra");
  auto step = after_worker_success("g/01_a", st, pol, {"claude", "claude-opus-4-8"});
  EXPECT_EQ(step.next, stage_next::blocked);
  EXPECT_EQ(count_of<set_blocked>(step.changes), 1);
  EXPECT_EQ(count_of<set_completing_decision>(step.changes), 0);
  EXPECT_FALSE(step.reason.empty());
}

TEST(stage_steps, worker_without_decision_blocks) {
  auto pol = test_policy();
  task_state st;
  st.work_unit_id = "x";
  auto step = after_worker_success("g/01_a", st, pol, {"codex", "m"});
  EXPECT_EQ(step.next, stage_next::blocked);
}

TEST(stage_steps, selfcheck_complete_checklist_marks_done) {
  auto pol = test_policy();
  task_state st;
  auto step = after_selfcheck_success("t", st, pol, {checklist_state::complete, 2, 0});
  EXPECT_EQ(step.next, stage_next::advance);
  ASSERT_EQ(count_of<set_task_flag>(step.changes), 1);
}

TEST(stage_steps, selfcheck_incomplete_counts_rounds_then_blocks) {
  auto pol = test_policy();
  task_state st;
  auto step = after_selfcheck_success("t", st, pol, {checklist_state::incomplete, 2, 1});
  EXPECT_EQ(step.next, stage_next::advance);
  EXPECT_EQ(count_of<set_task_flag>(step.changes), 0);
  st.counters[selfcheck_rounds_counter] = pol.budgets.selfcheck_incomplete - 1;
  auto last = after_selfcheck_success("t", st, pol, {checklist_state::incomplete, 2, 1});
  EXPECT_EQ(last.next, stage_next::blocked);
  EXPECT_NE(last.reason.find("self-check"), std::string::npos);
}

TEST(stage_steps, pass_archived_review_completes) {
  review_outcome o;
  o.kind = review_outcome_kind::archived;
  o.verdict = review_verdict::pass;
  auto step = after_review("t", o, progress_step{progress_action::progressed, 0, 0, ""});
  EXPECT_EQ(step.next, stage_next::complete);
}

TEST(stage_steps, follow_up_review_advances_and_unchanged_review_pauses_then_blocks) {
  review_outcome o;
  o.kind = review_outcome_kind::follow_up;
  o.verdict = review_verdict::fail;
  auto step = after_review("t", o, progress_step{progress_action::progressed, 0, 0, ""});
  EXPECT_EQ(step.next, stage_next::advance);

  review_outcome none; // changed: no verdict
  auto pause = after_review("t", none, progress_step{progress_action::pause, 3, 15000, "same"});
  EXPECT_EQ(pause.next, stage_next::pause);
  EXPECT_EQ(pause.pause, 15000);
  auto block = after_review("t", none, progress_step{progress_action::block, 10, 0, "limit"});
  EXPECT_EQ(block.next, stage_next::blocked);
  auto error = after_review("t", none, progress_step{progress_action::progressed, 0, 0, ""});
  EXPECT_EQ(error.next, stage_next::blocked);
}

TEST(stage_steps, completion_releases_claim_and_completes_orchestration) {
  auto changes = completion_changes("g/01_a", "g", "/ws/agent-task/archive/2026/11/g/01_a");
  EXPECT_EQ(count_of<release_claim>(changes), 1);
  EXPECT_EQ(count_of<complete_orchestration_task>(changes), 1);
  EXPECT_EQ(count_of<clear_active_stage>(changes), 1);
}

} // namespace
} // namespace ad::runtime

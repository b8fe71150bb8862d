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

// --- after_review_reading: real observations built in memory ---

const std::string review_task = "g/01_a";
const std::string review_task_folder = "/ws/agent-task/g/01_a";
const std::string review_archive = "/ws/agent-task/archive/2026/11/g/01_a";

review_source pass_log(const std::string& folder, const std::string& sha) {
  review_source s;
  s.path = folder + "/code_review_a_G1_1.log";
  s.sha256 = sha;
  s.mtime_ns = 1795000000000000000;
  s.kind = review_source_kind::review_log;
  s.verdict = review_verdict::pass;
  return s;
}

// A review that archived the task with complete.log and a PASS log.
review_reading archived_pass_reading() {
  review_reading r;
  r.observed = true;
  review_folder archive;
  archive.path = review_archive;
  archive.place = review_folder_place::archive;
  archive.has_complete_log = true;
  archive.sources = {pass_log(review_archive, std::string(64, 'a'))};
  r.after.folders = {archive};
  r.signature_before = "before";
  r.signature_after = "moved";
  return r;
}

template <class T>
std::vector<T> all_of(const std::vector<state_change>& changes) {
  std::vector<T> out;
  for (const auto& c : changes)
    if (const T* t = std::get_if<T>(&c))
      out.push_back(*t);
  return out;
}

std::optional<int64_t> counter_set(const std::vector<state_change>& changes,
                                   const std::string& task, const std::string& name) {
  std::optional<int64_t> value;
  for (const auto& c : all_of<set_counter>(changes))
    if (c.task == task && c.name == name)
      value = c.value;
  return value;
}

TEST(stage_steps, review_reading_pass_archived_completes_with_completion_changes) {
  auto pol = test_policy();
  task_state st;
  st.counters[review_no_progress_counter] = 4;
  auto step = after_review_reading(review_task, review_task_folder, st, pol,
                                   archived_pass_reading());
  EXPECT_EQ(step.next, stage_next::complete);
  EXPECT_EQ(step.reason, review_archive);
  EXPECT_EQ(step.pause, 0);

  auto cleared = all_of<clear_active_stage>(step.changes);
  ASSERT_FALSE(cleared.empty());
  for (const auto& c : cleared)
    EXPECT_EQ(c.task, review_task);
  auto released = all_of<release_claim>(step.changes);
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].owner, review_task);
  auto completed = all_of<complete_orchestration_task>(step.changes);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].scope, "g");
  EXPECT_EQ(completed[0].task, review_task);
  EXPECT_EQ(completed[0].archive, review_archive);
  EXPECT_EQ(counter_set(step.changes, review_task, review_no_progress_counter), 0);
  EXPECT_EQ(count_of<set_blocked>(step.changes), 0);

  // A task without a group folder part scopes to its own name.
  auto solo = after_review_reading("solo", "/ws/agent-task/solo", st, pol,
                                   archived_pass_reading());
  ASSERT_EQ(solo.next, stage_next::complete);
  auto solo_done = all_of<complete_orchestration_task>(solo.changes);
  ASSERT_EQ(solo_done.size(), 1u);
  EXPECT_EQ(solo_done[0].scope, "solo");
}

TEST(stage_steps, review_reading_non_pass_archive_or_active_folder_does_not_complete) {
  auto pol = test_policy();
  task_state st;
  auto fail = archived_pass_reading();
  fail.after.folders[0].sources[0].verdict = review_verdict::fail;
  auto step = after_review_reading(review_task, review_task_folder, st, pol, fail);
  EXPECT_EQ(step.next, stage_next::blocked);
  EXPECT_EQ(count_of<release_claim>(step.changes), 0);
  EXPECT_EQ(count_of<complete_orchestration_task>(step.changes), 0);
  EXPECT_NE(step.reason.find(review_archive), std::string::npos) << step.reason;

  // PASS in the active folder next to complete.log: finalization, not done.
  auto active = archived_pass_reading();
  active.after.folders[0].path = review_task_folder;
  active.after.folders[0].place = review_folder_place::active;
  active.after.folders[0].sources = {pass_log(review_task_folder, std::string(64, 'a'))};
  step = after_review_reading(review_task, review_task_folder, st, pol, active);
  EXPECT_EQ(step.next, stage_next::advance);
  EXPECT_EQ(step.reason, "complete-finalization");
  EXPECT_EQ(count_of<complete_orchestration_task>(step.changes), 0);
}

TEST(stage_steps, review_reading_unobserved_never_completes_and_counts_no_progress) {
  auto pol = test_policy();
  ASSERT_GT(pol.budgets.review_no_progress, 3);
  auto reading = archived_pass_reading(); // what it would have seen
  reading.observed = false;
  reading.signature_before = "same";
  reading.signature_after = "same";
  task_state st;
  st.counters[review_no_progress_counter] = 2;
  auto step = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_EQ(step.next, stage_next::pause);
  EXPECT_GT(step.pause, 0);
  EXPECT_FALSE(step.reason.empty());
  EXPECT_EQ(counter_set(step.changes, review_task, review_no_progress_counter), 3);
  EXPECT_EQ(count_of<release_claim>(step.changes), 0);
  EXPECT_EQ(count_of<complete_orchestration_task>(step.changes), 0);
  EXPECT_EQ(count_of<set_blocked>(step.changes), 0);

  // No counter yet: the first unchanged review counts 1.
  task_state fresh;
  step = after_review_reading(review_task, review_task_folder, fresh, pol, reading);
  EXPECT_EQ(step.next, stage_next::pause);
  EXPECT_EQ(counter_set(step.changes, review_task, review_no_progress_counter), 1);

  // Unobserved but the signatures moved: no verdict to act on, blocked.
  reading.signature_after = "changed";
  step = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_EQ(step.next, stage_next::blocked);
  EXPECT_EQ(count_of<complete_orchestration_task>(step.changes), 0);
}

TEST(stage_steps, review_reading_blocks_at_the_policy_no_progress_budget) {
  auto pol = test_policy();
  pol.budgets.review_no_progress = 4; // not the default, so the policy's value is used
  auto reading = archived_pass_reading();
  reading.observed = false;
  reading.signature_before = "same";
  reading.signature_after = "same";
  task_state st;
  st.counters[review_no_progress_counter] = 2;
  auto below = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_EQ(below.next, stage_next::pause);
  EXPECT_EQ(counter_set(below.changes, review_task, review_no_progress_counter), 3);

  st.counters[review_no_progress_counter] = 3;
  auto at_budget = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_EQ(at_budget.next, stage_next::blocked);
  auto blocked = all_of<set_blocked>(at_budget.changes);
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_EQ(blocked[0].task, review_task);
  EXPECT_EQ(blocked[0].info.reason, at_budget.reason);
  EXPECT_NE(at_budget.reason.find("4/4"), std::string::npos) << at_budget.reason;
  EXPECT_EQ(count_of<complete_orchestration_task>(at_budget.changes), 0);
}

TEST(stage_steps, review_reading_source_seen_before_is_not_new) {
  auto pol = test_policy();
  task_state st;
  auto reading = archived_pass_reading();
  const auto& log = reading.after.folders[0].sources[0];
  reading.before = {{log.path, log.sha256}};
  auto step = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_NE(step.next, stage_next::complete);
  EXPECT_EQ(step.next, stage_next::blocked); // signatures moved, but no new verdict
  EXPECT_EQ(count_of<complete_orchestration_task>(step.changes), 0);
  EXPECT_EQ(count_of<release_claim>(step.changes), 0);

  // Same path, other content: a new verdict, so the task completes.
  reading.before = {{log.path, std::string(64, 'f')}};
  step = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_EQ(step.next, stage_next::complete);
  // Same content at another path: also new.
  reading.before = {{review_task_folder + "/code_review_a_G1_1.log", log.sha256}};
  step = after_review_reading(review_task, review_task_folder, st, pol, reading);
  EXPECT_EQ(step.next, stage_next::complete);
}

} // namespace
} // namespace ad::runtime

#include "runtime/schedule/reason_tracker.hpp"

#include <gtest/gtest.h>

#include "runtime/schedule/task_view.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {
namespace {

TEST(task_names, subtask_index_and_group_are_read_from_the_name) {
  EXPECT_EQ(subtask_index_of("g/03+01,02_c"), 3);
  EXPECT_EQ(subtask_index_of("g/10_x"), 10);
  EXPECT_EQ(subtask_index_of("g"), std::nullopt);
  EXPECT_EQ(subtask_index_of("g/1_x"), std::nullopt);
  EXPECT_EQ(subtask_index_of("g/01x"), std::nullopt);
  EXPECT_EQ(task_group("g/01_a"), "g");
  EXPECT_EQ(task_group("solo"), "solo");
  EXPECT_EQ(two_digit(3), "03");
  EXPECT_EQ(two_digit(12), "12");
}

TEST(reason_tracker, reports_once_per_change) {
  reason_tracker tracker;
  EXPECT_TRUE(tracker.report("t", admission_kind::wait, view_stage::worker, "capacity: 2 of 2 running"));
  EXPECT_FALSE(tracker.report("t", admission_kind::wait, view_stage::worker, "capacity: 2 of 2 running"));
  EXPECT_TRUE(tracker.report("t", admission_kind::wait, view_stage::worker, "claim conflict with a on /p"));
  EXPECT_TRUE(tracker.report("t", admission_kind::wait, view_stage::review, "claim conflict with a on /p"));
  EXPECT_TRUE(tracker.report("t", admission_kind::blocked, view_stage::review, "claim conflict with a on /p"));
  EXPECT_TRUE(tracker.report("u", admission_kind::blocked, view_stage::review, "claim conflict with a on /p"));
  tracker.forget("u");
  EXPECT_TRUE(tracker.report("u", admission_kind::blocked, view_stage::review, "claim conflict with a on /p"));
}

TEST(reason_tracker, changes_filters_a_pass_and_forgets_admitted_tasks) {
  reason_tracker tracker;
  admission_plan plan;
  plan.entries = {{"a", view_stage::worker, admission_kind::wait, wait_cause::capacity, "capacity: 1 of 1 running", {}},
                  {"b", view_stage::worker, admission_kind::admit, wait_cause::none, "", {}},
                  {"c", view_stage::worker, admission_kind::blocked, wait_cause::task_blocked, "x", {}}};
  auto first = tracker.changes(plan.entries);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0]->task, "a");
  EXPECT_EQ(first[1]->task, "c");
  EXPECT_TRUE(tracker.changes(plan.entries).empty());
  // a is admitted next pass, then waits again with the same reason: printed again.
  plan.entries[0].kind = admission_kind::admit;
  EXPECT_TRUE(tracker.changes(plan.entries).empty());
  plan.entries[0].kind = admission_kind::wait;
  auto again = tracker.changes(plan.entries);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0]->task, "a");
}

} // namespace
} // namespace ad::runtime

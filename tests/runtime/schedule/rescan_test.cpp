#include "runtime/schedule/rescan.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

task_view view(std::string name, std::vector<int> preds) {
  task_view t;
  t.name = std::move(name);
  t.group = std::string(group_of(t.name));
  t.index = subtask_index_of(t.name).value_or(0);
  for (int p : preds)
    t.predecessors.push_back({p, {}});
  return t;
}

dependents_index sample_index() {
  return dependents_index({view("g/01_a", {}), view("g/02+01_b", {1}), view("g/03+01,02_c", {1, 2}),
                           view("h/02+01_x", {1}), view("h/01_y", {})});
}

TEST(task_names, subtask_index_and_group_are_read_from_the_name) {
  EXPECT_EQ(subtask_index_of("g/03+01,02_c"), 3);
  EXPECT_EQ(subtask_index_of("g/10_x"), 10);
  EXPECT_EQ(subtask_index_of("g"), std::nullopt);
  EXPECT_EQ(subtask_index_of("g/1_x"), std::nullopt);
  EXPECT_EQ(subtask_index_of("g/01x"), std::nullopt);
  EXPECT_EQ(group_of("g/01_a"), "g");
  EXPECT_EQ(group_of("solo"), "solo");
  EXPECT_EQ(two_digit(3), "03");
  EXPECT_EQ(two_digit(12), "12");
}

TEST(rescan, dependents_are_found_within_the_group_only) {
  auto idx = sample_index();
  EXPECT_EQ(idx.dependents_of("g/01_a"), (std::vector<std::string>{"g/02+01_b", "g/03+01,02_c"}));
  EXPECT_EQ(idx.dependents_of("g/02+01_b"), (std::vector<std::string>{"g/03+01,02_c"}));
  EXPECT_EQ(idx.dependents_of("h/01_y"), (std::vector<std::string>{"h/02+01_x"}));
  EXPECT_TRUE(idx.dependents_of("g/03+01,02_c").empty());
  EXPECT_TRUE(idx.dependents_of("g").empty());
}

struct rescan_case {
  std::string label;
  std::vector<finished_task> finished;
  std::vector<std::string> capacity_waiters;
  rescan_kind kind;
  std::vector<std::string> tasks;
};

TEST(rescan, plans_partial_or_full_rescans) {
  auto idx = sample_index();
  std::vector<rescan_case> table = {
      {"a completion rescans everything",
       {{"h/01_y", finish_kind::not_completed}, {"g/01_a", finish_kind::completed}},
       {"x/01_q"},
       rescan_kind::full,
       {}},
      {"a finish re-examines the task, its dependents and capacity waiters",
       {{"g/01_a", finish_kind::not_completed}},
       {"x/01_q", "g/02+01_b"},
       rescan_kind::partial,
       {"g/01_a", "g/02+01_b", "g/03+01,02_c", "x/01_q"}},
      {"several finishes merge without duplicates",
       {{"g/02+01_b", finish_kind::not_completed}, {"h/01_y", finish_kind::not_completed}},
       {},
       rescan_kind::partial,
       {"g/02+01_b", "g/03+01,02_c", "h/01_y", "h/02+01_x"}},
      {"nothing finished: only capacity waiters", {}, {"b", "a"}, rescan_kind::partial, {"a", "b"}},
  };
  for (const auto& c : table) {
    auto plan = plan_rescan(c.finished, idx, c.capacity_waiters);
    EXPECT_EQ(plan.kind, c.kind) << c.label;
    EXPECT_EQ(plan.tasks, c.tasks) << c.label;
  }
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
  auto first = tracker.changes(plan);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].task, "a");
  EXPECT_EQ(first[1].task, "c");
  EXPECT_TRUE(tracker.changes(plan).empty());
  // a is admitted next pass, then waits again with the same reason: printed again.
  plan.entries[0].kind = admission_kind::admit;
  EXPECT_TRUE(tracker.changes(plan).empty());
  plan.entries[0].kind = admission_kind::wait;
  auto again = tracker.changes(plan);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].task, "a");
}

} // namespace
} // namespace ad::runtime

namespace ad::runtime {
namespace {

admission_entry entry(std::string task, admission_kind kind, wait_cause cause) {
  admission_entry e;
  e.task = std::move(task);
  e.kind = kind;
  e.cause = cause;
  return e;
}

TEST(waiter_book, keeps_the_latest_cause_per_task) {
  waiter_book book;
  admission_plan first;
  first.entries = {entry("a", admission_kind::wait, wait_cause::claim_conflict),
                   entry("b", admission_kind::wait, wait_cause::exclusive_claim),
                   entry("c", admission_kind::wait, wait_cause::capacity),
                   entry("d", admission_kind::wait, wait_cause::predecessor_missing),
                   entry("e", admission_kind::blocked, wait_cause::no_write_set)};
  book.record(first);
  EXPECT_EQ(book.claim_waiters(), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(book.capacity_waiters(), (std::set<std::string>{"c"}));
  // A partial pass only touches the tasks it examined.
  admission_plan second;
  second.entries = {entry("a", admission_kind::admit, wait_cause::none),
                    entry("c", admission_kind::wait, wait_cause::claim_conflict)};
  book.record(second);
  EXPECT_EQ(book.claim_waiters(), (std::set<std::string>{"b", "c"}));
  EXPECT_TRUE(book.capacity_waiters().empty());
  book.forget("b");
  EXPECT_EQ(book.claim_waiters(), (std::set<std::string>{"c"}));
}

TEST(scope_after_rescan, only_changed_new_and_affected_tasks_are_examined) {
  auto a = view("g/01_a", {});
  auto b = view("g/02+01_b", {1});
  auto c = view("g/03_c", {});
  auto d = view("h/01_d", {});
  auto e = view("h/02_e", {});
  std::map<std::string, task_view> previous{{a.name, a}, {b.name, b}, {c.name, c}, {d.name, d}, {e.name, e}};
  auto c_changed = c;
  c_changed.stage = view_stage::review;
  auto fresh = view("k/01_new", {});
  // a completed and left the folder tree; e still waits on a claim.
  std::vector<task_view> current{b, c_changed, d, e, fresh};
  waiter_book waiters;
  admission_plan last;
  last.entries = {entry("h/02_e", admission_kind::wait, wait_cause::claim_conflict)};
  waiters.record(last);
  auto scope = scope_after_rescan(previous, current, {{"g/01_a", finish_kind::completed}},
                                  dependents_index(current), waiters);
  EXPECT_EQ(scope, (std::vector<std::string>{"g/02+01_b", "g/03_c", "h/02_e", "k/01_new"}));
}

} // namespace
} // namespace ad::runtime

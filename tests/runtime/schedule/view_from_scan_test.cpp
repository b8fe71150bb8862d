#include "runtime/schedule/view_from_scan.hpp"

#include <gtest/gtest.h>

#include "runtime/schedule/admission.hpp"
#include "runtime/workspace/task_name.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

scanned_task scanned(std::string name, int index, std::vector<std::string> deps) {
  scanned_task t;
  t.name = std::move(name);
  t.group = task_group(t.name);
  t.index = index;
  t.deps = std::move(deps);
  t.plan = "/ws/agent-task/" + t.name + "/PLAN-cloud-G05.md";
  t.review = "/ws/agent-task/" + t.name + "/CODE_REVIEW-cloud-G05.md";
  t.write_set.paths = {"/ws/src/a.cpp", "/ws/src/b.cpp"};
  t.write_set_known = true;
  return t;
}

TEST(view_from_scan, a_fresh_task_is_a_worker_with_its_write_set) {
  auto v = make_task_view(scanned("g/01_a", 1, {}), {}, "/nowhere", live_where::none);
  EXPECT_EQ(v.name, "g/01_a");
  EXPECT_EQ(v.group, "g");
  EXPECT_EQ(v.index, 1);
  EXPECT_EQ(v.stage, view_stage::worker);
  EXPECT_TRUE(v.blocked_reason.empty());
  EXPECT_EQ(v.write_set, write_set_kind::valid);
  EXPECT_EQ(v.write_paths, (std::vector<std::string>{"/ws/src/a.cpp", "/ws/src/b.cpp"}));
}

TEST(view_from_scan, predecessors_list_completed_folders_in_group_and_archive) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  ws.write("agent-task/g/01_a/complete.log", "done");
  ws.write("agent-task/archive/2026/11/g/02_b/complete.log", "done");
  ws.write("agent-task/archive/2026/10/g/02_b/complete.log", "done");
  auto v = make_task_view(scanned("g/03+01,02_c", 3, {"01", "02"}), {}, root, live_where::none);
  ASSERT_EQ(v.predecessors.size(), 2u);
  EXPECT_EQ(v.predecessors[0].index, 1);
  ASSERT_EQ(v.predecessors[0].complete_matches.size(), 1u);
  EXPECT_EQ(v.predecessors[0].complete_matches[0], (root / "g/01_a").string());
  EXPECT_EQ(v.predecessors[1].index, 2);
  EXPECT_EQ(v.predecessors[1].complete_matches.size(), 2u);

  admission_input in;
  in.tasks = {v};
  auto plan = plan_admission(in);
  EXPECT_EQ(plan.entries[0].cause, wait_cause::dependency_ambiguity);
  EXPECT_EQ(plan.entries[0].reason.rfind("dependency ambiguity: 02_* matches 2 completed folders", 0), 0u)
      << plan.entries[0].reason;
}

TEST(view_from_scan, block_reasons_come_from_errors_state_and_stage) {
  auto errs = scanned("g/01_a", 1, {});
  errs.errors.push_back({task_error_kind::several_plans, "two PLAN files"});
  errs.errors.push_back({task_error_kind::bad_subtask_name, "bad name"});
  auto v = make_task_view(errs, {}, "/nowhere", live_where::none);
  EXPECT_EQ(v.stage, view_stage::blocked);
  EXPECT_EQ(v.blocked_reason, "two PLAN files; bad name");

  task_progress failed;
  failed.blocked_reason = "failure budget exhausted (10/10)";
  EXPECT_EQ(make_task_view(scanned("g/01_a", 1, {}), failed, "/nowhere", live_where::none).blocked_reason,
            "failure budget exhausted (10/10)");

  task_progress done_without_decision;
  done_without_decision.worker_done = true;
  auto b = make_task_view(scanned("g/01_a", 1, {}), done_without_decision, "/nowhere", live_where::none);
  EXPECT_EQ(b.stage, view_stage::blocked);
  EXPECT_EQ(b.blocked_reason, "worker done without a valid completing decision (missing)");

  task_progress cloud_done;
  cloud_done.worker_done = true;
  cloud_done.completing = completing_decision::cloud_model;
  auto r = make_task_view(scanned("g/01_a", 1, {}), cloud_done, "/nowhere", live_where::none);
  EXPECT_EQ(r.stage, view_stage::review);
  EXPECT_TRUE(r.blocked_reason.empty());
}

TEST(view_from_scan, an_invalid_write_set_carries_its_diagnostics) {
  auto t = scanned("g/01_a", 1, {});
  t.write_set_known = false;
  t.write_set.paths.clear();
  t.write_set.diagnostics.push_back({write_set_problem::placeholder, 12, "<x>", "row 12: placeholder `<x>`"});
  auto v = make_task_view(t, {}, "/nowhere", live_where::none);
  EXPECT_EQ(v.write_set, write_set_kind::unknown);
  EXPECT_EQ(v.write_set_error, "row 12: placeholder `<x>`");
}

TEST(view_from_scan, live_detail_comes_from_progress_when_live) {
  task_progress p;
  p.active_stage = "worker";
  p.activity = task_activity::live;
  p.active_detail = "pid 4242 alive; idle 12 s";
  auto v = make_task_view(scanned("g/01_a", 1, {}), p, "/nowhere", live_where::elsewhere);
  EXPECT_EQ(v.live, live_where::elsewhere);
  EXPECT_EQ(v.live_detail, "pid 4242 alive; idle 12 s");
}

} // namespace
} // namespace ad::runtime

#include "runtime/workspace/dry_run.hpp"

#include <gtest/gtest.h>

#include "runtime/workspace/dry_run_render.hpp"
#include "tests/runtime/workspace/fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

const dry_run_task& find(const dry_run_report& r, const std::string& name) {
  for (const auto& t : r.tasks)
    if (t.name == name)
      return t;
  ADD_FAILURE() << "no task " << name;
  static dry_run_task none;
  return none;
}

class fixture_dry_run : public ::testing::Test {
protected:
  fixture_dry_run() {
    auto scanned = scan_workspace(fixture("basic"));
    EXPECT_TRUE(scanned.is_ok());
    scan_ = std::move(*scanned);
    input_.scan = &scan_;
  }
  workspace_scan scan_;
  dry_run_input input_;
};

TEST_F(fixture_dry_run, classifies_every_task) {
  auto r = plan_dry_run(input_);
  struct expect {
    const char* name;
    dispatch_status status;
    const char* stage;
    const char* route;
    const char* reason_part;
  };
  const expect rows[] = {
      {"alpha/02+01_ready", dispatch_status::ready, "worker", "local-G05", "would start the worker"},
      {"alpha/06+01_conflict", dispatch_status::waiting, "worker", "local-G05",
       "claim conflict with alpha/02+01_ready on"},
      {"alpha/03+02_waits", dispatch_status::waiting, "worker", "local-G05",
       "predecessor complete.log: 02"},
      {"alpha/04_dup_a", dispatch_status::blocked, "review", "recovery",
       "no valid non-empty Modified Files Summary"},
      {"alpha/05+04_ambiguous", dispatch_status::blocked, "worker", "local-G05", "ambiguous"},
      {"errors/01_two_plans", dispatch_status::blocked, "blocked", "recovery", "2 active PLAN"},
      {"errors/10_incomplete_user_review", dispatch_status::blocked, "blocked", "recovery",
       "USER_REVIEW.md is not a complete stop request"},
      {"solo", dispatch_status::ready, "worker", "cloud-G10", "cloud-G10"},
      {"stages/01_worker", dispatch_status::ready, "worker", "local-G03", "worker"},
      {"stages/02_review_verdict", dispatch_status::ready, "review", "cloud-G04", "official review"},
      {"stages/03_recovery_complete", dispatch_status::blocked, "review", "recovery",
       "write set"},
      {"stages/04_recovery_log", dispatch_status::ready, "review", "recovery", "official review"},
      {"stages/05_user_review", dispatch_status::user_review, "user-review", "recovery",
       "waiting for a human"},
      {"alpha/01_base", dispatch_status::complete, "complete", "archive", "archived in"},
      {"alpha/04_dup_old", dispatch_status::complete, "complete", "archive", "archive/2026/09"},
  };
  for (const auto& e : rows) {
    const auto& t = find(r, e.name);
    EXPECT_EQ(t.status, e.status) << e.name << ": " << t.reason;
    EXPECT_EQ(t.stage, e.stage) << e.name;
    EXPECT_EQ(t.route, e.route) << e.name;
    EXPECT_NE(t.reason.find(e.reason_part), std::string::npos) << e.name << ": " << t.reason;
    EXPECT_EQ(t.reason.find('\n'), std::string::npos) << "one line: " << e.name;
  }
  EXPECT_EQ(r.summary.tasks, 25u);
  EXPECT_EQ(r.summary.ready, 5u);
  EXPECT_EQ(r.summary.complete, 2u);
  EXPECT_EQ(r.summary.user_review, 1u);
  EXPECT_EQ(r.summary.ready + r.summary.waiting + r.summary.blocked + r.summary.user_review +
                r.summary.running + r.summary.complete,
            r.summary.tasks);
  EXPECT_EQ(r.summary.exit_code, 0);
}

TEST_F(fixture_dry_run, reviews_are_admitted_before_workers_under_a_capacity_cap) {
  input_.max_parallel = 1;
  auto r = plan_dry_run(input_);
  EXPECT_EQ(find(r, "stages/02_review_verdict").status, dispatch_status::ready);
  EXPECT_EQ(find(r, "stages/04_recovery_log").status, dispatch_status::waiting);
  EXPECT_NE(find(r, "alpha/02+01_ready").reason.find("--max-parallel 1"), std::string::npos);
  EXPECT_EQ(find(r, "alpha/02+01_ready").wait, "capacity");
  EXPECT_EQ(r.summary.ready, 1u);
}

TEST_F(fixture_dry_run, progress_and_held_claims_change_the_outcome) {
  task_progress live;
  live.active_stage = "worker";
  live.activity = task_activity::live;
  live.active_detail = "pid 4242 alive";
  input_.progress["alpha/02+01_ready"] = live;

  task_progress failed;
  failed.blocked_reason = "worker failed 10 times (provider-quota)";
  input_.progress["solo"] = failed;

  task_progress local_done;
  local_done.worker_done = true;
  local_done.completing = completing_decision::local_model;
  input_.progress["stages/01_worker"] = local_done;

  input_.claims["elsewhere/07_x"] = held_claim{{(fs::canonical(fixture("basic")) /
                                                 "src/app/recovered.cpp")
                                                    .string()},
                                               false};
  auto r = plan_dry_run(input_);
  const auto& running = find(r, "alpha/02+01_ready");
  EXPECT_EQ(running.status, dispatch_status::running);
  EXPECT_NE(running.reason.find("pid 4242"), std::string::npos);
  // Its dependent now waits for it to finish.
  EXPECT_EQ(find(r, "alpha/03+02_waits").dependency.state, dependency_status::running);
  EXPECT_EQ(find(r, "alpha/03+02_waits").wait, "dependency");
  // The conflict with the running task's claim is no longer decided here, so 06 is admitted.
  EXPECT_EQ(find(r, "alpha/06+01_conflict").status, dispatch_status::ready);
  EXPECT_EQ(find(r, "solo").status, dispatch_status::blocked);
  EXPECT_EQ(find(r, "solo").reason, "worker failed 10 times (provider-quota)");
  EXPECT_EQ(find(r, "stages/01_worker").stage, "selfcheck");
  EXPECT_NE(find(r, "stages/01_worker").reason.find("self-check"), std::string::npos);
  EXPECT_EQ(find(r, "stages/04_recovery_log").status, dispatch_status::waiting);
  EXPECT_NE(find(r, "stages/04_recovery_log").reason.find("claim conflict with elsewhere/07_x"),
            std::string::npos);
  EXPECT_EQ(find(r, "stages/04_recovery_log").wait, "claim");
  EXPECT_EQ(find(r, "stages/04_recovery_log").wait_owner, "elsewhere/07_x");

  input_.claims["elsewhere/08_y"] = held_claim{{}, true};
  auto exclusive = plan_dry_run(input_);
  EXPECT_EQ(exclusive.summary.ready, 0u);
  EXPECT_EQ(find(exclusive, "solo").wait, "");
  EXPECT_EQ(find(exclusive, "alpha/06+01_conflict").wait, "claim");
  EXPECT_EQ(find(exclusive, "alpha/06+01_conflict").wait_owner, "elsewhere/08_y");
  EXPECT_EQ(exclusive.summary.exit_code, 3) << "a running task elsewhere: exit 3";
}

TEST(dry_run, exit_codes) {
  test::temp_dir dir;
  fs::create_directories(dir.path() / "agent-task");
  auto empty = scan_workspace(dir.path());
  ASSERT_TRUE(empty.is_ok());
  dry_run_input input;
  input.scan = &*empty;
  auto r = plan_dry_run(input);
  EXPECT_EQ(r.summary.exit_code, 0);
  EXPECT_NE(r.summary.message.find("no tasks"), std::string::npos);

  input.group = "nope";
  EXPECT_EQ(plan_dry_run(input).summary.exit_code, 2);

  dir.write("agent-task/archive/2026/01/done/01_a/complete.log", "x");
  auto archived = scan_workspace(dir.path(), "done");
  ASSERT_TRUE(archived.is_ok());
  dry_run_input done;
  done.scan = &*archived;
  done.group = "done";
  auto all_complete = plan_dry_run(done);
  EXPECT_EQ(all_complete.summary.complete, 1u);
  EXPECT_EQ(all_complete.summary.exit_code, 0);

  dir.write("agent-task/g/01_x/PLAN-local-G01.md", "no header");
  auto blocked = scan_workspace(dir.path());
  ASSERT_TRUE(blocked.is_ok());
  dry_run_input stuck;
  stuck.scan = &*blocked;
  auto nothing = plan_dry_run(stuck);
  EXPECT_EQ(nothing.summary.blocked, 1u);
  EXPECT_EQ(nothing.summary.exit_code, 2);
}

// The folders read ahead (as status reads them while it reads the state)
// give the plan made with them; the running check still comes from the
// progress given later.
TEST_F(fixture_dry_run, folders_read_ahead_give_the_same_plan) {
  auto ahead = read_dry_run_folders(scan_, input_.group);
  EXPECT_EQ(ahead.dependencies.size(), scan_.tasks.size());
  EXPECT_EQ(ahead.archived.size(), 2u);
  auto check = [&](const char* what) {
    auto read_here = render_dry_run_json_lines(plan_dry_run(input_));
    dry_run_input with = input_;
    with.folders = &ahead;
    EXPECT_EQ(render_dry_run_json_lines(plan_dry_run(with)), read_here) << what;
  };
  check("fresh");
  task_progress live;
  live.active_stage = "worker";
  live.activity = task_activity::live;
  input_.progress["alpha/02+01_ready"] = live;
  check("a predecessor running");
  dry_run_input with = input_;
  with.folders = &ahead;
  EXPECT_EQ(find(plan_dry_run(with), "alpha/03+02_waits").dependency.state,
            dependency_status::running);
}

// What was read ahead is what the plan shows, even when the folders change
// after it; folders read from another scan are not taken for this one's.
TEST(dry_run, the_plan_takes_the_folders_read_ahead) {
  test::temp_dir dir;
  dir.write("agent-task/archive/2026/01/g/01_a/complete.log", "x");
  dir.write("agent-task/g/02+01_b/PLAN-local-G01.md", "no header");
  auto scan = scan_workspace(dir.path());
  ASSERT_TRUE(scan.is_ok());
  ASSERT_EQ(scan->tasks.size(), 1u);
  auto ahead = read_dry_run_folders(*scan, std::nullopt);
  ASSERT_EQ(ahead.archived.size(), 1u);
  EXPECT_EQ(ahead.dependencies.at(0).state, dependency_status::satisfied);

  fs::remove(dir.path() / "agent-task/archive/2026/01/g/01_a/complete.log");
  dry_run_input input;
  input.scan = &*scan;
  EXPECT_EQ(plan_dry_run(input).summary.complete, 0u) << "read now: no completed task";
  input.folders = &ahead;
  auto r = plan_dry_run(input);
  EXPECT_EQ(r.summary.complete, 1u);
  EXPECT_EQ(find(r, "g/02+01_b").dependency.state, dependency_status::satisfied);

  dry_run_folders other;  // read from a scan without this task
  input.folders = &other;
  EXPECT_EQ(find(plan_dry_run(input), "g/02+01_b").dependency.state, dependency_status::missing);
}

TEST_F(fixture_dry_run, renders_text_and_json_lines) {
  auto r = plan_dry_run(input_);
  auto text = render_dry_run_text(r);
  EXPECT_NE(text.find("ready       alpha/02+01_ready"), std::string::npos) << text;
  EXPECT_NE(text.find("stage=worker route=local-G05 dependency=satisfied"), std::string::npos);
  EXPECT_NE(text.find("summary: 25 tasks: 5 ready"), std::string::npos);

  auto lines = render_dry_run_json_lines(r);
  std::size_t count = 0;
  std::size_t start = 0;
  json last;
  while (start < lines.size()) {
    auto end = lines.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    auto parsed = parse_json(std::string_view(lines).substr(start, end - start), "line");
    ASSERT_TRUE(parsed.is_ok()) << parsed.error().to_string();
    last = *parsed;
    if (last["event"] == "task") {
      for (const char* key : {"task", "stage", "route", "status", "reason", "dependency"})
        EXPECT_TRUE(last.contains(key)) << key;
    }
    ++count;
    start = end + 1;
  }
  EXPECT_EQ(count, r.tasks.size() + 1);
  EXPECT_EQ(last["event"], "summary");
  EXPECT_EQ(last["exit_code"], 0);
  EXPECT_EQ(last["ready"], 5);
}

} // namespace
} // namespace ad::runtime

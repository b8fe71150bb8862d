#include "runtime/run/pass_planner.hpp"
#include "runtime/schedule/review_observe.hpp"
#include "runtime/workspace/workspace_scanner.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

void write_task(const temp_dir& ws, const std::string& task, const std::string& path) {
  test::write_minimal_task(ws, task, path);
}

std::vector<std::string> examined_names(const planner_result& r) {
  std::vector<std::string> out;
  for (const auto& e : r.examined)
    out.push_back(e.task);
  std::sort(out.begin(), out.end());
  return out;
}

// Moves a task to the archive with its complete.log, as a passing review does.
void complete(const temp_dir& ws, const std::string& task) {
  ws.write("agent-task/" + task + "/complete.log", "done\n");
  auto to = ws.path() / "agent-task/archive/2026/11" / task;
  fs::create_directories(to.parent_path());
  fs::rename(ws.path() / "agent-task" / task, to);
}

class pass_planner_test : public ::testing::Test {
protected:
  planner_result pass(workspace_scanner& scanner, std::vector<std::string> touched,
                      int max_parallel = 0, bool violations_changed = false) {
    auto r = scanner.refresh();
    EXPECT_TRUE(r.is_ok());
    planner_input in;
    in.scanner = &scanner;
    in.state = &state;
    in.pol = &pol;
    in.live = live;
    in.max_parallel = max_parallel;
    in.full = r->full;
    in.touched = std::move(touched);
    in.touched.insert(in.touched.end(), r->changed.begin(), r->changed.end());
    in.violations = violations;
    in.violations_changed = violations_changed;
    // The archive folders of first sightings, as the scheduler finds them.
    std::map<std::string, std::vector<std::string>> archives;
    for (const auto& name : planner.first_sightings(in))
      for (const auto& p : find_archived_task_folders(scanner.task_root(), name))
        archives[name].push_back(p.string());
    in.archives = &archives;
    return planner.plan(in);
  }
  temp_dir ws;
  state_model state;
  policy pol = *parse_policy(default_policy_json(), "default");
  std::map<std::string, live_info> live;
  std::vector<live_violation> violations;
  pass_planner planner;
};

TEST_F(pass_planner_test, a_task_waiting_on_a_running_violators_path_is_examined_when_it_ends) {
  write_task(ws, "g/01_a", "src/a.cpp");
  write_task(ws, "g/02_b", "src/b.cpp");
  write_task(ws, "g/03_c", "src/c.cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);
  auto b_path = (fs::canonical(ws.path()) / "src/b.cpp").string();
  // g/01_a runs and its attempt wrote g/02_b's file outside its own claim.
  live["g/01_a"] = {live_where::here, ""};
  violations = {{b_path, "g_01_a__p1__worker__a01", "g/01_a"}};
  auto first = pass(scanner, {});
  EXPECT_EQ(first.admitted, std::vector<std::string>{"g/03_c"});
  const auto& waiting = planner.entries().at("g/02_b");
  EXPECT_EQ(waiting.cause, wait_cause::violation_pending);
  EXPECT_EQ(waiting.reason, b_path + " was written outside its claim by running attempt "
                                     "g_01_a__p1__worker__a01 of g/01_a");
  EXPECT_EQ(planner.violation_waiters(), std::set<std::string>{"g/02_b"});

  // A pass that changed nothing about the violations leaves it alone.
  live["g/03_c"] = {live_where::here, ""};
  auto quiet = pass(scanner, {"g/03_c"});
  EXPECT_EQ(examined_names(quiet), std::vector<std::string>{"g/03_c"});

  // The violating attempt ended: the waiter is examined again and starts.
  violations.clear();
  auto after = pass(scanner, {}, 0, true);
  EXPECT_EQ(examined_names(after), std::vector<std::string>{"g/02_b"});
  EXPECT_EQ(after.admitted, std::vector<std::string>{"g/02_b"});
  EXPECT_TRUE(planner.violation_waiters().empty());
}

TEST_F(pass_planner_test, after_a_completion_only_the_dependents_are_examined_again) {
  write_task(ws, "g/01_a", "src/a.cpp");
  write_task(ws, "g/02+01_b", "src/b.cpp");
  write_task(ws, "g/03_c", "src/c.cpp");
  write_task(ws, "g/04+03_d", "src/d.cpp");
  write_task(ws, "h/01_x", "src/x.cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);

  auto first = pass(scanner, {});
  EXPECT_EQ(first.examined.size(), 5u);
  // Admission order: subtask index, then name.
  EXPECT_EQ(first.admitted, (std::vector<std::string>{"g/01_a", "h/01_x", "g/03_c"}));
  EXPECT_EQ(planner.entries().at("g/02+01_b").cause, wait_cause::predecessor_missing);

  // The three start: each is re-examined with its dependents only.
  for (const auto& t : first.admitted)
    live[t] = {live_where::here, ""};
  auto started = pass(scanner, first.admitted);
  EXPECT_EQ(examined_names(started),
            (std::vector<std::string>{"g/01_a", "g/02+01_b", "g/03_c", "g/04+03_d", "h/01_x"}));
  EXPECT_EQ(planner.entries().at("g/02+01_b").reason,
            "waiting for g/01_a to finish (running here)");

  // g/01_a completes and moves to the archive: only g/02+01_b is examined.
  live.erase("g/01_a");
  complete(ws, "g/01_a");
  auto after = pass(scanner, {"g/01_a"});
  EXPECT_EQ(examined_names(after), std::vector<std::string>{"g/02+01_b"});
  EXPECT_EQ(after.admitted, std::vector<std::string>{"g/02+01_b"});
  EXPECT_EQ(after.dropped, std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(planner.entries().count("g/01_a"), 0u);
  // The others keep their entries.
  EXPECT_EQ(planner.entries().at("g/04+03_d").reason,
            "waiting for g/03_c to finish (running here)");
  EXPECT_EQ(planner.entries().at("h/01_x").kind, admission_kind::running_here);
  EXPECT_EQ(planner.dependents_of("g/03_c"), std::vector<std::string>{"g/04+03_d"});

  // The same decisions as a full, non-incremental pass over the same folders.
  auto scan = scan_workspace(ws.path());
  ASSERT_TRUE(scan.is_ok());
  pass_input full;
  full.scan = &*scan;
  full.state = &state;
  full.pol = &pol;
  full.live = live;
  auto reference = plan_pass(full);
  ASSERT_EQ(reference.admission.entries.size(), planner.entries().size());
  for (const auto& e : reference.admission.entries) {
    const auto& mine = planner.entries().at(e.task);
    EXPECT_EQ(mine.kind, e.kind) << e.task;
    EXPECT_EQ(mine.reason, e.reason) << e.task;
  }
  EXPECT_EQ(reference.admission.admitted, after.admitted);
}

TEST_F(pass_planner_test, an_external_change_to_a_task_folder_is_examined_without_a_finish) {
  write_task(ws, "g/01_a", "src/a.cpp");
  write_task(ws, "g/02_b", "src/b.cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);
  auto first = pass(scanner, {});
  ASSERT_EQ(first.admitted.size(), 2u);
  // Nothing started; a person asks for a review stop on g/02_b.
  ws.write("agent-task/g/02_b/USER_REVIEW.md", "# USER_REVIEW\n");
  auto next = pass(scanner, {});
  EXPECT_EQ(examined_names(next), std::vector<std::string>{"g/02_b"});
  EXPECT_EQ(planner.entries().at("g/02_b").kind, admission_kind::blocked);
  EXPECT_EQ(planner.entries().at("g/01_a").kind, admission_kind::admit);
}

TEST_F(pass_planner_test, capacity_waiters_are_examined_only_as_far_as_the_free_slots_reach) {
  for (const char* t : {"g/01_a", "g/02_b", "g/03_c", "g/04_d", "g/05_e", "g/06_f", "g/07_h"})
    write_task(ws, t, std::string("src/") + t + ".cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);
  auto first = pass(scanner, {}, 1);
  EXPECT_EQ(first.admitted, std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(planner.capacity_waiters(), 6u);
  EXPECT_EQ(planner.entries().at("g/07_h").reason, "capacity: 1 of 1 running");

  live["g/01_a"] = {live_where::here, ""};
  auto running = pass(scanner, {"g/01_a"}, 1);
  EXPECT_EQ(examined_names(running), std::vector<std::string>{"g/01_a"});

  live.erase("g/01_a");
  complete(ws, "g/01_a");
  auto after = pass(scanner, {"g/01_a"}, 1);
  // The first waiter in admission order gets the slot; the tail of the
  // waiters is not looked at and keeps waiting.
  EXPECT_EQ(after.admitted, std::vector<std::string>{"g/02_b"});
  EXPECT_LT(after.examined.size(), 6u);
  EXPECT_EQ(planner.capacity_waiters(), 5u);
  EXPECT_EQ(planner.entries().at("g/07_h").kind, admission_kind::wait);
  EXPECT_EQ(planner.entries().at("g/07_h").cause, wait_cause::capacity);
}

TEST_F(pass_planner_test, a_waiter_ahead_in_admission_order_is_not_passed_over) {
  for (const char* t : {"g/01_a", "g/02_b", "g/03_c", "g/04_d", "g/05_e", "g/06_f"})
    write_task(ws, t, std::string("src/") + t + ".cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);
  auto first = pass(scanner, {}, 1);
  ASSERT_EQ(first.admitted, std::vector<std::string>{"g/01_a"});
  live["g/01_a"] = {live_where::here, ""};
  (void) pass(scanner, {"g/01_a"}, 1);
  // g/06_f is touched (its folder changed) while g/02_b..g/05_e wait: when
  // the slot frees, g/02_b still comes first.
  ws.write("agent-task/g/06_f/notes.txt", "x\n");
  live.erase("g/01_a");
  complete(ws, "g/01_a");
  auto after = pass(scanner, {"g/01_a"}, 1);
  EXPECT_EQ(after.admitted, std::vector<std::string>{"g/02_b"});
  EXPECT_EQ(planner.entries().at("g/06_f").cause, wait_cause::capacity);
  auto full = planner.snapshot();
  EXPECT_EQ(full.views.size(), 5u);
  EXPECT_EQ(full.admission.entries.size(), 5u);
}

} // namespace
} // namespace ad::runtime

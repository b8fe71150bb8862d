#include "runtime/workspace/task_scan.hpp"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

#include "tests/runtime/workspace/fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

const scanned_task* find_task(const workspace_scan& scan, const std::string& name) {
  for (const auto& t : scan.tasks)
    if (t.name == name)
      return &t;
  return nullptr;
}

bool has_error(const scanned_task& t, task_error_kind kind) {
  return std::any_of(t.errors.begin(), t.errors.end(),
                     [&](const task_error& e) { return e.kind == kind; });
}

class fixture_scan : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto scanned = scan_workspace(fixture("basic"));
    ASSERT_TRUE(scanned.is_ok()) << scanned.error().to_string();
    scan_ = new workspace_scan(std::move(*scanned));
  }
  static void TearDownTestSuite() {
    delete scan_;
    scan_ = nullptr;
  }
  const scanned_task& task(const std::string& name) {
    auto* t = find_task(*scan_, name);
    EXPECT_NE(t, nullptr) << name;
    static scanned_task none;
    return t ? *t : none;
  }
  static workspace_scan* scan_;
};
workspace_scan* fixture_scan::scan_ = nullptr;

TEST_F(fixture_scan, discovers_groups_and_tasks_but_not_the_archive) {
  EXPECT_EQ(scan_->groups, (std::vector<std::string>{"alpha", "errors", "solo", "stages"}));
  EXPECT_EQ(find_task(*scan_, "stages/06_not_a_task"), nullptr);
  for (const auto& t : scan_->tasks)
    EXPECT_EQ(t.name.find("archive"), std::string::npos) << t.name;
  EXPECT_EQ(scan_->tasks.size(), 23u);
  // Sorted by (index, name).
  for (std::size_t i = 1; i < scan_->tasks.size(); ++i) {
    const auto& a = scan_->tasks[i - 1];
    const auto& b = scan_->tasks[i];
    EXPECT_TRUE(a.index < b.index || (a.index == b.index && a.name < b.name))
        << a.name << " before " << b.name;
  }
  EXPECT_TRUE(scan_->warnings.empty());
}

TEST_F(fixture_scan, a_healthy_task_has_route_identity_and_write_set) {
  const auto& t = task("alpha/02+01_ready");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.index, 2);
  EXPECT_EQ(t.deps, (std::vector<std::string>{"01"}));
  EXPECT_EQ(t.group, "alpha");
  EXPECT_EQ(t.route(), "local-G05");
  EXPECT_EQ(t.work_unit_id(), "alpha/02+01_ready::plan-1::tag-t1");
  EXPECT_TRUE(t.write_set_known);
  EXPECT_EQ(t.write_set.paths.size(), 2u);
  EXPECT_FALSE(t.recovery);
  EXPECT_FALSE(t.review_verdict_now);
}

TEST_F(fixture_scan, a_group_can_itself_be_a_task) {
  const auto& t = task("solo");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.index, 0);
  EXPECT_EQ(t.route(), "cloud-G10");
}

TEST_F(fixture_scan, every_task_error_is_reported) {
  const std::pair<const char*, task_error_kind> cases[] = {
      {"errors/01_two_plans", task_error_kind::several_plans},
      {"errors/02_two_reviews", task_error_kind::several_reviews},
      {"errors/03_user_beside", task_error_kind::user_review_beside_active},
      {"errors/04_plan_only", task_error_kind::incomplete_pair},
      {"errors/05_review_only", task_error_kind::incomplete_pair},
      {"errors/Bad-Name", task_error_kind::bad_subtask_name},
      {"errors/06_bad_write_set", task_error_kind::invalid_write_set},
      {"errors/07_no_header", task_error_kind::missing_plan_header},
      {"errors/08_other_header", task_error_kind::plan_header_names_other_task},
      {"errors/09_recovery_no_plan_log", task_error_kind::no_recovery_plan_log},
      {"errors/10_incomplete_user_review", task_error_kind::incomplete_user_review},
      {"errors/11_two_user_reviews", task_error_kind::several_user_reviews},
  };
  for (const auto& [name, kind] : cases) {
    const auto& t = task(name);
    EXPECT_TRUE(has_error(t, kind)) << name << " lacks " << to_string(kind);
    for (const auto& e : t.errors)
      EXPECT_FALSE(e.message.empty());
  }
  EXPECT_NE(task("errors/10_incomplete_user_review").errors.front().message.find("Evidence"),
            std::string::npos);
  EXPECT_NE(task("errors/08_other_header").errors.front().message.find("errors/99_someone_else"),
            std::string::npos);
}

TEST_F(fixture_scan, recovery_folders) {
  const auto& logs = task("stages/04_recovery_log");
  EXPECT_TRUE(logs.errors.empty()) << logs.errors.front().message;
  EXPECT_TRUE(logs.recovery);
  EXPECT_EQ(logs.route(), "recovery");
  ASSERT_TRUE(logs.recovery_log);
  EXPECT_EQ(logs.recovery_log->filename(), "code_review_local_G02_1.log");  // _2 has no verdict
  ASSERT_TRUE(logs.recovery_plan_log);
  EXPECT_EQ(logs.recovery_plan_log->filename(), "plan_local_G02_1.log");
  EXPECT_EQ(logs.review_logs.size(), 2u);
  EXPECT_TRUE(logs.write_set_known);

  const auto& done = task("stages/03_recovery_complete");
  EXPECT_TRUE(done.recovery);
  EXPECT_TRUE(done.has_complete_log);
  EXPECT_TRUE(done.errors.empty());
  EXPECT_FALSE(done.write_set_known);
}

TEST_F(fixture_scan, one_group_only) {
  auto alpha = scan_workspace(fixture("basic"), "alpha");
  ASSERT_TRUE(alpha.is_ok());
  EXPECT_EQ(alpha->tasks.size(), 5u);
  auto missing = scan_workspace(fixture("basic"), "nope");
  ASSERT_TRUE(missing.is_ok());
  EXPECT_TRUE(missing->tasks.empty());
  EXPECT_TRUE(scan_workspace(fixture("basic"), "archive").error().is_invalid_argument());
  EXPECT_TRUE(scan_workspace(fixture("basic"), "../x").error().is_invalid_argument());
}

TEST(task_scan, empty_workspace_and_empty_agent_task) {
  test::temp_dir dir;
  auto none = scan_workspace(dir.path());
  ASSERT_FALSE(none.is_ok());
  EXPECT_TRUE(none.error().is_not_found());
  EXPECT_NE(none.error().message().find("no agent-task/"), std::string::npos);
  EXPECT_TRUE(scan_workspace(dir.path() / "missing").error().is_not_found());

  fs::create_directories(dir.path() / "agent-task");
  auto empty = scan_workspace(dir.path());
  ASSERT_TRUE(empty.is_ok());
  EXPECT_TRUE(empty->tasks.empty());
}

TEST(task_scan, symlink_loops_are_warnings_not_hangs) {
  test::temp_dir dir;
  auto root = dir.path() / "agent-task";
  dir.write("agent-task/g/01_x/complete.log", "done");
  fs::create_symlink("self", root / "g" / "self");           // a loop inside a group
  fs::create_symlink("loopgroup", root / "loopgroup");       // a loop as a group
  fs::create_symlink("..", root / "g" / "02_up");            // a cycle that is a real folder
  auto scan = scan_workspace(dir.path());
  ASSERT_TRUE(scan.is_ok());
  // Each loop is named once per path it is seen through (02_up shows
  // agent-task/ again, so loopgroup also appears as g/02_up/loopgroup).
  auto named = [&](const fs::path& p) {
    return std::find(scan->warnings.begin(), scan->warnings.end(),
                     "skipped " + p.string() + ": symlink loop (too many levels of symbolic links)") !=
           scan->warnings.end();
  };
  EXPECT_TRUE(named(root / "loopgroup"));
  EXPECT_TRUE(named(root / "g" / "self"));
  EXPECT_TRUE(named(root / "g" / "02_up" / "loopgroup"));
  EXPECT_EQ(scan->warnings.size(), 3u);
  EXPECT_NE(find_task(*scan, "g/01_x"), nullptr);
}

// Enough folders to be read on several threads: the answer is the one a
// reading of one folder after the other gives, tasks in (index, name)
// order and each folder's warnings in folder order, every time.
TEST(task_scan, a_large_scan_read_on_threads_answers_in_folder_order) {
  test::temp_dir dir;
  auto root = dir.path() / "agent-task";
  std::vector<std::string> names;
  for (int i = 1; i <= 40; ++i) {
    auto index = (i < 10 ? "0" : "") + std::to_string(i);
    for (const char* group : {"a", "b"}) {
      auto name = std::string(group) + "/" + index + "_t" + std::to_string(i);
      test::write_plan_and_review(dir.path(), name, "cloud",
                                  {"src/" + std::string(group) + std::to_string(i) + ".cpp"});
      names.push_back(name);
    }
  }
  // Two loops inside task folders: warnings of their folders' readings.
  fs::create_symlink("x", root / "b" / "33_t33" / "x");
  fs::create_symlink("y", root / "a" / "07_t7" / "y");
  std::vector<std::string> expected_warnings;
  for (const auto& p : {root / "a" / "07_t7" / "y", root / "b" / "33_t33" / "x"})
    expected_warnings.push_back("skipped " + p.string() +
                                ": symlink loop (too many levels of symbolic links)");
  std::sort(names.begin(), names.end(), [](const std::string& x, const std::string& y) {
    auto ix = x.substr(2, 2), iy = y.substr(2, 2);
    return ix != iy ? ix < iy : x < y;
  });
  for (int round = 0; round < 5; ++round) {
    auto scan = scan_workspace(dir.path());
    ASSERT_TRUE(scan.is_ok());
    std::vector<std::string> got;
    for (const auto& t : scan->tasks) {
      got.push_back(t.name);
      EXPECT_TRUE(t.errors.empty()) << t.name;
      EXPECT_EQ(t.write_set.paths.size(), 1u) << t.name;
    }
    EXPECT_EQ(got, names);
    EXPECT_EQ(scan->warnings, expected_warnings);
  }
}

TEST(task_scan, folders_that_resolve_outside_the_workspace_are_not_scanned) {
  test::temp_dir dir;
  test::temp_dir elsewhere;
  test::write_plan_and_review(dir.path(), "g/01_in", "cloud", {"src/a.cpp"});
  test::write_plan_and_review(elsewhere.path(), "h/01_out", "cloud", {"src/b.cpp"});
  auto root = dir.path() / "agent-task";
  fs::create_symlink(elsewhere.path() / "agent-task" / "h", root / "ext");         // a group
  fs::create_symlink(elsewhere.path() / "agent-task" / "h" / "01_out", root / "g" / "02_out"); // a task
  auto scan = scan_workspace(dir.path());
  ASSERT_TRUE(scan.is_ok()) << scan.error().to_string();
  EXPECT_NE(find_task(*scan, "g/01_in"), nullptr);
  EXPECT_EQ(find_task(*scan, "g/02_out"), nullptr);
  EXPECT_EQ(find_task(*scan, "ext/01_out"), nullptr);
  auto warned = [&](const fs::path& p) {
    return std::any_of(scan->warnings.begin(), scan->warnings.end(), [&](const std::string& w) {
      return w.find("skipped " + p.string() + ": it resolves to") == 0 &&
             w.find("outside the workspace") != std::string::npos;
    });
  };
  EXPECT_TRUE(warned(root / "ext"));
  EXPECT_TRUE(warned(root / "g" / "02_out"));

  // agent-task/ itself pointing at / is refused, not scanned.
  test::temp_dir rooted;
  fs::create_symlink("/", rooted.path() / "agent-task");
  auto refused = scan_workspace(rooted.path());
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message().find("outside the workspace"), std::string::npos)
    << refused.error().message();
}

TEST(task_scan, unreadable_huge_and_binary_plans_are_task_errors) {
  test::temp_dir dir;
  const std::string header = "<!-- task=g/01_huge plan=1 tag=t -->\n## Modified Files Summary\n";
  auto huge = dir.write("agent-task/g/01_huge/PLAN-local-G01.md", header);
  fs::resize_file(huge, 50u << 20);  // a 50 MB PLAN
  dir.write("agent-task/g/01_huge/CODE_REVIEW-local-G01.md", "review");
  fs::create_directories(dir.path() / "agent-task/g/02_unreadable");
  fs::create_symlink("/proc/self/mem", dir.path() / "agent-task/g/02_unreadable/PLAN-local-G01.md");
  dir.write("agent-task/g/02_unreadable/CODE_REVIEW-local-G01.md", "review");
  dir.write("agent-task/g/03_binary/PLAN-local-G01.md",
            std::string("\xff\xfe\0", 3) + "<!-- task=g/03_binary plan=1 tag=t -->\n\x80\x81" +
                "\n## Modified Files Summary\n| `src/\xe9.cpp` | x |\n");
  dir.write("agent-task/g/03_binary/CODE_REVIEW-local-G01.md", "\xff\xff");

  auto scan = scan_workspace(dir.path());
  ASSERT_TRUE(scan.is_ok());
  ASSERT_EQ(scan->tasks.size(), 3u);
  const auto* big = find_task(*scan, "g/01_huge");
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(has_error(*big, task_error_kind::invalid_write_set));
  EXPECT_NE(big->errors.front().message.find("more than the limit"), std::string::npos)
      << big->errors.front().message;
  EXPECT_TRUE(big->header.has_value()) << "the identity header is still read";

  const auto* unreadable = find_task(*scan, "g/02_unreadable");
  ASSERT_NE(unreadable, nullptr);
  EXPECT_TRUE(has_error(*unreadable, task_error_kind::invalid_write_set));
  EXPECT_NE(unreadable->errors.front().message.find("cannot read"), std::string::npos);

  const auto* binary = find_task(*scan, "g/03_binary");
  ASSERT_NE(binary, nullptr);
  EXPECT_TRUE(binary->errors.empty()) << binary->errors.front().message;
  EXPECT_TRUE(binary->write_set_known);
}

TEST(task_scan, dependency_cycles_and_self_dependencies_are_task_errors_naming_the_cycle) {
  test::temp_dir dir;
  auto task = [&](const std::string& name) {
    dir.write("agent-task/" + name + "/PLAN-local-G01.md",
              "<!-- task=" + name + " plan=1 tag=t -->\n## Modified Files Summary\n");
    dir.write("agent-task/" + name + "/CODE_REVIEW-local-G01.md", "review");
  };
  task("g/01+02_a");
  task("g/02+01_b");
  task("g/03+03_x");
  task("g/04+01_c"); // waits on the cycle but is not in it
  task("h/01+03_p");
  task("h/02+01_q");
  task("h/03+02_r");
  dir.write("agent-task/k/01+02_done/complete.log", "done"); // completed: no cycle
  task("k/02+01_open");
  task("m/01+02_a"); // 03 waits on the cycle 01-02 and the cycle 04-05 waits on it:
  task("m/02+01_b"); // between two cycles, on none
  task("m/03+01_between");
  task("m/04+03,05_c");
  task("m/05+04_d");
  auto scan = scan_workspace(dir.path());
  ASSERT_TRUE(scan.is_ok());
  auto cycle_error = [&](const std::string& name) -> std::string {
    const auto* t = find_task(*scan, name);
    EXPECT_NE(t, nullptr) << name;
    if (t == nullptr)
      return "";
    for (const auto& e : t->errors)
      if (e.kind == task_error_kind::dependency_cycle)
        return e.message;
    return "";
  };
  EXPECT_EQ(cycle_error("g/01+02_a"),
            "dependency cycle in group g: 01 -> 02 -> 01 (\"A -> B\": A waits for B); none of "
            "them can start until one folder name drops its dependency");
  EXPECT_NE(cycle_error("g/02+01_b").find("02 -> 01 -> 02"), std::string::npos);
  EXPECT_EQ(cycle_error("g/03+03_x"),
            "task 03 names itself as its predecessor; remove +03 from the folder name");
  EXPECT_EQ(cycle_error("g/04+01_c"), "");
  EXPECT_NE(cycle_error("h/01+03_p").find("01 -> 03 -> 02 -> 01"), std::string::npos)
    << cycle_error("h/01+03_p");
  EXPECT_NE(cycle_error("h/03+02_r").find("03 -> 02 -> 01 -> 03"), std::string::npos);
  EXPECT_EQ(cycle_error("k/02+01_open"), "");
  EXPECT_NE(cycle_error("m/01+02_a").find("01 -> 02 -> 01"), std::string::npos);
  EXPECT_EQ(cycle_error("m/03+01_between"), "");
  EXPECT_NE(cycle_error("m/04+03,05_c").find("04 -> 05 -> 04"), std::string::npos);
  EXPECT_NE(cycle_error("m/05+04_d").find("05 -> 04 -> 05"), std::string::npos);
}

TEST(task_scan, find_workspace_root_walks_up) {
  auto ws = fs::canonical(fixture("basic"));
  auto from_plan = find_workspace_root(ws / "agent-task/alpha/02+01_ready/PLAN-local-G05.md");
  ASSERT_TRUE(from_plan.is_ok());
  EXPECT_EQ(*from_plan, ws);
  test::temp_dir dir;
  EXPECT_TRUE(find_workspace_root(dir.path()).error().is_not_found());
}

TEST(task_scan, chosen_workspace_prefers_the_option_then_the_nearest_root_then_cwd) {
  auto ws = fs::canonical(fixture("basic"));
  EXPECT_EQ(chosen_workspace("/elsewhere", ws / "agent-task/alpha"), fs::path("/elsewhere"));
  EXPECT_EQ(chosen_workspace("", ws / "agent-task/alpha/02+01_ready"), ws);
  test::temp_dir dir;
  EXPECT_EQ(chosen_workspace("", dir.path()), dir.path());
}

} // namespace
} // namespace ad::runtime

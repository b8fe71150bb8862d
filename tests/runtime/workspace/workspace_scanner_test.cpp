#include "runtime/workspace/workspace_scanner.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "runtime/workspace/dependencies.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

void write_task(const temp_dir& ws, const std::string& task, const std::string& path) {
  test::write_minimal_task(ws, task, path);
}

std::vector<std::string> names(const workspace_scanner& s) {
  std::vector<std::string> out;
  for (const auto* t : s.ordered())
    out.push_back(t->name);
  return out;
}

std::vector<std::string> names(const workspace_scan& scan) {
  std::vector<std::string> out;
  for (const auto& t : scan.tasks)
    out.push_back(t.name);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class workspace_scanner_test : public ::testing::Test {
protected:
  void SetUp() override {
    write_task(ws, "g/01_a", "src/a.cpp");
    write_task(ws, "g/02+01_b", "src/b.cpp");
    write_task(ws, "g/03_c", "src/c.cpp");
    write_task(ws, "h/01_x", "src/x.cpp");
  }
  temp_dir ws;
};

TEST_F(workspace_scanner_test, first_refresh_is_a_full_scan_equal_to_scan_workspace) {
  workspace_scanner scanner(ws.path(), std::nullopt);
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  EXPECT_TRUE(r->full);
  auto scan = scan_workspace(ws.path());
  ASSERT_TRUE(scan.is_ok());
  EXPECT_EQ(names(scanner), names(*scan));
  EXPECT_EQ(r->changed, (std::vector<std::string>{"g/01_a", "g/02+01_b", "g/03_c", "h/01_x"}));
  ASSERT_NE(scanner.find("g/02+01_b"), nullptr);
  EXPECT_EQ(scanner.find("g/02+01_b")->deps, std::vector<std::string>{"01"});
  EXPECT_EQ(scanner.full_scans(), 1);
}

// A group with enough new folders to read them on several threads: the
// scanner knows each task once, equal to scan_workspace's reading, and a
// later change in one of them is noticed alone (each was watched).
TEST_F(workspace_scanner_test, a_large_group_read_on_threads_is_known_and_watched_folder_by_folder) {
  for (int i = 10; i < 60; ++i)
    write_task(ws, "big/" + std::to_string(i) + "_t", "src/big" + std::to_string(i) + ".cpp");
  workspace_scanner scanner(ws.path(), std::nullopt);
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  auto scan = scan_workspace(ws.path());
  ASSERT_TRUE(scan.is_ok());
  EXPECT_EQ(names(scanner), names(*scan));
  EXPECT_EQ(names(scanner).size(), 54u);
  EXPECT_EQ(r->changed.size(), 54u);
  for (int i = 10; i < 60; ++i) {
    const auto* t = scanner.find("big/" + std::to_string(i) + "_t");
    ASSERT_NE(t, nullptr) << i;
    ASSERT_EQ(t->write_set.paths.size(), 1u) << i;
    EXPECT_TRUE(t->write_set.paths[0].ends_with("src/big" + std::to_string(i) + ".cpp")) << i;
  }
  ws.write("agent-task/big/47_t/USER_REVIEW.md", "# USER_REVIEW\n");
  r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->full);
  EXPECT_EQ(r->changed, std::vector<std::string>{"big/47_t"});
}

TEST_F(workspace_scanner_test, an_unchanged_tree_reads_no_folder_again) {
  workspace_scanner scanner(ws.path(), std::nullopt);
  ASSERT_TRUE(scanner.refresh().is_ok());
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->full);
  EXPECT_TRUE(r->changed.empty());
  EXPECT_EQ(scanner.folders_read(), 0u);
  EXPECT_EQ(scanner.full_scans(), 1);
}

TEST_F(workspace_scanner_test, an_external_change_to_one_task_folder_is_noticed_alone) {
  workspace_scanner scanner(ws.path(), std::nullopt);
  ASSERT_TRUE(scanner.refresh().is_ok());
  // A person drops a USER_REVIEW.md into g/03_c: nobody tells the scanner.
  ws.write("agent-task/g/03_c/USER_REVIEW.md", "# USER_REVIEW\n");
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->full);
  EXPECT_EQ(r->changed, std::vector<std::string>{"g/03_c"});
  ASSERT_NE(scanner.find("g/03_c"), nullptr);
  EXPECT_TRUE(scanner.find("g/03_c")->user_review.has_value());

  // An in-place edit of a PLAN's write set is seen too.
  std::string header = "<!-- task=h/01_x plan=1 tag=t -->\n";
  ws.write("agent-task/h/01_x/PLAN-cloud-G03.md",
           header + "# PLAN\n\n## Modified Files Summary\n\n| File | Change |\n|---|---|\n"
                    "| `src/y.cpp` | x |\n\n## Implementation Checklist\n\n- [ ] a\n");
  ws.write("src/y.cpp", "y\n");
  r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->changed, std::vector<std::string>{"h/01_x"});
  ASSERT_EQ(scanner.find("h/01_x")->write_set.paths.size(), 1u);
  EXPECT_TRUE(scanner.find("h/01_x")->write_set.paths[0].ends_with("src/y.cpp"));
}

TEST_F(workspace_scanner_test, new_and_removed_folders_and_groups_are_noticed) {
  workspace_scanner scanner(ws.path(), std::nullopt);
  ASSERT_TRUE(scanner.refresh().is_ok());
  write_task(ws, "g/04+03_d", "src/d.cpp");
  write_task(ws, "k/01_new", "src/n.cpp");
  fs::remove_all(ws.path() / "agent-task/h");
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->full);
  EXPECT_TRUE(contains(r->changed, "g/04+03_d"));
  EXPECT_TRUE(contains(r->changed, "k/01_new"));
  EXPECT_TRUE(contains(r->changed, "h/01_x"));
  EXPECT_FALSE(contains(r->changed, "g/01_a"));
  auto scan = scan_workspace(ws.path());
  ASSERT_TRUE(scan.is_ok());
  EXPECT_EQ(names(scanner), names(*scan));
}

TEST_F(workspace_scanner_test, completed_folders_follow_completions_and_the_archive) {
  workspace_scanner scanner(ws.path(), std::nullopt);
  ASSERT_TRUE(scanner.refresh().is_ok());
  auto task_root = ws.path() / "agent-task";
  EXPECT_TRUE(scanner.completed_folders("g", "01").empty());

  // The task completes in place, then moves to the archive.
  ws.write("agent-task/g/01_a/complete.log", "done\n");
  ASSERT_TRUE(scanner.refresh().is_ok());
  EXPECT_EQ(scanner.completed_folders("g", "01"), dependency_candidates(task_root, "g", "01"));
  EXPECT_EQ(scanner.completed_folders("g", "01").size(), 1u);

  fs::create_directories(task_root / "archive/2026/11/g");
  fs::rename(task_root / "g/01_a", task_root / "archive/2026/11/g/01_a");
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->full);
  EXPECT_TRUE(contains(r->changed, "g/01_a"));
  EXPECT_EQ(scanner.find("g/01_a"), nullptr);
  auto expected = dependency_candidates(task_root, "g", "01");
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(scanner.completed_folders("g", "01"), expected);

  // A second completed 01_* folder makes the lookup ambiguous, as on disk.
  ws.write("agent-task/archive/2026/12/g/01_again/complete.log", "done\n");
  ASSERT_TRUE(scanner.refresh().is_ok());
  EXPECT_EQ(scanner.completed_folders("g", "01"), dependency_candidates(task_root, "g", "01"));
  EXPECT_EQ(scanner.completed_folders("g", "01").size(), 2u);
}

// The archive's logs are known by their canonical paths, as
// dependency_candidates finds them: through a month that is a link, and
// for a log that is itself a link.
TEST_F(workspace_scanner_test, archived_logs_reached_through_links_are_known_by_their_real_paths) {
  auto task_root = ws.path() / "agent-task";
  ws.write("agent-task/archive/2026/old10/g/02_b/complete.log", "done\n");
  fs::create_directory_symlink("old10", task_root / "archive/2026/10");
  ws.write("notes/c.log", "done\n");
  fs::create_directories(task_root / "archive/2026/11/g/03_c");
  fs::create_symlink("../../../../../../notes/c.log", task_root / "archive/2026/11/g/03_c/complete.log");
  ws.write("agent-task/archive/2026/11/g/04_d/complete.log", "done\n");
  // An archived folder that is a link, one whose log is missing, and a
  // file among the folders.
  ws.write("kept/05_e/complete.log", "done\n");
  fs::create_directory_symlink("../../../../../kept/05_e", task_root / "archive/2026/11/g/05_e");
  fs::create_directories(task_root / "archive/2026/11/g/06_f");
  ws.write("agent-task/archive/2026/11/g/07_g", "not a folder\n");
  workspace_scanner scanner(ws.path(), std::nullopt);
  ASSERT_TRUE(scanner.refresh().is_ok());
  for (const char* index : {"02", "03", "04", "05", "06", "07"})
    EXPECT_EQ(scanner.completed_folders("g", index), dependency_candidates(task_root, "g", index))
      << index;
  auto real = fs::canonical(ws.path());
  using paths = std::vector<fs::path>;
  // Two names of one folder (10 and old10) count once.
  EXPECT_EQ(scanner.completed_folders("g", "02"),
            paths{real / "agent-task/archive/2026/old10/g/02_b/complete.log"});
  EXPECT_EQ(scanner.completed_folders("g", "03"), paths{real / "notes/c.log"});
  EXPECT_EQ(scanner.completed_folders("g", "04"),
            paths{real / "agent-task/archive/2026/11/g/04_d/complete.log"});
  EXPECT_EQ(scanner.completed_folders("g", "05"), paths{real / "kept/05_e/complete.log"});
  EXPECT_TRUE(scanner.completed_folders("g", "06").empty());
  EXPECT_TRUE(scanner.completed_folders("g", "07").empty());

  // The folder whose log was missing is watched: its log is seen once written.
  ws.write("agent-task/archive/2026/11/g/06_f/complete.log", "done\n");
  ASSERT_TRUE(scanner.refresh().is_ok());
  EXPECT_EQ(scanner.completed_folders("g", "06"),
            paths{real / "agent-task/archive/2026/11/g/06_f/complete.log"});
}

TEST_F(workspace_scanner_test, without_a_watch_every_refresh_is_full) {
  workspace_scanner scanner(ws.path(), std::nullopt, scanner_watch::none);
  ASSERT_TRUE(scanner.refresh().is_ok());
  ws.write("agent-task/g/03_c/USER_REVIEW.md", "# USER_REVIEW\n");
  auto r = scanner.refresh();
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r->full);
  EXPECT_EQ(scanner.full_scans(), 2);
  EXPECT_TRUE(scanner.find("g/03_c")->user_review.has_value());
}

TEST_F(workspace_scanner_test, a_task_group_limits_the_scan_and_errors_match_scan_workspace) {
  workspace_scanner only_h(ws.path(), std::string("h"));
  ASSERT_TRUE(only_h.refresh().is_ok());
  EXPECT_EQ(names(only_h), std::vector<std::string>{"h/01_x"});

  workspace_scanner bad(ws.path(), std::string("a/b"));
  auto r = bad.refresh();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.error().get_code(), status::code::invalid_argument);

  temp_dir empty;
  workspace_scanner none(empty.path(), std::nullopt);
  auto missing = none.refresh();
  ASSERT_FALSE(missing.is_ok());
  EXPECT_TRUE(missing.error().is_not_found());
}

} // namespace
} // namespace ad::runtime

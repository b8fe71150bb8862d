#include "runtime/workspace/dependencies.hpp"

#include <gtest/gtest.h>

#include <set>

#include "tests/runtime/workspace/fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

scanned_task subtask(const std::string& group, const std::string& folder) {
  std::vector<std::string> warnings;
  auto ws = fs::canonical(fixture("basic"));
  auto t = read_task_folder(ws, ws / "agent-task" / group / folder, warnings);
  EXPECT_TRUE(t.has_value()) << folder;
  return t ? *t : scanned_task{};
}

TEST(dependencies, states_against_group_and_archive) {
  auto root = fs::canonical(fixture("basic")) / "agent-task";

  auto none = resolve_dependencies(root, subtask("stages", "01_worker"));
  EXPECT_EQ(none.state, dependency_status::none);
  EXPECT_EQ(none.label(), "none");

  // 01 exists only in archive/2026/09/alpha/.
  auto archived = resolve_dependencies(root, subtask("alpha", "02+01_ready"));
  EXPECT_EQ(archived.state, dependency_status::satisfied);

  // 02 is an active folder without complete.log.
  auto missing = resolve_dependencies(root, subtask("alpha", "03+02_waits"));
  EXPECT_EQ(missing.state, dependency_status::missing);
  EXPECT_EQ(missing.missing, (std::vector<std::string>{"02"}));
  EXPECT_EQ(missing.label(), "missing 02");

  // 04 is complete in the group (04_dup_a) and in the archive (04_dup_old).
  auto ambiguous = resolve_dependencies(root, subtask("alpha", "05+04_ambiguous"));
  EXPECT_EQ(ambiguous.state, dependency_status::ambiguous);
  ASSERT_EQ(ambiguous.ambiguous.size(), 1u);
  EXPECT_NE(ambiguous.ambiguous.front().find("04_dup_a"), std::string::npos);
  EXPECT_NE(ambiguous.ambiguous.front().find("04_dup_old"), std::string::npos);
  EXPECT_NE(ambiguous.reason().find("ambiguous"), std::string::npos);

  // A running predecessor keeps the dependent waiting even before complete.log matters.
  auto running =
      resolve_dependencies(root, subtask("alpha", "03+02_waits"), {"alpha/02+01_ready"});
  EXPECT_EQ(running.state, dependency_status::running);
  EXPECT_EQ(running.label(), "running 02");
  // A running task of another group with the same index does not count.
  auto other_group =
      resolve_dependencies(root, subtask("alpha", "03+02_waits"), {"beta/02_x"});
  EXPECT_EQ(other_group.state, dependency_status::missing);
}

TEST(dependencies, several_predecessors_and_plus_named_folders) {
  test::temp_dir dir;
  dir.write("agent-task/g/01_a/complete.log", "x");
  dir.write("agent-task/g/02+01_b/complete.log", "x");          // "02+*" counts for 02
  dir.write("agent-task/archive/2025/12/other/03_c/complete.log", "x");  // another group
  dir.write("agent-task/g/04+01,02,03_d/PLAN-local-G01.md", "<!-- task=g/04+01,02,03_d plan=1 tag=t -->");
  dir.write("agent-task/g/04+01,02,03_d/CODE_REVIEW-local-G01.md", "r");
  dir.write("agent-task/g/010_not_01/complete.log", "x");       // "010_" is not "01_"
  std::vector<std::string> warnings;
  auto t = read_task_folder(dir.path(), dir.path() / "agent-task/g/04+01,02,03_d", warnings);
  ASSERT_TRUE(t);
  auto r = resolve_dependencies(dir.path() / "agent-task", *t);
  EXPECT_EQ(r.state, dependency_status::missing);
  EXPECT_EQ(r.missing, (std::vector<std::string>{"03"}));
  EXPECT_EQ(dependency_candidates(dir.path() / "agent-task", "g", "01").size(), 1u);

  dir.write("agent-task/archive/2026/01/g/03_c/complete.log", "x");
  EXPECT_EQ(resolve_dependencies(dir.path() / "agent-task", *t).state,
            dependency_status::satisfied);
}

// The index answers every question as dependency_candidates does, listing
// each folder once: over the fixture's groups and archive, and for a
// predecessor nothing completes.
TEST(dependencies, the_index_answers_as_the_folders_do) {
  auto root = fs::canonical(fixture("basic")) / "agent-task";
  completed_index index(root);
  for (std::string group : {"alpha", "stages", "beta", "nosuch"})
    for (std::string pred : {"01", "02", "03", "04", "05", "99"})
      EXPECT_EQ(index.candidates(group, pred), dependency_candidates(root, group, pred))
        << group << " " << pred;

  for (const auto& [group, folder] : std::vector<std::pair<std::string, std::string>>{
         {"alpha", "02+01_ready"}, {"alpha", "03+02_waits"}, {"alpha", "05+04_ambiguous"}}) {
    auto task = subtask(group, folder);
    auto by_index = resolve_dependencies(index, task);
    auto by_folders = resolve_dependencies(root, task);
    EXPECT_EQ(by_index.state, by_folders.state) << folder;
    EXPECT_EQ(by_index.reason(), by_folders.reason()) << folder;
  }
}

// One completed folder reached by two names (a group's folder that is a link
// to the archived one) is one candidate, not an ambiguity, in the index as in
// the folders; the index resolves a log only once its folder matches.
TEST(dependencies, a_completed_folder_reached_by_two_names_counts_once) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path()) / "agent-task";
  dir.write("agent-task/archive/2026/12/g/03_done/complete.log", "done");
  dir.write("agent-task/archive/2026/12/g/04_other/complete.log", "done");
  fs::create_directories(root / "g");
  fs::create_directory_symlink(root / "archive/2026/12/g/03_done", root / "g" / "03_done");
  completed_index index(root);
  auto found = index.candidates("g", "03");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front(), root / "archive/2026/12/g/03_done/complete.log");
  EXPECT_EQ(found, dependency_candidates(root, "g", "03"));
  EXPECT_EQ(index.candidates("g", "04"),
            std::vector<fs::path>{root / "archive/2026/12/g/04_other/complete.log"});
  EXPECT_TRUE(index.candidates("g", "05").empty());

  // A single match keeps the name it was listed by; the folders' answer is
  // resolved. Both are one completed predecessor.
  dir.write("agent-task/archive/2026/12/h/07_real/complete.log", "done");
  fs::create_directory_symlink(root / "archive/2026/12/h/07_real", root / "g" / "07_alias");
  completed_index later(root);
  EXPECT_EQ(later.candidates("g", "07"), std::vector<fs::path>{root / "g/07_alias/complete.log"});
  EXPECT_EQ(dependency_candidates(root, "g", "07"),
            std::vector<fs::path>{root / "archive/2026/12/h/07_real/complete.log"});
}

// The index lists a group's folders at the first question about it but looks
// for a folder's complete.log only when a predecessor first names the folder:
// a folder completed after the listing counts once it is asked about, and
// keeps the answer it gave then.
TEST(dependencies, the_index_looks_for_a_complete_log_when_its_folder_is_named) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path()) / "agent-task";
  dir.write("agent-task/g/01_first/complete.log", "done");
  dir.write("agent-task/g/02_second/PLAN-local-G01.md", "plan");
  completed_index index(root);
  ASSERT_EQ(index.candidates("g", "01").size(), 1u);

  dir.write("agent-task/g/02_second/complete.log", "done");
  EXPECT_EQ(index.candidates("g", "02"),
            std::vector<fs::path>{root / "g/02_second/complete.log"});
  fs::remove(root / "g/02_second/complete.log");
  EXPECT_EQ(index.candidates("g", "02").size(), 1u);

  dir.write("agent-task/g/03_third/complete.log", "done"); // after the listing
  EXPECT_TRUE(index.candidates("g", "03").empty());
}

// Built with a scan of the workspace, the index answers as the folders do,
// and for a folder the scan read as a task it takes the scan's word on its
// complete.log: a log removed after the scan still counts, one written after
// it in a folder the scan read without one does not.
TEST(dependencies, the_index_takes_the_scans_word_on_the_folders_it_read) {
  auto ws = fs::canonical(fixture("basic"));
  auto scan = scan_workspace(ws);
  ASSERT_TRUE(scan.is_ok());
  completed_index from_scan(scan->task_root, scan->tasks);
  for (std::string group : {"alpha", "stages", "beta", "nosuch"})
    for (std::string pred : {"01", "02", "03", "04", "05", "99"})
      EXPECT_EQ(from_scan.candidates(group, pred),
                dependency_candidates(scan->task_root, group, pred))
        << group << " " << pred;

  test::temp_dir dir;
  dir.write("agent-task/g/01_first/PLAN-local-G01.md", "plan");
  dir.write("agent-task/g/01_first/complete.log", "done");
  dir.write("agent-task/g/02_second/PLAN-local-G01.md", "plan");
  auto fresh = scan_workspace(fs::canonical(dir.path()));
  ASSERT_TRUE(fresh.is_ok());
  ASSERT_EQ(fresh->tasks.size(), 2u);
  fs::remove(fresh->task_root / "g/01_first/complete.log");
  dir.write("agent-task/g/02_second/complete.log", "done");
  completed_index index(fresh->task_root, fresh->tasks);
  EXPECT_EQ(index.candidates("g", "01"),
            std::vector<fs::path>{fresh->task_root / "g/01_first/complete.log"});
  EXPECT_TRUE(index.candidates("g", "02").empty());
}

// Given the archive's listing of a group (as the dry run's reading of the
// archived tasks gives it), the index takes that listing's word instead of
// listing and looking again: a log removed since still counts, one written
// since into a folder listed without one does not, and a folder made since
// is not seen. A group the listing does not cover is listed as before.
TEST(dependencies, the_index_takes_the_archive_listing_s_word) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path()) / "agent-task";
  dir.write("agent-task/archive/2026/12/g/01_first/complete.log", "done");
  dir.write("agent-task/archive/2026/12/g/02_second/notes.md", "no log");
  dir.write("agent-task/archive/2026/12/h/01_other/complete.log", "done");
  fs::create_directories(root / "g");
  fs::create_directories(root / "h");
  auto month = root / "archive" / "2026" / "12" / "g";
  completed_index index(root);
  index.know_archived(list_archived_folders(root, {"g"}));
  fs::remove(month / "01_first" / "complete.log");
  dir.write("agent-task/archive/2026/12/g/02_second/complete.log", "done");
  dir.write("agent-task/archive/2026/12/g/03_third/complete.log", "done");
  dir.write("agent-task/archive/2026/12/h/02_later/complete.log", "done");
  EXPECT_EQ(index.candidates("g", "01"),
            std::vector<fs::path>{month / "01_first" / "complete.log"});
  EXPECT_TRUE(index.candidates("g", "02").empty());
  EXPECT_TRUE(index.candidates("g", "03").empty());
  auto h = root / "archive" / "2026" / "12" / "h";
  EXPECT_EQ(index.candidates("h", "02"), std::vector<fs::path>{h / "02_later" / "complete.log"});
  completed_index untold(root);
  EXPECT_TRUE(untold.candidates("g", "01").empty());
  EXPECT_EQ(untold.candidates("g", "03"),
            std::vector<fs::path>{month / "03_third" / "complete.log"});
}

// The archive's folders of the groups asked for, month by month and group
// by group in the order asked, each group's folders sorted, with whether
// each holds complete.log; a link to a folder counts as a folder (its log
// looked up through it), a file or a log that is a dangling link does not
// count, and neither do other groups.
TEST(dependencies, the_archive_listing_says_which_folders_hold_complete_log) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path()) / "agent-task";
  dir.write("agent-task/archive/2026/11/g/02_b/complete.log", "done");
  dir.write("agent-task/archive/2026/11/g/01_a/notes.md", "no log");
  dir.write("agent-task/archive/2026/11/g/stray.txt", "a file");
  dir.write("agent-task/archive/2026/11/h/01_h/complete.log", "done");
  dir.write("agent-task/archive/2026/11/other/01_o/complete.log", "done");
  dir.write("agent-task/archive/2025/12/g/03_c/complete.log", "done");
  dir.write("elsewhere/04_d/complete.log", "done");
  fs::create_directories(root / "archive/2026/11/g/05_e");
  fs::create_symlink(root / "nothing.log", root / "archive/2026/11/g/05_e/complete.log");
  fs::create_directory_symlink(fs::canonical(dir.path()) / "elsewhere/04_d",
                               root / "archive/2026/11/g/04_d");
  auto listed = list_archived_folders(root, {"h", "g"});
  EXPECT_EQ(listed.groups, (std::vector<std::string>{"h", "g"}));
  std::vector<std::string> seen;
  for (const auto& f : listed.folders) {
    auto path = listed.folder_path(f);
    EXPECT_EQ(path.parent_path().filename(), listed.places.at(f.place).group);
    EXPECT_EQ(f.completed, fs::exists(path / "complete.log")) << f.name;
    seen.push_back(path.lexically_relative(root / "archive").generic_string() +
                   (f.completed ? " +" : " -"));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                    "2025/12/g/03_c +",
                    "2026/11/h/01_h +",
                    "2026/11/g/01_a -",
                    "2026/11/g/02_b +",
                    "2026/11/g/04_d +",
                    "2026/11/g/05_e -",
                  }));
  EXPECT_TRUE(list_archived_folders(root, {"nosuch"}).folders.empty());
  EXPECT_TRUE(list_archived_folders(fs::canonical(dir.path()) / "none", {"g"}).folders.empty());
}

// resolve_dependencies in its two steps: the running check, then the
// folders, answer as the one call does, whether or not a predecessor runs.
TEST(dependencies, the_running_check_and_the_folders_answer_as_the_whole) {
  auto ws = fs::canonical(fixture("basic"));
  auto scan = scan_workspace(ws);
  ASSERT_TRUE(scan.is_ok());
  const std::vector<std::set<std::string>> running_sets = {
    {}, {"alpha/02+01_ready"}, {"beta/02_x"}, {"alpha/04_dup_a", "alpha/02+01_ready"}};
  std::size_t running_seen = 0;
  for (const auto& running : running_sets) {
    completed_index whole(scan->task_root, scan->tasks);
    completed_index folders(scan->task_root, scan->tasks);
    for (const auto& task : scan->tasks) {
      auto expected = resolve_dependencies(whole, task, running);
      auto first = running_predecessors(task, running);
      auto got = first ? *first : settled_dependencies(folders, task);
      EXPECT_EQ(got.state, expected.state) << task.name;
      EXPECT_EQ(got.label(), expected.label()) << task.name;
      EXPECT_EQ(got.reason(), expected.reason()) << task.name;
      if (first) {
        ++running_seen;
        EXPECT_EQ(first->state, dependency_status::running) << task.name;
      }
    }
  }
  EXPECT_GE(running_seen, 2u) << "the fixture has a dependent of a running task";
  // No predecessors: never running, whatever runs.
  EXPECT_FALSE(running_predecessors(subtask("stages", "01_worker"), {"stages/00_x"}));
}

} // namespace
} // namespace ad::runtime

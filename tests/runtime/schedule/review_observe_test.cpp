#include "runtime/schedule/review_observe.hpp"

#include <gtest/gtest.h>
#include <map>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

void set_mtime(const fs::path& p, int seconds_from_now) {
  fs::last_write_time(p, fs::file_time_type::clock::now() + std::chrono::seconds(seconds_from_now));
}

TEST(review_observe, names_of_review_sources) {
  EXPECT_TRUE(is_review_log_name("code_review_cloud_G05_1.log"));
  EXPECT_FALSE(is_review_log_name("code_review_x.md"));
  EXPECT_FALSE(is_review_log_name("plan_cloud_G05_1.log"));
  EXPECT_TRUE(is_review_file_name("CODE_REVIEW-cloud-G05.md"));
  EXPECT_TRUE(is_review_file_name("CODE_REVIEW-local-G10.md"));
  EXPECT_FALSE(is_review_file_name("CODE_REVIEW-local-G11.md"));
  EXPECT_FALSE(is_review_file_name("CODE_REVIEW-local-G00.md"));
  EXPECT_FALSE(is_review_file_name("CODE_REVIEW-remote-G05.md"));
  EXPECT_FALSE(is_review_file_name("CODE_REVIEW-cloud-G05.md.bak"));
}

TEST(review_observe, finds_archive_folders_with_complete_log_only) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  ws.write("agent-task/archive/2026/10/g/01_a/complete.log", "done");
  ws.write("agent-task/archive/2026/11/g/01_a_2/complete.log", "done");
  ws.write("agent-task/archive/2026/11/g/01_a_x/complete.log", "done"); // not a _<k> suffix
  ws.write("agent-task/archive/2026/11/g/01_ab/complete.log", "done");  // another task
  ws.write("agent-task/archive/2026/11/g/01_a_3/notes.md", "no complete.log");
  ws.write("agent-task/archive/2026/11/solo/complete.log", "done");
  auto found = find_archived_task_folders(root, "g/01_a");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], root / "archive/2026/10/g/01_a");
  EXPECT_EQ(found[1], root / "archive/2026/11/g/01_a_2");
  auto solo = find_archived_task_folders(root, "solo");
  ASSERT_EQ(solo.size(), 1u);
  EXPECT_EQ(solo[0], root / "archive/2026/11/solo");
  EXPECT_TRUE(find_archived_task_folders(root, "a/b/c").empty());
  EXPECT_TRUE(find_archived_task_folders(ws.path() / "nowhere", "g/01_a").empty());
}

// Asked for many tasks at once, each task's folders are those it is found
// with alone: across years and months, with and without a group, with a
// `_<k>` suffix, a leaf that itself ends in `_<digits>`, and names asked
// for twice or that cannot be archived.
TEST(review_observe, archive_folders_of_many_tasks_are_those_of_each_alone) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  for (const char* f : {"archive/2025/12/g/01_a/complete.log", "archive/2026/11/g/01_a_2/complete.log",
                        "archive/2026/11/g/01_a_x/complete.log", "archive/2026/11/g/01_ab/complete.log",
                        "archive/2026/11/g/03_4/complete.log", "archive/2026/11/g/03_4_1/complete.log",
                        "archive/2026/11/g/03/complete.log", "archive/2026/11/h/01_a/complete.log",
                        "archive/2026/11/solo/complete.log", "archive/2026/11/solo_7/complete.log",
                        "archive/2026/11/g/_5/complete.log"})
    ws.write(std::string("agent-task/") + f, "done");
  ws.write("agent-task/archive/2026/11/g/02_b/notes.md", "no complete.log");
  std::vector<std::string> names = {"g/01_a", "g/01_ab", "g/02_b", "g/03", "g/03_4", "h/01_a",
                                    "solo", "g", "g/", "a/b/c", "", "g/01_a", "h/09_none"};
  auto all = find_archived_task_folders(root, names);
  std::map<std::string, std::vector<fs::path>> alone;
  for (const auto& name : names)
    if (auto found = find_archived_task_folders(root, std::string_view(name)); !found.empty())
      alone[name] = found;
  EXPECT_EQ(all, alone);
  EXPECT_EQ(all["g/01_a"], (std::vector<fs::path>{root / "archive/2025/12/g/01_a",
                                                  root / "archive/2026/11/g/01_a_2"}));
  EXPECT_EQ(all["g/03"], (std::vector<fs::path>{root / "archive/2026/11/g/03",
                                                root / "archive/2026/11/g/03_4"}));
  EXPECT_EQ(all["g/03_4"], (std::vector<fs::path>{root / "archive/2026/11/g/03_4",
                                                  root / "archive/2026/11/g/03_4_1"}));
  EXPECT_EQ(all["solo"], (std::vector<fs::path>{root / "archive/2026/11/solo",
                                                root / "archive/2026/11/solo_7"}));
  EXPECT_EQ(all["g/"], (std::vector<fs::path>{root / "archive/2026/11/g/_5"}));
  EXPECT_EQ(all.size(), 7u);  // not g/02_b, a/b/c, "", h/09_none; g is a group, not a task folder
  EXPECT_TRUE(find_archived_task_folders(ws.path() / "nowhere", names).empty());
}

TEST(review_observe, before_and_after_a_follow_up_review) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  auto old_log = ws.write("agent-task/g/01_a/code_review_cloud_G05_1.log",
                          "## Code Review Result\nOverall Verdict: FAIL\n");
  set_mtime(old_log, -100);
  ws.write("agent-task/g/01_a/CODE_REVIEW-cloud-G05.md", "# review\n");
  ws.write("agent-task/g/01_a/PLAN-cloud-G05.md", "# plan\n");
  auto before = observe_review(root, "g/01_a");
  ASSERT_TRUE(before.is_ok()) << before.error().to_string();
  ASSERT_EQ(before->folders.size(), 1u);
  EXPECT_EQ(before->folders[0].sources.size(), 2u);
  EXPECT_EQ(before->folders[0].sources[0].kind, review_source_kind::review_log);
  EXPECT_EQ(before->folders[0].sources[1].kind, review_source_kind::review_file);
  auto seen = collect_seen_sources(*before);

  // The reviewer keeps its verdict in a new log and starts a new generation.
  ws.write("agent-task/g/01_a/code_review_cloud_G05_2.log", "## Code Review Result\nOverall Verdict: WARN\n");
  ws.write("agent-task/g/01_a/CODE_REVIEW-cloud-G05.md", "# review, generation 2\n");
  auto after = observe_review(root, "g/01_a");
  ASSERT_TRUE(after.is_ok());
  auto outcome = classify_review_outcome(*after, seen, (root / "g/01_a").string());
  EXPECT_EQ(outcome.kind, review_outcome_kind::follow_up);
  EXPECT_EQ(outcome.verdict, review_verdict::warn);
  EXPECT_EQ(outcome.review_log, (root / "g/01_a/code_review_cloud_G05_2.log").string());
}

TEST(review_observe, a_pass_review_that_archived_the_folder_completes) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  ws.write("agent-task/g/01_a/CODE_REVIEW-cloud-G05.md", "# review\n");
  auto before = observe_review(root, "g/01_a");
  ASSERT_TRUE(before.is_ok());
  auto seen = collect_seen_sources(*before);

  ws.write("agent-task/archive/2026/11/g/01_a/code_review_cloud_G05_1.log",
           "## Code Review Result\nOverall Verdict: PASS\n");
  ws.write("agent-task/archive/2026/11/g/01_a/complete.log", "done\n");
  fs::remove_all(root / "g/01_a");
  auto after = observe_review(root, "g/01_a");
  ASSERT_TRUE(after.is_ok());
  ASSERT_EQ(after->folders.size(), 1u);
  EXPECT_EQ(after->folders[0].place, review_folder_place::archive);
  auto outcome = classify_review_outcome(*after, seen, (root / "g/01_a").string());
  EXPECT_EQ(outcome.kind, review_outcome_kind::archived);
  EXPECT_EQ(settle_review(outcome).next, review_next::complete);
  EXPECT_EQ(outcome.folder, (root / "archive/2026/11/g/01_a").string());
}

// A group that is itself one task: its folder is also where the group's
// WORK_LOG.md lives, and the FINISH row of the review re-creates it after
// the reviewer archived the task.
TEST(review_observe, a_group_task_archived_beside_its_recreated_work_log_completes) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  ws.write("agent-task/infra/CODE_REVIEW-cloud-G07.md", "# review\n");
  ws.write("agent-task/infra/WORK_LOG.md", "| seq |\n");
  auto before = observe_review(root, "infra");
  ASSERT_TRUE(before.is_ok());
  auto seen = collect_seen_sources(*before);

  ws.write("agent-task/archive/2026/11/infra/code_review_cloud_G07_1.log",
           "## Code Review Result\nOverall Verdict: PASS\n");
  ws.write("agent-task/archive/2026/11/infra/complete.log", "done\n");
  fs::remove_all(root / "infra");
  ws.write("agent-task/infra/WORK_LOG.md", "| seq |\n| 2 | FINISH |\n");
  auto after = observe_review(root, "infra");
  ASSERT_TRUE(after.is_ok());
  ASSERT_EQ(after->folders.size(), 1u);
  EXPECT_EQ(after->folders[0].place, review_folder_place::archive);
  auto outcome = classify_review_outcome(*after, seen, (root / "infra").string());
  EXPECT_EQ(outcome.kind, review_outcome_kind::archived);
  EXPECT_EQ(settle_review(outcome).next, review_next::complete);

  // Without an archive the folder is still observed as the task.
  ws.write("agent-task/solo/WORK_LOG.md", "| seq |\n");
  auto solo = observe_review(root, "solo");
  ASSERT_TRUE(solo.is_ok());
  ASSERT_EQ(solo->folders.size(), 1u);
  EXPECT_EQ(solo->folders[0].place, review_folder_place::active);
}

TEST(review_observe, a_review_that_changed_nothing_is_changed) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  ws.write("agent-task/g/01_a/code_review_cloud_G05_1.log", "## Code Review Result\nOverall Verdict: FAIL\n");
  ws.write("agent-task/g/01_a/CODE_REVIEW-cloud-G05.md", "# review\n");
  auto before = observe_review(root, "g/01_a");
  ASSERT_TRUE(before.is_ok());
  auto outcome = classify_review_outcome(*before, collect_seen_sources(*before), "x");
  EXPECT_EQ(outcome.kind, review_outcome_kind::changed);
  EXPECT_EQ(settle_review(outcome).next, review_next::error);
}

TEST(review_observe, a_missing_task_without_archive_is_empty) {
  test::temp_dir ws;
  auto obs = observe_review(ws.path() / "agent-task", "g/01_a");
  ASSERT_TRUE(obs.is_ok());
  EXPECT_TRUE(obs->folders.empty());
}

} // namespace
} // namespace ad::runtime

namespace ad::runtime {
namespace {

TEST(review_observe, an_injected_reader_decides_the_verdicts) {
  test::temp_dir ws;
  auto root = ws.path() / "agent-task";
  ws.write("agent-task/g/01_a/code_review_cloud_G05_1.log", "no parsable verdict here");
  ws.write("agent-task/g/01_a/CODE_REVIEW-cloud-G05.md", "# review\n");
  auto by_default = observe_review(root, "g/01_a");
  ASSERT_TRUE(by_default.is_ok());
  EXPECT_FALSE(by_default->folders[0].sources[0].verdict.has_value());
  auto injected = observe_review(root, "g/01_a", [](const std::filesystem::path& p) {
    return is_review_log_name(p.filename().string()) ? std::optional(review_verdict::fail) : std::nullopt;
  });
  ASSERT_TRUE(injected.is_ok());
  EXPECT_EQ(injected->folders[0].sources[0].verdict, review_verdict::fail);
  EXPECT_FALSE(injected->folders[0].sources[1].verdict.has_value());
  auto outcome = classify_review_outcome(*injected, {}, "x");
  EXPECT_EQ(outcome.kind, review_outcome_kind::follow_up);
}

} // namespace
} // namespace ad::runtime

#include "runtime/schedule/review_progress.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

std::string signature_of(const fs::path& dir, const std::vector<std::string>& write_set) {
  auto snap = snapshot_review_progress(dir, write_set);
  EXPECT_TRUE(snap.is_ok()) << snap.error().to_string();
  return snap ? progress_signature(*snap) : std::string();
}

TEST(review_progress, signature_tracks_review_files_and_write_set_only) {
  test::temp_dir ws;
  auto dir = ws.path() / "agent-task/g/01_a";
  ws.write("agent-task/g/01_a/PLAN-cloud-G05.md", "plan");
  ws.write("agent-task/g/01_a/CODE_REVIEW-cloud-G05.md", "review");
  auto target = ws.write("src/a.cpp", "int a;");
  std::vector<std::string> write_set = {target.string(), (ws.path() / "src/new.cpp").string()};

  auto base = signature_of(dir, write_set);
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(signature_of(dir, write_set), base) << "stable when nothing changes";

  ws.write("agent-task/g/01_a/notes.txt", "not a review file");
  ws.write("src/unrelated.cpp", "outside the write set");
  EXPECT_EQ(signature_of(dir, write_set), base);

  ws.write("agent-task/g/01_a/code_review_cloud_G05_1.log", "verdict");
  auto with_log = signature_of(dir, write_set);
  EXPECT_NE(with_log, base);

  ws.write("src/new.cpp", "created by the review");
  auto with_new = signature_of(dir, write_set);
  EXPECT_NE(with_new, with_log);

  ws.write("src/a.cpp", "int b;"); // same size, new content
  EXPECT_NE(signature_of(dir, write_set), with_new);
}

TEST(review_progress, a_touched_file_changes_the_signature) {
  test::temp_dir ws;
  auto dir = ws.path() / "agent-task/g/01_a";
  auto plan = ws.write("agent-task/g/01_a/PLAN-cloud-G05.md", "plan");
  auto base = signature_of(dir, {});
  fs::last_write_time(plan, fs::last_write_time(plan) + std::chrono::seconds(5));
  EXPECT_NE(signature_of(dir, {}), base);
}

TEST(review_progress, a_moved_folder_signs_as_moved_and_order_does_not_matter) {
  test::temp_dir ws;
  EXPECT_EQ(signature_of(ws.path() / "agent-task/g/gone", {}), "moved");
  progress_snapshot a;
  a.task_files = {{"b.log", progress_entry_kind::file, 1, 2, "x"}, {"a.log", progress_entry_kind::file, 1, 2, "y"}};
  progress_snapshot b;
  b.task_files = {a.task_files[1], a.task_files[0]};
  EXPECT_EQ(progress_signature(a), progress_signature(b));
  // The same entry in the task folder or in the write set is not the same.
  progress_snapshot c;
  c.write_set = a.task_files;
  EXPECT_NE(progress_signature(a), progress_signature(c));
}

TEST(review_progress, a_directory_in_the_write_set_is_other_not_an_error) {
  test::temp_dir ws;
  ws.write("agent-task/g/01_a/PLAN-cloud-G05.md", "plan");
  fs::create_directories(ws.path() / "src/dir");
  auto snap = snapshot_review_progress(ws.path() / "agent-task/g/01_a", {(ws.path() / "src/dir").string()});
  ASSERT_TRUE(snap.is_ok());
  ASSERT_EQ(snap->write_set.size(), 1u);
  EXPECT_EQ(snap->write_set[0].kind, progress_entry_kind::other);
}

struct step_row {
  int prior;
  bool same;
  progress_action action;
  int count;
  millis pause;
  std::string reason;
};

TEST(review_progress, counter_pauses_longer_each_time_then_blocks) {
  no_progress_policy policy; // limit 10, 5 s steps, 30 s cap
  std::vector<step_row> table = {
      {0, false, progress_action::progressed, 0, 0, ""},
      {7, false, progress_action::progressed, 0, 0, ""},
      {0, true, progress_action::pause, 1, 5000, "review made no progress: 1/10 unchanged reviews, pausing 5 s"},
      {1, true, progress_action::pause, 2, 10000, "review made no progress: 2/10 unchanged reviews, pausing 10 s"},
      {6, true, progress_action::pause, 7, 30000, "review made no progress: 7/10 unchanged reviews, pausing 30 s"},
      {8, true, progress_action::pause, 9, 30000, "review made no progress: 9/10 unchanged reviews, pausing 30 s"},
      {9, true, progress_action::block, 10, 0, "review made no progress: 10/10 unchanged reviews"},
  };
  for (const auto& r : table) {
    auto step = after_review(r.prior, "sig-a", r.same ? "sig-a" : "sig-b", policy);
    EXPECT_EQ(step.action, r.action) << r.prior;
    EXPECT_EQ(step.count, r.count) << r.prior;
    EXPECT_EQ(step.pause, r.pause) << r.prior;
    EXPECT_EQ(step.reason, r.reason) << r.prior;
  }
}

TEST(review_progress, policy_limit_applies_before_and_after) {
  no_progress_policy policy;
  policy.limit = 3;
  EXPECT_FALSE(no_progress_exhausted(2, policy).has_value());
  auto reason = no_progress_exhausted(3, policy);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason, "review no-progress limit already reached: 3/3 unchanged reviews");
  EXPECT_EQ(after_review(2, "s", "s", policy).action, progress_action::block);
  EXPECT_EQ(after_review(1, "s", "s", policy).action, progress_action::pause);
}

} // namespace
} // namespace ad::runtime

#include "runtime/worklog/work_log_archive.hpp"

#include <gtest/gtest.h>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

work_log_row row(uint64_t seq, std::string time, std::string event, std::string task,
                 std::string role, int attempt, std::string result = "running") {
  return {seq, std::move(time), std::move(event), std::move(task), std::move(role), attempt,
          "codex/gpt", std::move(result), "/runs/" + std::to_string(attempt) + "/locator.json"};
}

std::string render(const std::vector<work_log_row>& rows) { return render_work_log(rows); }

TEST(work_log_archive_readiness, needs_every_task_complete_and_none_running) {
  EXPECT_EQ(judge_work_log_archive({}).kind, archive_readiness_kind::not_ready);
  std::vector<group_task_view> tasks = {
    {"g/01_a", group_task_completion::complete, group_task_activity::idle},
    {"g/02_b", group_task_completion::incomplete, group_task_activity::idle}};
  auto r = judge_work_log_archive(tasks);
  EXPECT_EQ(r.kind, archive_readiness_kind::not_ready);
  EXPECT_NE(r.reason.find("g/02_b"), std::string::npos);
  tasks[1].completion = group_task_completion::complete;
  tasks[1].activity = group_task_activity::running;
  EXPECT_NE(judge_work_log_archive(tasks).reason.find("running"), std::string::npos);
  tasks[1].activity = group_task_activity::idle;
  EXPECT_EQ(judge_work_log_archive(tasks).kind, archive_readiness_kind::ready);
}

TEST(work_log_archive_close, finds_and_closes_open_starts) {
  std::vector<work_log_row> rows = {
    row(1, "t1", "START", "g/01_a", "worker", 1),
    row(2, "t2", "FINISH", "g/01_a", "worker", 1, "failed:generic-error"),
    row(3, "t3", "START", "g/01_a", "worker", 2),
    row(4, "t4", "START", "g/01_a", "review", 1),
    row(5, "t5", "START", "g/02_b", "worker", 1),
    row(6, "t6", "FINISH", "g/02_b", "worker", 1, "succeeded"),
  };
  auto open = open_work_log_attempts(rows);
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0].seq, 3u);
  EXPECT_EQ(open[1].seq, 4u);
  auto closed = close_open_work_log_attempts(rows, "t9");
  ASSERT_EQ(closed.size(), 8u);
  EXPECT_EQ(closed[6].seq, 7u);
  EXPECT_EQ(closed[6].event, "FINISH");
  EXPECT_EQ(closed[6].role, "worker");
  EXPECT_EQ(closed[6].attempt, 2);
  EXPECT_EQ(closed[6].result, reconciled_archive_result);
  EXPECT_EQ(closed[6].time, "t9");
  EXPECT_EQ(closed[6].locator, rows[2].locator);
  EXPECT_EQ(closed[7].seq, 8u);
  EXPECT_EQ(closed[7].role, "review");
  EXPECT_TRUE(open_work_log_attempts(closed).empty());
  EXPECT_EQ(close_open_work_log_attempts(closed, "t10").size(), closed.size());
}

TEST(work_log_archive_merge, keeps_each_row_once_in_time_order) {
  std::vector<work_log_row> live = {row(1, "2026-11-01T00:00:01Z", "START", "g", "worker", 1),
                                    row(2, "2026-11-01T00:00:05Z", "FINISH", "g", "worker", 1,
                                        "succeeded"),
                                    row(3, "2026-11-01T00:00:09Z", "START", "g", "review", 1)};
  // A copy that moved with the task folder: the first row, plus one row the
  // live log never saw; its seq numbers clash with the live ones.
  std::vector<work_log_row> copy = {row(1, "2026-11-01T00:00:01Z", "START", "g", "worker", 1),
                                    row(2, "2026-11-01T00:00:07Z", "START", "g", "selfcheck", 1)};
  auto merged = merge_work_log_sources({{"live", parse_work_log(render(live))},
                                        {"copy", parse_work_log(render(copy))}});
  ASSERT_TRUE(merged.is_ok()) << merged.error().to_string();
  ASSERT_EQ(merged->size(), 4u);
  std::vector<std::string> roles;
  for (std::size_t i = 0; i < merged->size(); ++i) {
    EXPECT_EQ((*merged)[i].seq, i + 1);
    roles.push_back((*merged)[i].role + ":" + (*merged)[i].event);
  }
  EXPECT_EQ(roles, (std::vector<std::string>{"worker:START", "worker:FINISH", "selfcheck:START",
                                             "review:START"}));
}

TEST(work_log_archive_merge, a_conflict_refuses_with_a_reason) {
  std::vector<work_log_row> a = {row(4, "t1", "FINISH", "g/01_a", "worker", 1, "succeeded")};
  std::vector<work_log_row> b = {row(4, "t1", "FINISH", "g/01_a", "worker", 1, "failed:x")};
  auto merged = merge_work_log_sources({{"a.md", parse_work_log(render(a))},
                                        {"b.md", parse_work_log(render(b))}});
  ASSERT_FALSE(merged.is_ok());
  EXPECT_TRUE(merged.error().is_conflict());
  EXPECT_NE(merged.error().message().find("g/01_a"), std::string::npos);
  EXPECT_NE(merged.error().message().find("a.md"), std::string::npos);
  EXPECT_NE(merged.error().message().find("b.md"), std::string::npos);
}

TEST(work_log_archive_merge, claim_rows_of_one_attempt_are_kept_per_path_and_leave_starts_open) {
  std::vector<work_log_row> live = {
    row(1, "2026-11-01T00:00:01Z", "START", "g/01_a", "worker", 1),
    row(2, "2026-11-01T00:00:02Z", "CLAIM", "g/01_a", "worker", 1, "/ws/README.md"),
    row(3, "2026-11-01T00:00:03Z", "CLAIM", "g/01_a", "worker", 1, "/ws/Makefile")};
  // The copy saw the first CLAIM row too.
  std::vector<work_log_row> copy = {live[1]};
  auto merged = merge_work_log_sources({{"live", parse_work_log(render(live))},
                                        {"copy", parse_work_log(render(copy))}});
  ASSERT_TRUE(merged.is_ok()) << merged.error().to_string();
  ASSERT_EQ(merged->size(), 3u);
  EXPECT_EQ((*merged)[1].result, "/ws/README.md");
  EXPECT_EQ((*merged)[2].result, "/ws/Makefile");
  // A CLAIM row neither opens nor closes an attempt.
  auto open = open_work_log_attempts(*merged);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].event, "START");
}

TEST(work_log_archive_merge, foreign_content_or_events_refuse) {
  auto doc = parse_work_log(render({row(1, "t", "START", "g", "worker", 1)}) + "hand-written note\n");
  auto merged = merge_work_log_sources({{"x.md", doc}});
  ASSERT_FALSE(merged.is_ok());
  EXPECT_NE(merged.error().message().find("x.md line"), std::string::npos);
  auto odd = merge_work_log_sources(
    {{"y.md", parse_work_log(render({row(1, "t", "PAUSE", "g", "worker", 1)}))}});
  ASSERT_FALSE(odd.is_ok());
  EXPECT_NE(odd.error().message().find("PAUSE"), std::string::npos);
}

TEST(work_log_archive_naming, next_number_and_folder) {
  EXPECT_EQ(next_work_log_archive_number({}), 0u);
  EXPECT_EQ(next_work_log_archive_number({"work_log_0.log", "work_log_4.log", "complete.log",
                                          "work_log_x.log", "work_log_.log"}),
            5u);
  manual_clock clk(0);
  auto t = parse_utc_iso("2026-03-15T10:00:00Z");
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(work_log_archive_dir("/ws", "auth", *t),
            fs::path("/ws/agent-task/archive/2026/03/auth"));
}

class work_log_archive_files : public ::testing::Test {
protected:
  void SetUp() override {
    auto t = parse_utc_iso("2026-11-29T12:00:00Z");
    ASSERT_TRUE(t.is_ok());
    clk_.set(*t);
  }
  test::temp_dir dir_;
  manual_clock clk_;
};

TEST_F(work_log_archive_files, moves_merges_closes_and_numbers_after_earlier_archives) {
  auto live = dir_.write("agent-task/g/WORK_LOG.md",
                         render({row(1, "2026-11-29T10:00:00Z", "START", "g/01_a", "worker", 1),
                                 row(2, "2026-11-29T10:30:00Z", "START", "g/02_b", "worker", 1),
                                 row(3, "2026-11-29T10:40:00Z", "FINISH", "g/02_b", "worker", 1,
                                     "succeeded")}));
  auto copy = dir_.write("agent-task/archive/2026/11/g/01_a/WORK_LOG.md",
                         render({row(1, "2026-11-29T10:00:00Z", "START", "g/01_a", "worker", 1)}));
  dir_.write("agent-task/archive/2026/10/g_2/work_log_0.log", "older\n");
  dir_.write("agent-task/archive/2026/10/gx/work_log_7.log", "another group\n");

  work_log_archive_request req{dir_.path(), "g", {copy}, {}};
  auto dest = archive_work_log(req, clk_);
  ASSERT_TRUE(dest.is_ok()) << dest.error().to_string();
  EXPECT_EQ(*dest, dir_.path() / "agent-task/archive/2026/11/g/work_log_1.log");
  EXPECT_FALSE(fs::exists(live));
  EXPECT_FALSE(fs::exists(copy));
  auto doc = parse_work_log(*read_file(*dest));
  EXPECT_TRUE(doc.foreign.empty());
  ASSERT_EQ(doc.rows.size(), 4u);
  EXPECT_EQ(doc.rows[3].event, "FINISH");
  EXPECT_EQ(doc.rows[3].task, "g/01_a");
  EXPECT_EQ(doc.rows[3].result, reconciled_archive_result);
  EXPECT_EQ(doc.rows[3].seq, 4u);

  // A later timeline starts a new live log and archives to the next number.
  ASSERT_TRUE(append_work_log(live, {"START", "g/03_c", "worker", 1, "m", "running", "/l"}, clk_));
  ASSERT_TRUE(append_work_log(live, {"FINISH", "g/03_c", "worker", 1, "m", "succeeded", "/l"}, clk_));
  auto second = archive_work_log({dir_.path(), "g", {}, {}}, clk_);
  ASSERT_TRUE(second.is_ok()) << second.error().to_string();
  EXPECT_EQ(second->filename(), "work_log_2.log");
}

TEST_F(work_log_archive_files, a_conflict_leaves_every_source_in_place) {
  auto live = dir_.write("agent-task/g/WORK_LOG.md",
                         render({row(1, "t1", "FINISH", "g", "worker", 1, "succeeded")}));
  auto copy = dir_.write("agent-task/archive/2026/11/g/WORK_LOG.md",
                         render({row(1, "t1", "FINISH", "g", "worker", 1, "failed:x")}));
  auto dest = archive_work_log({dir_.path(), "g", {copy}, {}}, clk_);
  ASSERT_FALSE(dest.is_ok());
  EXPECT_TRUE(dest.error().is_conflict());
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(copy));
  EXPECT_FALSE(fs::exists(dir_.path() / "agent-task/archive/2026/11/g/work_log_0.log"));
}

// The repro of the full disk: a FINISH row cut mid-line, then the whole row
// (an older writer glued it on). Every restart exited 3 with "line 22 is not
// a timeline row". The cut row is kept beside the archive, named in it, and
// the timeline holds the row once.
TEST_F(work_log_archive_files, a_torn_row_is_kept_aside_and_named_not_a_conflict) {
  std::string finish = render({row(2, "2026-11-29T10:40:00Z", "FINISH", "g/01_a", "worker", 1,
                                   "succeeded")});
  std::string finish_row = finish.substr(finish.rfind("| 2 |"));
  auto live = dir_.write("agent-task/g/WORK_LOG.md",
                         render({row(1, "2026-11-29T10:00:00Z", "START", "g/01_a", "worker", 1)}) +
                           finish_row.substr(0, 30) + "\n" + finish_row);
  dir_.write("agent-task/g/WORK_LOG.md.torn", "2026-11-29T11:00:00.000Z earlier: | 9 | t\n");
  auto dest = archive_work_log({dir_.path(), "g", {}, {}}, clk_);
  ASSERT_TRUE(dest.is_ok()) << dest.error().to_string();
  auto text = *read_file(*dest);
  auto doc = parse_work_log(text);
  EXPECT_TRUE(doc.foreign.empty());
  EXPECT_TRUE(doc.torn.empty());
  ASSERT_EQ(doc.rows.size(), 2u);
  EXPECT_EQ(doc.rows[1].result, "succeeded");
  EXPECT_NE(text.find("> " + live.string() + " line 8 was cut short by a write that did not finish"),
            std::string::npos)
    << text;
  auto side = read_file(work_log_torn_path(*dest));
  ASSERT_TRUE(side.is_ok());
  EXPECT_NE(side->find(live.string() + " line 8: " + finish_row.substr(0, 30)), std::string::npos)
    << *side;
  EXPECT_NE(side->find("earlier: | 9 | t"), std::string::npos) << *side;
  EXPECT_FALSE(fs::exists(live));
  EXPECT_FALSE(fs::exists(work_log_torn_path(live)));
}

TEST_F(work_log_archive_files, nothing_to_archive_is_not_found) {
  auto dest = archive_work_log({dir_.path(), "g", {dir_.path() / "nope.md"}, {}}, clk_);
  ASSERT_FALSE(dest.is_ok());
  EXPECT_TRUE(dest.error().is_not_found());
}

TEST_F(work_log_archive_files, an_explicit_target_folder_is_used) {
  dir_.write("agent-task/g/WORK_LOG.md", render({row(1, "t1", "START", "g", "worker", 1)}));
  fs::path target = dir_.path() / "agent-task/archive/2026/09/g_1";
  auto dest = archive_work_log({dir_.path(), "g", {}, target}, clk_);
  ASSERT_TRUE(dest.is_ok()) << dest.error().to_string();
  EXPECT_EQ(*dest, target / "work_log_0.log");
}

} // namespace
} // namespace ad::runtime

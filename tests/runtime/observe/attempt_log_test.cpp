#include "runtime/observe/attempt_log.hpp"

#include <gtest/gtest.h>

#include "runtime/worklog/work_log.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(read_log_page, reads_whole_lines_a_page_at_a_time_to_the_end) {
  test::temp_dir dir;
  auto file = dir.write("stream.log", "one\ntwo\nthree\n");
  auto first = read_log_page(file, 0, 10);  // "one\ntwo\nth": cut after "two\n"
  ASSERT_TRUE(first.is_ok()) << first.error().to_string();
  EXPECT_EQ(first->text, "one\ntwo\n");
  EXPECT_EQ(first->size, 14u);
  EXPECT_EQ(first->next_offset, 8u);
  EXPECT_FALSE(first->eof);
  auto second = read_log_page(file, first->next_offset, 10);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second->text, "three\n");
  EXPECT_TRUE(second->eof);
  auto past = read_log_page(file, 1000, 10);
  ASSERT_TRUE(past.is_ok());
  EXPECT_EQ(past->text, "");
  EXPECT_EQ(past->offset, 14u);
  EXPECT_TRUE(past->eof);
}

TEST(read_log_page, a_line_longer_than_the_page_comes_in_pieces_and_the_page_is_capped) {
  test::temp_dir dir;
  auto file = dir.write("stream.log", std::string(max_log_page_bytes + 100, 'x') + "\n");
  auto page = read_log_page(file, 0, max_log_page_bytes * 4);
  ASSERT_TRUE(page.is_ok());
  EXPECT_EQ(page->text.size(), max_log_page_bytes) << "never more than a page in memory";
  auto rest = read_log_page(file, page->next_offset, max_log_page_bytes);
  ASSERT_TRUE(rest.is_ok());
  EXPECT_EQ(rest->text.size(), 101u);
  EXPECT_TRUE(rest->eof);
  EXPECT_TRUE(read_log_page(dir.path() / "none.log", 0, 10).error().is_not_found());
}

TEST(attempt_log_page, finds_the_attempt_by_identity_and_refuses_what_is_not_one) {
  test::temp_dir runs;
  runs.write("20270115T080000Z__g__01_a__p1__worker__a01/normalized-output.log", "tool: Read\n");
  auto page = attempt_log_page(runs.path().string(), "g__01_a__p1__worker__a01", "output", 0,
                               default_log_page_bytes);
  ASSERT_TRUE(page.is_ok()) << page.error().to_string();
  EXPECT_EQ((*page)["text"], "tool: Read\n");
  EXPECT_EQ((*page)["file"], "normalized-output.log");
  EXPECT_EQ((*page)["identity"], "g__01_a__p1__worker__a01");
  EXPECT_TRUE(attempt_log_page(runs.path().string(), "g__01_a__p1__worker__a01", "stream", 0, 10)
                .error()
                .is_not_found());
  EXPECT_TRUE(attempt_log_page(runs.path().string(), "g__09_z__p1__worker__a01", "output", 0, 10)
                .error()
                .is_not_found());
  auto bad_file = attempt_log_page(runs.path().string(), "g__01_a__p1__worker__a01", "locator", 0, 10);
  EXPECT_TRUE(bad_file.error().is_invalid_argument());
  EXPECT_EQ(bad_file.error().message(),
            "file=locator: expected stream (stream.log) or output (normalized-output.log)");
  EXPECT_TRUE(attempt_log_page(runs.path().string(), "..", "output", 0, 10).error().is_invalid_argument());
  EXPECT_FALSE(is_attempt_identity("../etc"));
  EXPECT_FALSE(is_attempt_identity("a/b"));
  EXPECT_TRUE(is_attempt_identity("g__01_a__p1__worker__a01"));
}

TEST(task_work_log_rows, are_the_tasks_rows_of_its_group_log_newest_kept) {
  test::temp_dir ws;
  std::string log = work_log_header();
  for (int i = 1; i <= 4; ++i)
    log += format_work_log_row({static_cast<uint64_t>(i), "2027-01-15T08:00:0" + std::to_string(i) + ".000Z",
                                i % 2 ? "START" : "FINISH", "g/01_a", "worker",
                                (i + 1) / 2, "m", i % 2 ? "running" : "succeeded", "/s/runs/x/locator.json"});
  log += format_work_log_row({5, "2027-01-15T08:00:05.000Z", "START", "g/02_b", "worker", 1, "m",
                              "running", "/s/runs/y/locator.json"});
  ws.write("agent-task/g/WORK_LOG.md", log);
  auto rows = task_work_log_rows(ws.path(), "g/01_a", 3);
  ASSERT_EQ(rows.size(), 3u) << rows.dump(2);
  EXPECT_EQ(rows[0]["seq"], 2);
  EXPECT_EQ(rows[2]["seq"], 4);
  EXPECT_EQ(rows[2]["event"], "FINISH");
  EXPECT_EQ(rows[2]["result"], "succeeded");
  EXPECT_EQ(task_work_log_rows(ws.path(), "h/01_none"), json::array());
}

TEST(task_work_log_rows, a_completed_groups_rows_are_read_from_its_archived_logs) {
  test::temp_dir ws;
  auto row = [](uint64_t seq, const char* event) {
    return format_work_log_row({seq, "2027-01-15T08:00:00.000Z", event, "g/01_a", "worker", 1, "m",
                                "", "/s/runs/x/locator.json"});
  };
  ws.write("agent-task/archive/2026/12/g/work_log_0.log", work_log_header() + row(1, "START"));
  ws.write("agent-task/archive/2027/01/g/work_log_10.log", work_log_header() + row(3, "KILL"));
  ws.write("agent-task/archive/2027/01/g/work_log_2.log", work_log_header() + row(2, "FINISH"));
  ws.write("agent-task/archive/2027/01/h/work_log_0.log", work_log_header() + row(9, "START"));
  auto rows = task_work_log_rows(ws.path(), "g/01_a");
  ASSERT_EQ(rows.size(), 3u) << rows.dump(2);
  EXPECT_EQ(rows[0]["event"], "START");
  EXPECT_EQ(rows[1]["event"], "FINISH") << "work_log_2 before work_log_10";
  EXPECT_EQ(rows[2]["event"], "KILL");
}

} // namespace
} // namespace ad::runtime

#include "runtime/worklog/work_log.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

work_log_event start_event(const std::string& task, int attempt) {
  return {"START", task, "worker", attempt, "claude/opus", "running",
          "/state/runs/x__a0" + std::to_string(attempt) + "/locator.json"};
}

TEST(work_log_cells, escape_and_parse_round_trip) {
  work_log_row row{7, "2026-11-29T13:00:00.000Z", "FINISH", "g/01_a|b", "worker", 2,
                   "m\\odel", "failed:generic|error\nline2", "/p/a b/locator.json"};
  std::string line = format_work_log_row(row);
  EXPECT_EQ(line.find('\n'), line.size() - 1); // one line
  auto doc = parse_work_log(work_log_header() + line);
  EXPECT_TRUE(doc.foreign.empty());
  ASSERT_EQ(doc.rows.size(), 1u);
  work_log_row expected = row;
  expected.result = "failed:generic|error line2";
  EXPECT_EQ(doc.rows[0], expected);
}

TEST(work_log_cells, escapes_pipes_backslashes_and_newlines) {
  EXPECT_EQ(escape_work_log_cell("a|b\\c\r\nd"), "a\\|b\\\\c  d");
  std::vector<std::string> cells;
  EXPECT_TRUE(split_work_log_cells("| a | b\\|c | d\\\\ |", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{"a", "b|c", "d\\"}));
  EXPECT_FALSE(split_work_log_cells("not a row", cells));
  EXPECT_FALSE(split_work_log_cells("| open row", cells));
}

TEST(work_log_parse, reports_foreign_lines_and_skips_headers) {
  std::string text = work_log_header() +
                     "| 1 | t | START | g/01_a | worker | 1 | m | running | /l |\n"
                     "some prose a human added\n"
                     "| x | t | START | g/01_a | worker | 1 | m | running | /l |\n";
  auto doc = parse_work_log(text);
  ASSERT_EQ(doc.rows.size(), 1u);
  ASSERT_EQ(doc.foreign.size(), 2u);
  EXPECT_EQ(doc.foreign[0].text, "some prose a human added");
  EXPECT_EQ(doc.foreign[0].line_number, 8u);
}

TEST(work_log_append, writes_the_header_once_and_increases_seq) {
  test::temp_dir dir;
  manual_clock clk(1796000000000);
  fs::path log = work_log_path(dir.path(), "auth");
  EXPECT_EQ(log, dir.path() / "agent-task" / "auth" / "WORK_LOG.md");
  auto a = append_work_log(log, start_event("auth/01_a", 1), clk);
  ASSERT_TRUE(a.is_ok()) << a.error().to_string();
  EXPECT_EQ(a->seq, 1u);
  EXPECT_EQ(a->time, format_utc_iso(clk.now()));
  auto b = append_work_log(log, {"FINISH", "auth/01_a", "worker", 1, "claude/opus",
                                 "succeeded", "/l"}, clk);
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->seq, 2u);
  auto text = read_file(log);
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(text->find("| seq | time |"), text->rfind("| seq | time |"));
  auto doc = parse_work_log(*text);
  EXPECT_TRUE(doc.foreign.empty());
  ASSERT_EQ(doc.rows.size(), 2u);
  EXPECT_EQ(doc.rows[1].result, "succeeded");
}

TEST(work_log_append, adds_a_table_to_a_log_written_by_hand) {
  test::temp_dir dir;
  auto log = dir.write("agent-task/g/WORK_LOG.md", "# Notes\n\nfree text without newline");
  manual_clock clk(0);
  auto r = append_work_log(log, start_event("g", 1), clk);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->seq, 1u);
  auto doc = parse_work_log(*read_file(log));
  ASSERT_EQ(doc.rows.size(), 1u);
  ASSERT_EQ(doc.foreign.size(), 1u); // the free text line is kept as it was
}

TEST(work_log_append, a_write_failure_is_an_error_status) {
  test::temp_dir dir;
  // The log path is a directory: open fails.
  fs::create_directories(dir.path() / "agent-task" / "g" / "WORK_LOG.md");
  manual_clock clk(0);
  auto r = append_work_log(work_log_path(dir.path(), "g"), start_event("g", 1), clk);
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(r.error().is_io_error());
  EXPECT_NE(r.error().message().find("WORK_LOG.md"), std::string::npos);
  // The folder cannot be created: a file stands where it should be.
  dir.write("agent-task/h", "file");
  auto r2 = append_work_log(work_log_path(dir.path(), "h"), start_event("h", 1), clk);
  EXPECT_FALSE(r2.is_ok());
}

TEST(work_log_append, concurrent_appenders_in_several_processes_get_unique_increasing_seq) {
  test::temp_dir dir;
  fs::path log = work_log_path(dir.path(), "g");
  constexpr int writers = 4;
  constexpr int rows_each = 30;
  std::vector<pid_t> pids;
  for (int w = 0; w < writers; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      system_clock clk;
      for (int i = 0; i < rows_each; ++i)
        if (!append_work_log(log, start_event("g/0" + std::to_string(w) + "_t", i), clk))
          ::_exit(1);
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  auto text = read_file(log);
  ASSERT_TRUE(text.is_ok());
  auto doc = parse_work_log(*text);
  EXPECT_TRUE(doc.foreign.empty());
  ASSERT_EQ(doc.rows.size(), static_cast<std::size_t>(writers * rows_each));
  for (std::size_t i = 0; i < doc.rows.size(); ++i)
    EXPECT_EQ(doc.rows[i].seq, i + 1); // in file order, no gap, no repeat
  std::set<std::pair<std::string, int>> distinct;
  for (const auto& r : doc.rows)
    distinct.insert({r.task, r.attempt});
  EXPECT_EQ(distinct.size(), doc.rows.size());
}

} // namespace
} // namespace ad::runtime

namespace ad::runtime {
namespace {

TEST(work_log_probe, a_writable_folder_or_log_passes_and_a_missing_folder_names_the_path) {
  test::temp_dir dir;
  auto log = dir.path() / "agent-task" / "g" / "WORK_LOG.md";
  std::filesystem::create_directories(log.parent_path());
  EXPECT_TRUE(probe_work_log_writable(log).is_ok()); // before its first row
  dir.write("agent-task/g/WORK_LOG.md", "# Work log\n");
  EXPECT_TRUE(probe_work_log_writable(log).is_ok());
  EXPECT_EQ(*read_file(log), "# Work log\n"); // the probe writes nothing
  auto gone = probe_work_log_writable(dir.path() / "agent-task" / "nowhere" / "WORK_LOG.md");
  ASSERT_FALSE(gone.is_ok());
  EXPECT_NE(gone.to_string().find("nowhere"), std::string::npos) << gone.to_string();
}

} // namespace
} // namespace ad::runtime

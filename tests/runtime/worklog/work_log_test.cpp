#include "runtime/worklog/work_log.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "runtime/core/files.hpp"
#include "runtime/worklog/work_log_fault.hpp"
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
  EXPECT_EQ(a->row.seq, 1u);
  EXPECT_EQ(a->row.time, format_utc_iso(clk.now()));
  auto b = append_work_log(log, {"FINISH", "auth/01_a", "worker", 1, "claude/opus",
                                 "succeeded", "/l"}, clk);
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->row.seq, 2u);
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
  EXPECT_EQ(r->row.seq, 1u);
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

// A write cut short leaves the beginning of a row: the last line without
// its newline, or (after an older writer glued the next row on) a row's
// beginning followed by a whole row. Neither is foreign text.
TEST(work_log_parse, a_row_cut_short_is_torn_not_foreign) {
  const std::string whole = "| 1 | t | START | g/01_a | worker | 1 | m | running | /l |\n";
  auto tail = parse_work_log(work_log_header() + whole + "| 2 | t | FINISH | g/01_a | wor");
  EXPECT_TRUE(tail.foreign.empty());
  ASSERT_EQ(tail.torn.size(), 1u);
  EXPECT_EQ(tail.torn[0].line_number, 8u);
  EXPECT_EQ(tail.rows.size(), 1u);
  auto glued = parse_work_log(work_log_header() + "| 1 | t | START | g/0\n" + whole);
  EXPECT_TRUE(glued.foreign.empty());
  ASSERT_EQ(glued.torn.size(), 1u);
  EXPECT_EQ(glued.torn[0].line_number, 7u);
  // A cut header at the end is torn; a whole row without its newline is a row.
  EXPECT_EQ(parse_work_log("# Work Log\n\n| seq | ti").torn.size(), 1u);
  auto unterminated = parse_work_log(work_log_header() + whole.substr(0, whole.size() - 1));
  EXPECT_TRUE(unterminated.torn.empty());
  EXPECT_EQ(unterminated.rows.size(), 1u);
  // Prose is foreign wherever it is.
  EXPECT_EQ(parse_work_log(work_log_header() + "a note\n" + whole).foreign.size(), 1u);
}

// The ENOSPC repro: a row cut mid-line blocked every later archive. The next
// append moves it to the side file, says so, and the log reads clean.
TEST(work_log_append, a_torn_last_row_is_moved_aside_and_named) {
  test::temp_dir dir;
  manual_clock clk(1796000000000);
  fs::path log = work_log_path(dir.path(), "g");
  ASSERT_TRUE(append_work_log(log, start_event("g/01_a", 1), clk));
  const std::string fragment = "| 2 | 2026-11-29T13:00:00.000Z | FINISH | g/01_a | wor";
  {
    auto text = *read_file(log);
    ASSERT_TRUE(write_file_atomic(log, text + fragment).is_ok());
  }
  auto r = append_work_log(log, {"FINISH", "g/01_a", "worker", 1, "claude/opus", "succeeded", "/l"},
                           clk);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  ASSERT_TRUE(r->healed.has_value());
  EXPECT_EQ(r->healed->line_number, 8u);
  EXPECT_EQ(r->healed->text, fragment);
  EXPECT_EQ(r->healed->side_file, work_log_torn_path(log));
  EXPECT_NE(r->healed->message().find(log.string() + " line 8 was cut short"), std::string::npos)
    << r->healed->message();
  EXPECT_EQ(r->row.seq, 2u);
  auto doc = parse_work_log(*read_file(log));
  EXPECT_TRUE(doc.foreign.empty());
  EXPECT_TRUE(doc.torn.empty());
  ASSERT_EQ(doc.rows.size(), 2u);
  EXPECT_EQ(doc.rows[1].result, "succeeded");
  auto side = read_file(work_log_torn_path(log));
  ASSERT_TRUE(side.is_ok());
  EXPECT_NE(side->find(log.string() + " line 8: " + fragment), std::string::npos) << *side;
  // Healed once: the next append finds nothing to move.
  auto again = append_work_log(log, start_event("g/02_b", 1), clk);
  ASSERT_TRUE(again.is_ok());
  EXPECT_FALSE(again->healed.has_value());
}

// An append after this process's own last row does not read the log again;
// any other writer's change (a row appended, a same-size edit, a replaced
// file) is seen, and the next row follows it.
TEST(work_log_append, another_writers_change_between_appends_is_seen) {
  test::temp_dir dir;
  manual_clock clk(0);
  fs::path log = work_log_path(dir.path(), "g");
  ASSERT_TRUE(append_work_log(log, start_event("g/01_a", 1), clk));
  ASSERT_TRUE(append_work_log(log, start_event("g/02_b", 1), clk));
  // Another dispatcher appends a row with a higher seq in place.
  {
    int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0);
    std::string row = "| 41 | t | START | g/03_c | worker | 1 | m | running | /l |\n";
    ASSERT_EQ(::write(fd, row.data(), row.size()), static_cast<ssize_t>(row.size()));
    ::close(fd);
  }
  auto after_append = append_work_log(log, start_event("g/04_d", 1), clk);
  ASSERT_TRUE(after_append.is_ok());
  EXPECT_EQ(after_append->row.seq, 42u);
  // A person edits a row in place without changing the size: 42 -> 97. The
  // file's time moves on (set here, as a later edit would).
  {
    auto text = *read_file(log);
    auto at = text.rfind("| 42 |");
    ASSERT_NE(at, std::string::npos);
    int fd = ::open(log.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "97", 2, static_cast<off_t>(at + 2)), 2);
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);
    timespec times[2] = {st.st_atim, st.st_mtim};
    times[1].tv_sec += 5;
    ASSERT_EQ(::futimens(fd, times), 0);
    ::close(fd);
  }
  auto after_edit = append_work_log(log, start_event("g/05_e", 1), clk);
  ASSERT_TRUE(after_edit.is_ok());
  EXPECT_EQ(after_edit->row.seq, 98u);
  // The log is replaced by another file.
  ASSERT_TRUE(write_file_atomic(log, work_log_header() +
                                       "| 7 | t | START | g/06_f | worker | 1 | m | running | /l |\n")
                .is_ok());
  auto after_replace = append_work_log(log, start_event("g/07_g", 1), clk);
  ASSERT_TRUE(after_replace.is_ok());
  EXPECT_EQ(after_replace->row.seq, 8u);
  auto doc = parse_work_log(*read_file(log));
  EXPECT_TRUE(doc.foreign.empty());
  EXPECT_TRUE(doc.torn.empty());
  ASSERT_EQ(doc.rows.size(), 2u);
}

// A full disk: the write that fails is cut back, the log stays as it was,
// and the rows written once space returns follow it cleanly.
TEST(work_log_append, a_failed_write_leaves_no_part_of_the_row) {
  test::temp_dir dir;
  manual_clock clk(0);
  fs::path log = work_log_path(dir.path(), "g");
  ASSERT_TRUE(append_work_log(log, start_event("g/01_a", 1), clk));
  auto before = *read_file(log);
  for (const char* mode : {"1:once", "1:full"}) {
    ::setenv("AD_TEST_WORK_LOG_FAULT", mode, 1);
    auto failed = append_work_log(log, start_event("g/02_b", 1), clk);
    ASSERT_FALSE(failed.is_ok()) << mode;
    EXPECT_NE(failed.error().message().find("No space left on device"), std::string::npos)
      << failed.error().message();
    EXPECT_EQ(*read_file(log), before) << mode;
    if (std::string(mode) == "1:full")
      EXPECT_FALSE(append_work_log(log, start_event("g/03_c", 1), clk).is_ok());
    ::unsetenv("AD_TEST_WORK_LOG_FAULT");
  }
  EXPECT_EQ(*read_file(log), before);
  ASSERT_TRUE(append_work_log(log, start_event("g/02_b", 1), clk));
  auto doc = parse_work_log(*read_file(log));
  EXPECT_TRUE(doc.torn.empty());
  EXPECT_TRUE(doc.foreign.empty());
  EXPECT_EQ(doc.rows.size(), 2u);
}

TEST(work_log_fault, the_test_hook_counts_writes_per_setting) {
  EXPECT_EQ(work_log_fault_for("2:once", 1), work_log_write_fault::none);
  EXPECT_EQ(work_log_fault_for("2:once", 2), work_log_write_fault::cut);
  EXPECT_EQ(work_log_fault_for("2:once", 3), work_log_write_fault::none);
  EXPECT_EQ(work_log_fault_for("2:full", 2), work_log_write_fault::cut);
  EXPECT_EQ(work_log_fault_for("2:full", 9), work_log_write_fault::nothing);
  EXPECT_EQ(work_log_fault_for("2:crash", 2), work_log_write_fault::crash);
  for (const char* bad : {"", "2", "x:once", "0:once", "2:sometimes"})
    EXPECT_EQ(work_log_fault_for(bad, 2), work_log_write_fault::none) << bad;
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
